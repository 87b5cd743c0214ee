"use client";
// The messages of a conversation: the app's greeting, the stored messages and the turn still
// streaming (marked as typing), kept scrolled to the newest. Answers show their sources (each
// opens the cited passage beside the conversation) and their actions: copy, regenerate (the last
// one), helpful or not; the last question can be edited and sent again. A question's files
// download by their names.
import { useEffect, useRef, useState, type FormEvent, type MouseEvent, type ReactNode } from "react";
import { useChatFileSize, useChatText } from "./chat-i18n";
import { ChatMarkdown, type ChatCitation } from "./chat-markdown";
import "./chat.css";
import { CitationList, CitationPanel } from "./citation-panel";
import { MessageActions, type FeedbackRating } from "./message-actions";
import type { PendingTurn } from "./use-chat-turn";

export interface TranscriptMessage {
  id: string;
  role: string;
  content: string;
  citations?: ChatCitation[];
  feedback?: { rating: FeedbackRating } | null;
  /** The files a question carried. */
  attachments?: { id: string; name: string; sizeBytes: number }[];
}

/** Where the door serves a file's download, and the headers its calls carry (the embedded chat's session). */
export interface TranscriptFiles {
  url: (fileId: string) => string;
  headers?: () => Record<string, string>;
}

/**
 * A sent file's name, downloading it: a plain link where the door's cookie signs the request in;
 * fetched with the door's headers (the embedded chat, which has no cookie) and saved from memory.
 */
function FileLink({ file, files }: { file: { id: string; name: string }; files: TranscriptFiles }) {
  const url = files.url(file.id);
  async function saveWithHeaders(event: MouseEvent<HTMLAnchorElement>) {
    const headers = files.headers?.() ?? {};
    if (Object.keys(headers).length === 0) return;
    event.preventDefault();
    const response = await fetch(url, { headers });
    if (!response.ok) return;
    const saved = URL.createObjectURL(await response.blob());
    const link = document.createElement("a");
    link.href = saved;
    link.download = file.name;
    link.click();
    URL.revokeObjectURL(saved);
  }
  return (
    <a href={url} download={file.name} onClick={(event) => void saveWithHeaders(event)}>
      {file.name}
    </a>
  );
}

export interface TranscriptActions<M> {
  /** Writes the last answer again. */
  onRegenerate?: () => void;
  /** Sends an edited last question in place of the one asked. */
  onEditLast?: (text: string) => void;
  onFeedback?: (message: M, rating: FeedbackRating | null, reason?: string) => unknown;
}

/** The last question of a conversation, which Regenerate asks again. */
export function lastQuestion(messages: { role: string; content: string }[]): string {
  return messages.findLast((m) => m.role === "user")?.content ?? "";
}

function Answer<M extends TranscriptMessage>({
  message,
  last,
  actions,
  onCite,
  footer,
}: {
  message: M;
  last: boolean;
  actions: TranscriptActions<M>;
  onCite: (citation: ChatCitation) => void;
  footer?: ReactNode;
}) {
  const body = useRef<HTMLDivElement>(null);
  return (
    <div className="chat-message assistant" data-testid="message-assistant">
      <div ref={body}>
        <ChatMarkdown text={message.content} citations={message.citations} onCite={onCite} />
      </div>
      <CitationList citations={message.citations ?? []} onOpen={onCite} />
      <MessageActions
        content={message.content}
        renderedText={() => body.current?.innerText.trim() ?? message.content}
        onRegenerate={last ? actions.onRegenerate : undefined}
        feedback={message.feedback?.rating ?? null}
        onFeedback={actions.onFeedback ? (rating, reason) => actions.onFeedback!(message, rating, reason) : undefined}
      />
      {footer}
    </div>
  );
}

