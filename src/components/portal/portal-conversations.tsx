"use client";
// The end user's own conversations in this portal, newest first, searchable; each reopens in its
// app. Below them, their own data export (the same document an admin can download).
import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Trans, useTranslation } from "react-i18next";
import { ConversationHistory } from "./conversation-history";
import { PortalFrame } from "./portal-frame";
import { PortalErrorLine } from "./portal-error-line";
import { usePortalBase } from "./portal-place";
import { usePortalTRPC } from "./portal-trpc";

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
          <YourData portal={portal} />
        </>
      )}
    </PortalFrame>
  );
}

function YourData({ portal }: { portal: string }) {
  const trpc = usePortalTRPC();
  const queryClient = useQueryClient();
  const { t } = useTranslation();
  const [preparing, setPreparing] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function download() {
    setPreparing(true);
    setError(null);
    try {
      const document = await queryClient.fetchQuery({ ...trpc.account.export.queryOptions({ portal }), staleTime: 0 });
      const url = URL.createObjectURL(new Blob([JSON.stringify(document, null, 2)], { type: "application/json" }));
      Object.assign(window.document.createElement("a"), { href: url, download: `my-data-${portal}.json` }).click();
      URL.revokeObjectURL(url);
    } catch (caught) {
      setError(caught);
    } finally {
      setPreparing(false);
    }
  }

  return (
    <section className="panel" aria-labelledby="your-data">
      <h2 id="your-data">{t("history.yourData")}</h2>
      <p>{t("history.yourDataText")}</p>
      {error ? <PortalErrorLine error={error} /> : null}
      <button type="button" onClick={() => void download()} disabled={preparing}>
        {preparing ? t("history.preparing") : t("history.download")}
      </button>
    </section>
  );
}
