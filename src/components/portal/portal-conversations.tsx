"use client";
// The end user's own conversations in this portal, newest first; each reopens in its app.
import { useQueries } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { portalError } from "./portal-errors";
import { PortalFrame } from "./portal-frame";
import { usePortalTRPC } from "./portal-trpc";

const PAGE = 20;

export function PortalConversations({ portal }: { portal: string }) {
  const trpc = usePortalTRPC();
  const base = `/p/${encodeURIComponent(portal)}`;
  // One query per page loaded so far; "Load more" adds the next page's cursor.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const pages = useQueries({ queries: cursors.map((cursor) => trpc.conversations.list.queryOptions({ portal, limit: PAGE, ...(cursor ? { cursor } : {}) })) });
  const rows = pages.flatMap((page) => page.data?.conversations ?? []);
  const last = pages[pages.length - 1];
  const error = pages.find((page) => page.error)?.error;
  const nextCursor = last?.data?.nextCursor;

  return (
    <PortalFrame portal={portal}>
      {() => (
        <>
          <h1>Your conversations</h1>
          <p>
            <Link href={base}>Start a new conversation</Link> with one of your apps.
          </p>
          <div className="panel">
            {pages[0]?.isLoading && <p className="muted">Loading…</p>}
            {error && portalError(error).status !== 401 && (
              <p role="alert" className="error">
                {portalError(error).message}
              </p>
            )}
            {pages[0]?.data && rows.length === 0 && <p className="muted">No conversations yet.</p>}
            {rows.length > 0 && (
              <ul className="portal-conversations">
                {rows.map((c) => (
                  <li key={c.id} data-testid="portal-conversation">
                    <Link href={`${base}/apps/${c.appId}?c=${c.id}`}>
                      {c.title || "Untitled conversation"}
                      <span className="muted">
                        {c.appName} · {new Date(c.updatedAt).toLocaleString()}
                      </span>
                    </Link>
                  </li>
                ))}
              </ul>
            )}
            {nextCursor && (
              <button type="button" onClick={() => setCursors((current) => [...current, nextCursor])} disabled={!!last?.isLoading}>
                Load more
              </button>
            )}
          </div>
        </>
      )}
    </PortalFrame>
  );
}
