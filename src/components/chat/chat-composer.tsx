"use client";
// The message box of a chat: Enter sends, Shift+Enter makes a new line.
import { useEffect, useRef, type FormEvent } from "react";

/** A conversation message is at most 32,000 characters on every door. */
export const MESSAGE_MAX = 32_000;

export function ChatComposer({
  draft,
  onDraft,
  onSend,
  busy,
  placeholder = "Ask something…",
}: {
  draft: string;
  onDraft: (text: string) => void;
  onSend: (event: FormEvent) => void;
  busy: boolean;
  placeholder?: string;
}) {
  const box = useRef<HTMLTextAreaElement>(null);
  // Text typed while the page was still loading is in the box but not in `draft`; adopt it
  // before the next render would overwrite it. `onDraft` is a state setter, so this runs once.
  useEffect(() => {
    const typed = box.current?.value ?? "";
    if (typed !== "") onDraft(typed);
  }, [onDraft]);
  return (
    <form className="row chat-input" onSubmit={onSend} aria-label="Send a message">
      <textarea
        ref={box}
        rows={2}
        aria-label="Message"
        value={draft}
        maxLength={MESSAGE_MAX}
        placeholder={placeholder}
        onChange={(e) => onDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey) {
            e.preventDefault();
            e.currentTarget.form?.requestSubmit();
          }
        }}
      />
      <button type="submit" className="primary" disabled={busy || draft.trim() === ""}>
        {busy ? "Answering…" : "Send"}
      </button>
    </form>
  );
}
