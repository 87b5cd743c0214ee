"use client";
// The console chat with one published app: its greeting, its conversations, and a message box
// whose reply streams in (Server-Sent Events from /api/console/apps/{appId}/conversation).
import { skipToken, useQuery, useQueryClient } from "@tanstack/react-query";
import { createParser } from "eventsource-parser";
import Link from "next/link";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/lib/trpc";
import { TraceDetails } from "./execution-trace";

interface Pending {
  message: string;
  reply: string;
}

type ErrorBody = { error?: { code?: string; message?: string } };

function envelopeMessage(body: unknown, fallback: string): string {
  return (body as ErrorBody | null)?.error?.message ?? fallback;
}

/** Posts one message and calls `onDelta` with each piece of the reply; resolves with `done`'s data. */
async function streamReply(
  appId: string,
  body: { message: string; conversation_id?: string },
  onDelta: (text: string) => void,
  signal: AbortSignal,
): Promise<{ reply: string; conversation_id: string }> {
  const response = await fetch(`/api/console/apps/${appId}/conversation`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok || !response.headers.get("content-type")?.startsWith("text/event-stream")) {
    const parsed = (await response.json().catch(() => null)) as unknown;
    throw new Error(envelopeMessage(parsed, `The request failed (${response.status}).`));
  }
  let done: { reply: string; conversation_id: string } | null = null;
  let failure: string | null = null;
  const parser = createParser({
    onEvent: (event) => {
      const data = JSON.parse(event.data) as unknown;
      if (event.event === "delta") onDelta((data as { text: string }).text);
      else if (event.event === "done") done = data as { reply: string; conversation_id: string };
      else if (event.event === "error") failure = envelopeMessage(data, "The run failed.");
    },
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    parser.feed(value);
  }
  if (failure) throw new Error(failure);
  if (!done) throw new Error("The connection closed before the reply was finished.");
  return done;
}

export function ChatView({ appId }: { appId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const app = useQuery(trpc.apps.get.queryOptions({ appId }));
  const conversations = useQuery(trpc.conversations.list.queryOptions({ appId }));
  const [conversationId, setConversationId] = useState<string | null>(null);
  const messages = useQuery(trpc.conversations.messages.queryOptions(conversationId ? { conversationId } : skipToken));
  const [draft, setDraft] = useState("");
  const [pending, setPending] = useState<Pending | null>(null);
  const [error, setError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  // Leaving the page cancels a reply still streaming (the server stops the run).
  useEffect(() => () => abort.current?.abort(), []);

  function open(id: string | null) {
    abort.current?.abort();
    setPending(null);
    setError(null);
    setConversationId(id);
  }

  async function send(event: FormEvent) {
    event.preventDefault();
    const message = draft.trim();
    if (!message || pending) return;
    setError(null);
    setDraft("");
    setPending({ message, reply: "" });
    const controller = new AbortController();
    abort.current = controller;
    try {
      const done = await streamReply(
        appId,
        { message, ...(conversationId ? { conversation_id: conversationId } : {}) },
        (text) => setPending((current) => (current ? { ...current, reply: current.reply + text } : current)),
        controller.signal,
      );
      // The stored messages (with the answer's execution) replace the streamed copy in one step.
      await queryClient.fetchQuery({ ...trpc.conversations.messages.queryOptions({ conversationId: done.conversation_id }), staleTime: 0 });
      if (controller.signal.aborted) return;
      setConversationId(done.conversation_id);
      setPending(null);
      void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.queryKey({ appId }) });
    } catch (cause) {
      if (controller.signal.aborted) return;
      setError(errorMessage(cause));
      setPending(null);
      setDraft(message);
    }
  }

  const live = app.data?.app as { name?: string; description?: string; api?: { greeting?: string } } | undefined;
  const greeting = live?.api?.greeting;

  return (
    <>
      <p className="muted">
        <Link href="/chat">← All apps</Link>
      </p>
      <h1>{live?.name ?? "Chat"}</h1>
      {app.error && (
        <p role="alert" className="error">
          {errorMessage(app.error)}
        </p>
      )}
      <div className="chat">
        <aside className="panel chat-conversations" aria-label="Conversations">
          <button type="button" className="primary" onClick={() => open(null)} disabled={conversationId === null && !pending}>
            New conversation
          </button>
          {conversations.error && (
            <p role="alert" className="error">
              {errorMessage(conversations.error)}
            </p>
          )}
          {conversations.data?.conversations.length === 0 && <p className="muted">No conversations yet.</p>}
          <ul>
            {conversations.data?.conversations.map((c) => (
              <li key={c.id}>
                <button type="button" className="link" aria-current={c.id === conversationId ? "true" : undefined} onClick={() => open(c.id)}>
                  {c.title || "Untitled"}
                </button>
                <div className="muted">
                  {c.startedBy} · {new Date(c.updatedAt).toLocaleString()}
                </div>
              </li>
            ))}
          </ul>
        </aside>
        <section className="panel chat-main" aria-label="Conversation">
          <div className="chat-log" aria-live="polite">
            {greeting ? (
              <div className="chat-message assistant" data-testid="greeting">
                {greeting}
              </div>
            ) : null}
            {messages.isLoading && <p className="muted">Loading…</p>}
            {messages.error && (
              <p role="alert" className="error">
                {errorMessage(messages.error)}
              </p>
            )}
            {conversationId &&
              messages.data?.messages.map((m) => (
                <div key={m.id} className={`chat-message ${m.role}`} data-testid={`message-${m.role}`}>
                  <div className="chat-text">{m.content}</div>
                  {m.role === "assistant" && m.executionId ? <TraceDetails executionId={m.executionId} label="Trace of this answer" /> : null}
                </div>
              ))}
            {pending && (
              <>
                <div className="chat-message user" data-testid="message-user">
                  <div className="chat-text">{pending.message}</div>
                </div>
                <div className="chat-message assistant" data-testid="message-streaming">
                  <div className="chat-text">{pending.reply || <span className="muted">Thinking…</span>}</div>
                </div>
              </>
            )}
          </div>
          {error && (
            <p role="alert" className="error">
              {error}
            </p>
          )}
          <form className="row chat-input" onSubmit={send} aria-label="Send a message">
            <textarea
              rows={2}
              aria-label="Message"
              value={draft}
              maxLength={20_000}
              placeholder="Ask something…"
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.shiftKey) {
                  e.preventDefault();
                  e.currentTarget.form?.requestSubmit();
                }
              }}
            />
            <button type="submit" className="primary" disabled={!!pending || draft.trim() === ""}>
              {pending ? "Answering…" : "Send"}
            </button>
          </form>
        </section>
      </div>
    </>
  );
}
