"use client";
// The embed frame's sign-in: it tells the page it is ready, the page's <atrium-chat> answers with
// its token by postMessage, and the token is exchanged for an end-user session held in memory
// (embed-session.ts). A new token (the page refreshing the identity) is exchanged again; a new end
// user gets fresh providers, so nothing of the one before stays in the cache. A session that
// ends asks the page for a new token; a refusal is shown in words and reported to the page.
import { useCallback, useEffect, useMemo, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { setEmbedSession } from "./embed-session";
import { PortalPlaceProvider } from "./portal-place";
import { PortalProviders } from "./portal-trpc";
import "./portal.css";

type GateState =
  | { kind: "waiting" }
  | { kind: "ready"; endUserId: string }
  | { kind: "refused"; code: string }
  | { kind: "ended" }
  | { kind: "alone" };

interface RefusalBody {
  error?: { code?: string; message?: string };
}

export function EmbedGate({ portal, children }: { portal: string; children: ReactNode }) {
  const { t } = useTranslation();
  const [state, setState] = useState<GateState>({ kind: "waiting" });
  const [parentOrigin, setParentOrigin] = useState<string | null>(null);

  useEffect(() => {
    // Opened on its own (not framed by the page), it has no one to take a token from.
    if (window.parent === window) {
      // eslint-disable-next-line react-hooks/set-state-in-effect -- known only in the browser
      setState({ kind: "alone" });
      return;
    }
    async function exchange(event: MessageEvent) {
      const data = event.data as { type?: unknown; token?: unknown } | null;
      if (event.source !== window.parent || data?.type !== "atrium:token" || typeof data.token !== "string") return;
      const response = await fetch(`/api/portal/${encodeURIComponent(portal)}/embed/session`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ token: data.token, parentOrigin: event.origin }),
      });
      const body = (await response.json().catch(() => null)) as
        ({ session: string; endUser: { id: string } } & RefusalBody) | null;
      setParentOrigin(event.origin);
      if (!response.ok || !body?.session) {
        setEmbedSession(null);
        const code = body?.error?.code ?? "server_error";
        setState({ kind: "refused", code });
        window.parent.postMessage({ type: "atrium:refused", code, message: body?.error?.message ?? "" }, event.origin);
        return;
      }
      setEmbedSession(body.session);
      setState({ kind: "ready", endUserId: body.endUser.id });
    }
    const listener = (event: MessageEvent) => void exchange(event);
    window.addEventListener("message", listener);
    // Carries nothing secret: the page answers only a frame of its element, to Atrium's origin.
    window.parent.postMessage({ type: "atrium:ready" }, "*");
    return () => window.removeEventListener("message", listener);
  }, [portal]);

  const sessionEnded = useCallback(() => {
    setEmbedSession(null);
    setState({ kind: "ended" });
    if (parentOrigin) window.parent.postMessage({ type: "atrium:session-ended" }, parentOrigin);
  }, [parentOrigin]);
  const place = useMemo(() => ({ embedded: true, onSessionEnded: sessionEnded }), [sessionEnded]);

  if (state.kind === "ready")
    return (
      <PortalPlaceProvider value={place}>
        <PortalProviders key={state.endUserId} portal={portal}>
          {children}
        </PortalProviders>
      </PortalPlaceProvider>
    );
  const message =
    state.kind === "waiting"
      ? t("embed.waiting")
      : state.kind === "ended"
        ? t("embed.ended")
        : state.kind === "alone"
          ? t("embed.alone")
          : state.code === "origin_not_allowed"
            ? t("embed.originRefused")
            : t("embed.tokenRefused");
  return (
    <div className="portal">
      <main className="portal-main">
        <p
          role={state.kind === "waiting" ? "status" : "alert"}
          className={state.kind === "waiting" ? "muted" : "error"}
          data-testid="embed-state"
        >
          {message}
        </p>
      </main>
    </div>
  );
}
