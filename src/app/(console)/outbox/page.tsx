"use client";
// The organization's outbox: emails Atrium would have sent (sign-in codes, invitations) when no
// SMTP server is configured, newest first. Admins read them here for people who cannot get email;
// a mail whose link grants what only owners may grant shows its text to owners and its recipient.
import { ErrorAlert, LoadMore, PageHeader, Panel, useCursorList, When } from "@/components/console";
import { useTRPC } from "@/lib/trpc";

const PAGE = 25;

export default function OutboxPage() {
  const trpc = useTRPC();
  const list = useCursorList(
    (cursor) => trpc.mail.list.queryOptions({ limit: PAGE, ...(cursor ? { cursor } : {}) }),
    (page) => page.messages,
  );
  const messages = list.items;

  return (
    <>
      <PageHeader
        title="Outbox"
        description={
          <>
            Emails Atrium sends (end users' sign-in codes, invitations to members), newest first. They land here when no
            SMTP server is configured (<code>SMTP_URL</code> and <code>MAIL_FROM</code>). Links that make an owner or
            reset an owner's or admin's password are shown to owners only.
          </>
        }
      />
      <Panel>
        {list.isLoading && <p className="muted">Loading…</p>}
        <ErrorAlert error={list.error} />
        {list.isLoaded && messages.length === 0 && <p className="muted">The outbox is empty.</p>}
        {messages.length > 0 && (
          <ul style={{ listStyle: "none", padding: 0, margin: 0 }}>
            {messages.map((message) => (
              <li
                key={message.id}
                data-testid="outbox-message"
                style={{ borderBottom: "1px solid var(--border)", padding: "0.6rem 0" }}
              >
                <div className="row" style={{ justifyContent: "space-between", gap: "0.25rem 1rem" }}>
                  <strong style={{ overflowWrap: "anywhere" }}>{message.to}</strong>
                  <span className="muted">
                    <When at={message.createdAt} />
                  </span>
                </div>
                {message.withheld ? (
                  <>
                    <p style={{ margin: 0 }}>{message.subject}</p>
                    <p className="muted" style={{ margin: "0.25rem 0 0" }}>
                      {message.text}
                    </p>
                  </>
                ) : (
                  <details>
                    <summary>{message.subject}</summary>
                    <pre className="secret" style={{ whiteSpace: "pre-wrap", margin: "0.5rem 0 0" }}>
                      <WithLinks text={message.text} />
                    </pre>
                  </details>
                )}
              </li>
            ))}
          </ul>
        )}
        <LoadMore list={list} />
      </Panel>
    </>
  );
}

const URL_IN_TEXT = /(https?:\/\/[^\s<>"]+[^\s<>".,;:!?)])/;

/** A mail's text with its web addresses as links (an invitation, a sign-in code page). */
function WithLinks({ text }: { text: string }) {
  return text.split(URL_IN_TEXT).map((part, index) =>
    index % 2 === 1 ? (
      <a key={index} href={part}>
        {part}
      </a>
    ) : (
      part
    ),
  );
}
