"use client";
// The organization's outbox: emails Atrium would have sent (sign-in codes) when no SMTP server
// is configured, newest first. Admins read codes here for end users who cannot get email.
import { useQueries } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage, useTRPC } from "@/lib/trpc";

const PAGE = 25;

export default function OutboxPage() {
  const trpc = useTRPC();
  // One query per page loaded so far; "Load more" adds the next page's cursor.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const pages = useQueries({ queries: cursors.map((cursor) => trpc.mail.list.queryOptions({ limit: PAGE, ...(cursor ? { cursor } : {}) })) });
  const messages = pages.flatMap((page) => page.data?.messages ?? []);
  const last = pages[pages.length - 1];
  const error = pages.find((page) => page.error)?.error;
  const nextCursor = last?.data?.nextCursor;

  return (
    <>
      <h1>Outbox</h1>
      <p className="muted">
        Emails to end users (sign-in codes), newest first. They land here when no SMTP server is configured (<code>SMTP_URL</code> and <code>MAIL_FROM</code>).
      </p>
      <div className="panel">
        {pages[0]?.isLoading && <p className="muted">Loading…</p>}
        {error && (
          <p role="alert" className="error">
            {errorMessage(error)}
          </p>
        )}
        {pages[0]?.data && messages.length === 0 && <p className="muted">The outbox is empty.</p>}
        {messages.length > 0 && (
          <ul style={{ listStyle: "none", padding: 0, margin: 0 }}>
            {messages.map((message) => (
              <li key={message.id} data-testid="outbox-message" style={{ borderBottom: "1px solid var(--border)", padding: "0.6rem 0" }}>
                <div className="row" style={{ justifyContent: "space-between", gap: "0.25rem 1rem" }}>
                  <strong style={{ overflowWrap: "anywhere" }}>{message.to}</strong>
                  <span className="muted">{new Date(message.createdAt).toLocaleString()}</span>
                </div>
                <details>
                  <summary>{message.subject}</summary>
                  <pre className="secret" style={{ whiteSpace: "pre-wrap", margin: "0.5rem 0 0" }}>
                    {message.text}
                  </pre>
                </details>
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
  );
}
