"use client";
// The end user's own conversations in this portal, newest first; each reopens in its app.
import Link from "next/link";
import { LoadMore } from "@/components/console/load-more";
import { useCursorList } from "@/components/console/use-cursor-list";
import { portalError } from "./portal-errors";
import { PortalFrame } from "./portal-frame";
import { usePortalTRPC } from "./portal-trpc";

const PAGE = 20;

export function PortalConversations({ portal }: { portal: string }) {
  const trpc = usePortalTRPC();
  const base = `/p/${encodeURIComponent(portal)}`;
  const list = useCursorList(
    (cursor) => trpc.conversations.list.queryOptions({ portal, limit: PAGE, ...(cursor ? { cursor } : {}) }),
    (page) => page.conversations,
  );
  const rows = list.items;
  const error = list.error;

  return (
    <PortalFrame portal={portal}>
      {() => (
        <>
          <h1>Your conversations</h1>
          <p>
            <Link href={base}>Start a new conversation</Link> with one of your apps.
          </p>
          <div className="panel">
            {list.isLoading && <p className="muted">Loading…</p>}
            {error && portalError(error).status !== 401 && (
              <p role="alert" className="error">
                {portalError(error).message}
              </p>
            )}
            {list.isLoaded && rows.length === 0 && <p className="muted">No conversations yet.</p>}
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
            <LoadMore list={list} />
          </div>
        </>
      )}
    </PortalFrame>
  );
}
