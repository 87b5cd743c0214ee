"use client";
// The messages of a conversation: the app's greeting, the stored messages and the turn still
// streaming (marked as typing), kept scrolled to the newest.
import { useEffect, useRef, type ReactNode } from "react";
import { ChatMarkdown } from "./chat-markdown";
import "./chat.css";
import type { PendingTurn } from "./use-chat-turn";

export interface TranscriptMessage {
  id: string;
  role: string;
  content: string;
}

export function ChatTranscript<M extends TranscriptMessage>({
  greeting,
  messages,
  pending,
  reconnecting = false,
  footer,
  children,
}: {
  greeting?: string | null;
  messages: M[];
  pending: PendingTurn | null;
  /** The stream dropped and is being picked up again. */
  reconnecting?: boolean;
  /** Shown under an assistant message (the console's trace). */
  footer?: (message: M) => ReactNode;
  /** Shown before the messages (loading and errors). */
  children?: ReactNode;
}) {
  const end = useRef<HTMLDivElement>(null);
  const lastId = messages.at(-1)?.id;
  useEffect(() => {
    end.current?.scrollIntoView({ block: "end", behavior: "smooth" });
  }, [lastId, pending?.message, pending?.reply]);
  return (
    <div className="chat-log" aria-live="polite" aria-busy={pending && !pending.stopped ? true : undefined}>
      {greeting ? (
        <div className="chat-message assistant" data-testid="greeting">
          {greeting}
        </div>
      ) : null}
      {children}
      {messages.map((m) => (
        <div key={m.id} className={`chat-message ${m.role}`} data-testid={`message-${m.role}`}>
          {m.role === "assistant" ? <ChatMarkdown text={m.content} /> : <div className="chat-text">{m.content}</div>}
          {footer?.(m)}
        </div>
      ))}
      {pending && (
        <>
          <div className="chat-message user" data-testid="message-user">
            <div className="chat-text">{pending.message}</div>
          </div>
          <div className="chat-message assistant" data-testid="message-streaming">
            {pending.reply && <ChatMarkdown text={pending.reply} />}
            {pending.stopped ? (
              <div className="chat-status muted" data-testid="stopped">
                Stopped
              </div>
            ) : reconnecting ? (
              <div className="chat-status muted" data-testid="reconnecting" role="status">
                Connection lost; picking up where it left off…
              </div>
            ) : (
              <div className="chat-typing muted" data-testid="typing">
                <span className="chat-typing-dots" aria-hidden />
                {pending.reply ? "Typing…" : "Thinking…"}
              </div>
            )}
          </div>
        </>
      )}
      <div ref={end} />
    </div>
  );
}
