"use client";
// The end user's own conversations in this portal, newest first, searchable; each reopens in its
// app. Below them, their own data export (the same document an admin can download), downloaded
// now or by a link mailed to them (services/portal/portal-export.ts).
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { Trans, useTranslation } from "react-i18next";
import { StreamError } from "@/components/chat/stream-reply";
import { ConversationHistory } from "./conversation-history";
import { embedSessionHeaders } from "./embed-session";
import { usePortalLanguage } from "./i18n/provider";
import { PortalFrame } from "./portal-frame";
import { PortalErrorLine } from "./portal-error-line";
import { usePortalBase } from "./portal-place";
import { usePortalTRPC } from "./portal-trpc";
import { forgetExportLink, keepExportLink, keptExportLink } from "./session-memory";

export function PortalConversations({ portal }: { portal: string }) {
  const base = usePortalBase(portal);
  const { t } = useTranslation();
  useEffect(() => {
    // A mailed link's token is kept for this tab (through a sign-in first, if need be) and leaves
    // the address bar and the history at once.
    const token = linkFromFragment();
    if (token === null) return;
    keepExportLink(portal, token);
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }, [portal]);
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

/** The token of a mailed export link, from the page's fragment (which no server ever sees). */
function linkFromFragment(): string | null {
  const found = /(?:^#|&)export=([A-Za-z0-9_-]+)/.exec(window.location.hash);
  return found?.[1] ?? null;
}

/**
 * The export, streamed by the server (`/api/portal/{portal}/account/export`): downloaded now, or
 * with the token of a mailed link. Saved as a file; a refusal is thrown as the portal words it.
 */
async function saveExport(portal: string, link: string | null): Promise<void> {
  const url = `/api/portal/${encodeURIComponent(portal)}/account/export`;
  const response = await fetch(
    url,
    link === null
      ? { headers: embedSessionHeaders() }
      : {
          method: "POST",
          headers: { "Content-Type": "application/json", ...embedSessionHeaders() },
          body: JSON.stringify({ link }),
        },
  );
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
    throw new StreamError(body?.error?.message ?? "", response.status, body?.error?.code);
  }
  const href = URL.createObjectURL(await response.blob());
  Object.assign(window.document.createElement("a"), { href, download: `my-data-${portal}.json` }).click();
  URL.revokeObjectURL(href);
}

function YourData({ portal }: { portal: string }) {
  const trpc = usePortalTRPC();
  const { t } = useTranslation();
  const language = usePortalLanguage();
  const [preparing, setPreparing] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // Rendered in the browser only (after the portal's info loads), so the fragment can be read at once.
  const [link, setLink] = useState<string | null>(() =>
    typeof window === "undefined" ? null : (linkFromFragment() ?? keptExportLink(portal)),
  );
  const mail = useMutation(trpc.account.mailExport.mutationOptions());
  const me = useQuery(trpc.me.get.queryOptions({ portal }));

  async function download(fromLink: string | null) {
    setPreparing(true);
    setError(null);
    try {
      await saveExport(portal, fromLink);
    } catch (caught) {
      setError(caught);
    } finally {
      setPreparing(false);
      // A link is tried once: used, or refused with the reason shown.
      if (fromLink !== null) {
        forgetExportLink(portal);
        setLink(null);
      }
    }
  }

  return (
    <section className="panel" aria-labelledby="your-data">
      <h2 id="your-data">{t("history.yourData")}</h2>
      <p>{t("history.yourDataText")}</p>
      {link !== null ? (
        <p role="status">
          {t("history.linkReady")}{" "}
          <button type="button" onClick={() => void download(link)} disabled={preparing}>
            {t("history.downloadFromLink")}
          </button>
        </p>
      ) : null}
      {error || mail.error ? <PortalErrorLine error={error ?? mail.error} /> : null}
      <div className="portal-history-actions">
        <button type="button" onClick={() => void download(null)} disabled={preparing}>
          {preparing ? t("history.preparing") : t("history.download")}
        </button>
        <button type="button" onClick={() => mail.mutate({ portal, language })} disabled={mail.isPending}>
          {mail.isPending ? t("history.mailing") : t("history.mailLink")}
        </button>
      </div>
      {mail.data ? (
        <p role="status">
          {t("history.mailSent", {
            email: me.data?.endUser.email ?? "",
            hours: Math.round(mail.data.expiresInSeconds / 3600),
          })}
        </p>
      ) : null}
    </section>
  );
}
