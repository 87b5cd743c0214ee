"use client";
// The end user's own conversations in this portal, newest first, searchable; each reopens in its app.
import Link from "next/link";
import { ConversationHistory } from "./conversation-history";
import { PortalFrame } from "./portal-frame";

export function PortalConversations({ portal }: { portal: string }) {
  const base = `/p/${encodeURIComponent(portal)}`;
  return (
    <PortalFrame portal={portal}>
      {() => (
        <>
          <h1>Your conversations</h1>
          <p>
            <Link href={base}>Start a new conversation</Link> with one of your apps.
          </p>
          <div className="panel">
            <ConversationHistory portal={portal} />
          </div>
        </>
      )}
    </PortalFrame>
  );
}
