"use client";
// The passage an answer cites, beside the conversation (a sheet from the bottom on a phone): its
// page or source title, the section it comes from, and the text itself. Esc or Close dismisses it.
import { useEffect, useRef } from "react";
import { useChatText } from "./chat-i18n";
import { ChatMarkdown, type ChatCitation } from "./chat-markdown";

export function CitationPanel({ citation, onClose }: { citation: ChatCitation; onClose: () => void }) {
  const t = useChatText();
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    close.current?.focus();
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [citation, onClose]);
  return (
    <aside
      className="chat-citation-panel"
      role="dialog"
      aria-modal="false"
      aria-labelledby="citation-title"
      data-testid="citation-panel"
    >
      <header>
        <div>
          <p className="muted chat-citation-kind">
            {citation.kind === "page"
              ? t("citations.sourcePage", { n: citation.n })
              : citation.kind === "attachment"
                ? t("citations.sourceAttachment", { n: citation.n })
                : t("citations.sourceDocument", { n: citation.n })}
          </p>
          <h2 id="citation-title">{citation.title}</h2>
          {citation.heading && <p className="muted">{citation.heading}</p>}
        </div>
        <button ref={close} type="button" onClick={onClose} aria-label={t("citations.closeLabel")}>
          {t("citations.close")}
        </button>
      </header>
      <blockquote className="chat-citation-text">
        <ChatMarkdown text={citation.text} />
      </blockquote>
    </aside>
  );
}

/** The numbered sources under an answer. */
export function CitationList({
  citations,
  onOpen,
}: {
  citations: ChatCitation[];
  onOpen: (citation: ChatCitation) => void;
}) {
  const t = useChatText();
  if (citations.length === 0) return null;
  return (
    <ol className="chat-citations" aria-label={t("citations.sources")}>
      {citations.map((citation) => (
        <li key={citation.n}>
          <button type="button" onClick={() => onOpen(citation)}>
            <span className="chat-cite" aria-hidden>
              {citation.n}
            </span>
            <span>
              {citation.title}
              {citation.heading ? <span className="muted"> › {citation.heading}</span> : null}
            </span>
          </button>
        </li>
      ))}
    </ol>
  );
}