function Question({
  content,
  attachments = [],
  files,
  onEdit,
}: {
  content: string;
  attachments?: TranscriptMessage["attachments"];
  files?: TranscriptFiles;
  onEdit?: (text: string) => void;
}) {
  const t = useChatText();
  const fileSize = useChatFileSize();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(content);
  function send(event: FormEvent) {
    event.preventDefault();
    if (!text.trim()) return;
    setEditing(false);
    onEdit?.(text.trim());
  }
  if (editing)
    return (
      <form className="chat-message user chat-edit" onSubmit={send} aria-label={t("transcript.editForm")}>
        <textarea
          aria-label={t("transcript.yourQuestion")}
          value={text}
          onChange={(e) => setText(e.target.value)}
          rows={3}
        />
        <div className="row">
          <button type="submit" className="primary">
            {t("transcript.sendAgain")}
          </button>
          <button type="button" onClick={() => (setEditing(false), setText(content))}>
            {t("transcript.cancel")}
          </button>
        </div>
      </form>
    );
  return (
    <div className="chat-message user" data-testid="message-user">
      <div className="chat-text">{content}</div>
      {attachments.length > 0 && (
        <ul className="chat-sent-files" aria-label={t("composer.sentFiles")} data-testid="sent-files">
          {attachments.map((file) => (
            <li key={file.id}>
              {files ? <FileLink file={file} files={files} /> : file.name}{" "}
              <span className="muted">{fileSize(file.sizeBytes)}</span>
            </li>
          ))}
        </ul>
      )}
      {onEdit && (
        <button type="button" className="link chat-edit-button" onClick={() => setEditing(true)}>
          {t("transcript.edit")}
        </button>
      )}
    </div>
  );
}

export function ChatTranscript<M extends TranscriptMessage>({
  greeting,
  messages,
  pending,
  reconnecting = false,
  actions = {},
  files,
  footer,
  children,
}: {
  greeting?: string | null;
  messages: M[];
  pending: PendingTurn | null;
  /** The stream dropped and is being picked up again. */
  reconnecting?: boolean;
  actions?: TranscriptActions<M>;
  /** Where the questions' files download. */
  files?: TranscriptFiles;
  /** Shown under an assistant message (the console's trace). */
  footer?: (message: M) => ReactNode;
  /** Shown before the messages (loading and errors). */
  children?: ReactNode;
}) {
  const t = useChatText();
  const end = useRef<HTMLDivElement>(null);
  const [cited, setCited] = useState<ChatCitation | null>(null);
  const lastId = messages.at(-1)?.id;
  useEffect(() => {
    end.current?.scrollIntoView({ block: "end", behavior: "smooth" });
  }, [lastId, pending?.message, pending?.reply]);
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  const idle = pending === null || pending.stopped === true;
  return (
    <div className="chat-log" aria-live="polite" aria-busy={pending && !pending.stopped ? true : undefined}>
      {greeting ? (
        <div className="chat-message assistant chat-greeting" data-testid="greeting">
          {greeting}
        </div>
      ) : null}
      {children}
      {messages.map((m, index) =>
        m.role === "assistant" ? (
          <Answer
            key={m.id}
            message={m}
            last={idle && index === messages.length - 1}
            actions={actions}
            onCite={setCited}
            footer={footer?.(m)}
          />
        ) : (
          <Question
            key={m.id}
            content={m.content}
            attachments={m.attachments}
            files={files}
            onEdit={idle && index === lastUser ? actions.onEditLast : undefined}
          />
        ),
      )}
      {pending && (
        <>
          <div className="chat-message user" data-testid="message-user">
            <div className="chat-text">{pending.message}</div>
          </div>
          <div className="chat-message assistant" data-testid="message-streaming">
            {pending.reply && <ChatMarkdown text={pending.reply} />}
            {pending.stopped ? (
              <div className="chat-status muted" data-testid="stopped">
                {t("transcript.stopped")}
              </div>
            ) : reconnecting ? (
              <div className="chat-status muted" data-testid="reconnecting" role="status">
                {t("transcript.reconnecting")}
              </div>
            ) : (
              <div className="chat-typing muted" data-testid="typing">
                <span className="chat-typing-dots" aria-hidden />
                {pending.reply ? t("transcript.typing") : t("transcript.thinking")}
              </div>
            )}
          </div>
        </>
      )}
      <div ref={end} />
      {cited && <CitationPanel citation={cited} onClose={() => setCited(null)} />}
    </div>
  );
}
