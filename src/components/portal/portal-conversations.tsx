"use client";
// The end user's own conversations in this portal, newest first, searchable; each reopens in its app.
import Link from "next/link";
import { Trans, useTranslation } from "react-i18next";
import { ConversationHistory } from "./conversation-history";
import { PortalFrame } from "./portal-frame";
import { usePortalBase } from "./portal-place";

export function PortalConversations({ portal }: { portal: string }) {
  const base = usePortalBase(portal);
  const { t } = useTranslation();
  return (
    <PortalFrame portal={portal}>
      {() => (
        <>
          <h1>{t("history.heading")}</h1>
          <p>
            <Trans t={t} i18nKey="history.startNew" components={{ start: <Link href={base} /> }} />
          </p>
          <div className="panel">
            <ConversationHistory portal={portal} />
          </div>
        </>
      )}
    </PortalFrame>
  );
}
