"use client";
// The message box of a chat: Enter sends, Shift+Enter makes a new line, Esc stops the reply
// being written. While a reply streams, Send becomes Stop; a composer that cannot send (no
// credits left) says why in place of the box's hint.
import { useEffect, useRef, type FormEvent, type ReactNode } from "react";
import { useChatText } from "./chat-i18n";

/** A conversation message is at most 32,000 characters on every door. */
export const MESSAGE_MAX = 32_000;

export function ChatComposer({
  draft,
  onDraft,
  onSend,
  busy,
  streaming = false,
  onStop,
  stopping = false,
  blocked,
  aside,
  placeholder,
}: {
  draft: string;
  onDraft: (text: string) => void;
  onSend: (event: FormEvent) => void;
  busy: boolean;
  /** A reply is being written: the button stops it. */
  streaming?: boolean;
  onStop?: () => void;
  stopping?: boolean;
  /** Why nothing can be sent now (shown instead of sending); the box stays editable. */
  blocked?: ReactNode;
  /** Quiet text beside the button (credits left). */
  aside?: ReactNode;
  placeholder?: string;
}) {
  const t = useChatText();
  const box = useRef<HTMLTextAreaElement>(null);
  // Text typed while the page was still loading is in the box but not in `draft`; adopt it
  // before the next render would overwrite it. `onDraft` is a state setter, so this runs once.
  useEffect(() => {
    const typed = box.current?.value ?? "";
    if (typed !== "") onDraft(typed);
  }, [onDraft]);
  return (
    <div className="chat-input">
      {/* Outside the form: what it says may hold a form of its own (asking for more credits). */}
      {blocked && (
        <div className="chat-blocked" role="status" data-testid="composer-blocked">
          {blocked}
        </div>
      )}
      <form className="chat-input-row" onSubmit={onSend} aria-label={t("composer.form")}>
        <textarea
          ref={box}
          rows={1}
          aria-label={t("composer.message")}
          value={draft}
          maxLength={MESSAGE_MAX}
          placeholder={placeholder ?? t("composer.placeholder")}
          onChange={(e) => onDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape" && streaming && onStop) {
              e.preventDefault();
              onStop();
            } else if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              if (!streaming) e.currentTarget.form?.requestSubmit();
            }
          }}
        />
        {streaming && onStop ? (
          <button type="button" className="chat-stop" onClick={onStop} disabled={stopping} aria-keyshortcuts="Escape">
            {stopping ? t("composer.stopping") : t("composer.stop")}
          </button>
        ) : (
          <button type="submit" className="primary" disabled={busy || !!blocked || draft.trim() === ""}>
            {t("composer.send")}
          </button>
        )}
      </form>
      {aside && <div className="chat-input-aside muted">{aside}</div>}
    </div>
  );
}
