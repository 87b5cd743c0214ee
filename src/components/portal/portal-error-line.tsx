"use client";
import type { CSSProperties } from "react";
import { useTranslation } from "react-i18next";
import { portalErrorText } from "./portal-errors";

/**
 * A failed call as the portal says it: one announced line in the end user's language
 * (portalErrorText words the codes it knows, and shows the server's message for the rest).
 */
export function PortalErrorLine({ error, testId, style }: { error: unknown; testId?: string; style?: CSSProperties }) {
  const { t } = useTranslation();
  return (
    <p role="alert" className="error" data-testid={testId} style={style}>
      {portalErrorText(t, error)}
    </p>
  );
}
