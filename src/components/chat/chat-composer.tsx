"use client";
// The message box of a chat: Enter sends, Shift+Enter makes a new line, Esc stops the reply
// being written. While a reply streams, Send becomes Stop; a composer that cannot send (no
// credits left) says why in place of the box's hint. No app takes files yet: there is no attach
// control, and a file dropped or pasted on the box is refused in words instead of being opened
// by the browser or pasted as a path.
import {
  useEffect,
  useRef,
  useState,
  type ClipboardEvent,
  type DragEvent,
  type FormEvent,
  type ReactNode,
} from "react";
import { useChatText } from "./chat-i18n";

/** A conversation message is at most 32,000 characters on every door. */
export const MESSAGE_MAX = 32_000;

function carriesFiles(transfer: DataTransfer | null): boolean {
  return !!transfer && (transfer.files.length > 0 || Array.from(transfer.types).includes("Files"));
}

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
  const [refusedFile, setRefusedFile] = useState(false);
  // Text typed while the page was still loading is in the box but not in `draft`; adopt it
  // before the next render would overwrite it. `onDraft` is a state setter, so this runs once.
  useEffect(() => {
    const typed = box.current?.value ?? "";
    if (typed !== "") onDraft(typed);
  }, [onDraft]);

  // Without this the browser would open a file dropped here in place of the chat.
  function onDragOver(event: DragEvent) {
    if (carriesFiles(event.dataTransfer)) event.preventDefault();
  }
  function onDrop(event: DragEvent) {
    if (!carriesFiles(event.dataTransfer)) return;
    event.preventDefault();
    setRefusedFile(true);
  }
  // A copied file pastes as a file only; text copied with a picture (a spreadsheet's cells) still pastes as text.
  function onPaste(event: ClipboardEvent) {
    if (!carriesFiles(event.clipboardData) || event.clipboardData.getData("text/plain") !== "") return;
    event.preventDefault();
    setRefusedFile(true);
  }

  return (
    <div className="chat-input" onDragOver={onDragOver} onDrop={onDrop}>
      {/* Outside the form: what it says may hold a form of its own (asking for more credits). */}
      {blocked && (
        <div className="chat-blocked" role="status" data-testid="composer-blocked">
          {blocked}
        </div>
      )}
      {refusedFile && (
        <div className="chat-blocked" role="alert" data-testid="composer-no-files">
          {t("composer.noFiles")}
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
          onChange={(e) => {
            setRefusedFile(false);
            onDraft(e.target.value);
          }}
          onPaste={onPaste}
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
