"use client";
// The message box of a chat: Enter sends, Shift+Enter makes a new line, Esc stops the reply
// being written. While a reply streams, Send becomes Stop; a composer that cannot send (no
// credits left) says why in place of the box's hint. With `attachments`, files come in by the
// paperclip, by a drop or by a paste, each a chip with its name, size, progress and a remove
// button, and a type, size or count over the bound is refused in words; without, a file dropped
// or pasted is refused in words instead of being opened by the browser or pasted as a path.
import {
  useEffect,
  useRef,
  useState,
  type ClipboardEvent,
  type DragEvent,
  type FormEvent,
  type ReactNode,
} from "react";
import { ATTACHMENT_ACCEPT, MAX_ATTACHMENT_BYTES } from "@/schemas/runs/attachment";
import { useChatFileSize, useChatText } from "./chat-i18n";
import { type AttachmentRefusal, type ChatAttachments, type PickedAttachment } from "./use-attachments";

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
  attachments,
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
  /** Files for the next turn; without it, files are refused. */
  attachments?: ChatAttachments;
}) {
  const t = useChatText();
  const fileSize = useChatFileSize();
  const { refusedFile, setRefusedFile, dragging, setDragging, onDragOver, onDrop, onPaste } = useFileDrop(attachments);
  const waitingForFiles = !!attachments?.uploading;

  return (
    <div
      className={`chat-input${dragging ? " chat-input-dragging" : ""}`}
      onDragOver={onDragOver}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
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
      {attachments?.refusal && (
        <div className="chat-blocked" role="alert" data-testid="composer-refused-file">
          {refusalText(t, fileSize, attachments.refusal)}
        </div>
      )}
      {dragging && <div className="chat-drop-hint muted">{t("composer.dropHere")}</div>}
      {attachments && attachments.items.length > 0 && <AttachmentChips attachments={attachments} />}
      <form className="chat-input-row" onSubmit={onSend} aria-label={t("composer.form")}>
        {attachments && <AttachButton attachments={attachments} />}
        <MessageBox
          draft={draft}
          onDraft={onDraft}
          onEdit={() => setRefusedFile(false)}
          onPaste={onPaste}
          streaming={streaming}
          onStop={onStop}
          placeholder={placeholder}
        />
        {streaming && onStop ? (
          <button type="button" className="chat-stop" onClick={onStop} disabled={stopping} aria-keyshortcuts="Escape">
            {stopping ? t("composer.stopping") : t("composer.stop")}
          </button>
        ) : (
          <button
            type="submit"
            className="primary"
            disabled={busy || !!blocked || draft.trim() === "" || waitingForFiles}
          >
            {t("composer.send")}
          </button>
        )}
      </form>
      {aside && <div className="chat-input-aside muted">{aside}</div>}
    </div>
  );
}

/** The message itself: Enter sends, Shift+Enter makes a new line, Esc stops the reply being written. */
function MessageBox({
  draft,
  onDraft,
  onEdit,
  onPaste,
  streaming,
  onStop,
  placeholder,
}: {
  draft: string;
  onDraft: (text: string) => void;
  /** The box was typed in. */
  onEdit: () => void;
  onPaste: (event: ClipboardEvent) => void;
  streaming: boolean;
  onStop?: () => void;
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
    <textarea
      ref={box}
      rows={1}
      aria-label={t("composer.message")}
      value={draft}
      maxLength={MESSAGE_MAX}
      placeholder={placeholder ?? t("composer.placeholder")}
      onChange={(e) => {
        onEdit();
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
  );
}

/** Files dragged, dropped or pasted onto the composer: added to `attachments`, or refused in words. */
function useFileDrop(attachments: ChatAttachments | undefined) {
  const [refusedFile, setRefusedFile] = useState(false);
  const [dragging, setDragging] = useState(false);
  // Without this the browser would open a file dropped here in place of the chat.
  function onDragOver(event: DragEvent) {
    if (!carriesFiles(event.dataTransfer)) return;
    event.preventDefault();
    if (attachments) setDragging(true);
  }
  function onDrop(event: DragEvent) {
    setDragging(false);
    if (!carriesFiles(event.dataTransfer)) return;
    event.preventDefault();
    if (attachments) attachments.add(Array.from(event.dataTransfer.files));
    else setRefusedFile(true);
  }
  // A copied file pastes as a file only; text copied with a picture (a spreadsheet's cells) still pastes as text.
  function onPaste(event: ClipboardEvent) {
    if (!carriesFiles(event.clipboardData) || event.clipboardData.getData("text/plain") !== "") return;
    event.preventDefault();
    if (attachments) attachments.add(Array.from(event.clipboardData.files));
    else setRefusedFile(true);
  }
  return { refusedFile, setRefusedFile, dragging, setDragging, onDragOver, onDrop, onPaste };
}

/** The files picked for the next turn, each a chip with its name, size, progress and a remove button. */
function AttachmentChips({ attachments }: { attachments: ChatAttachments }) {
  const t = useChatText();
  const fileSize = useChatFileSize();
  return (
    <ul className="chat-attachments" aria-label={t("composer.attachments")} data-testid="composer-attachments">
      {attachments.items.map((item) => (
        <li key={item.key} className={`chat-attachment chat-attachment-${item.status}`} data-testid="attachment-chip">
          <span className="chat-attachment-name" title={item.name}>
            {item.name}
          </span>
          <span className="muted chat-attachment-size">{fileSize(item.size)}</span>
          {item.status === "uploading" && (
            <progress
              max={1}
              value={item.progress}
              aria-label={t("composer.uploading", { percent: Math.round(item.progress * 100) })}
            />
          )}
          {item.status === "failed" && (
            <span className="error chat-attachment-error" role="alert">
              {uploadFailureText(t, fileSize, item)}
            </span>
          )}
          <button
            type="button"
            className="link chat-attachment-remove"
            onClick={() => attachments.remove(item.key)}
            aria-label={t("composer.remove", { name: item.name })}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The paperclip: a hidden file input and the button that opens it. */
function AttachButton({ attachments }: { attachments: ChatAttachments }) {
  const t = useChatText();
  const picker = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={picker}
        type="file"
        multiple
        hidden
        accept={ATTACHMENT_ACCEPT}
        data-testid="attachment-picker"
        onChange={(event) => {
          attachments.add(Array.from(event.target.files ?? []));
          event.target.value = "";
        }}
      />
      <button
        type="button"
        className="chat-attach"
        onClick={() => picker.current?.click()}
        aria-label={t("composer.attach")}
        title={t("composer.attach")}
      >
        <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
          <path
            d="M21.4 11.1l-9.2 9.2a6 6 0 01-8.5-8.5l9.2-9.2a4 4 0 015.7 5.7l-9.2 9.2a2 2 0 01-2.8-2.8l8.5-8.5"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
            strokeLinecap="round"
            strokeLinejoin="round"
          />
        </svg>
      </button>
    </>
  );
}

/** Why a file was not uploaded, by the server's status and code, never in the server's English. */
export function uploadFailureText(
  t: ReturnType<typeof useChatText>,
  fileSize: (bytes: number) => string,
  item: Pick<PickedAttachment, "name" | "failure">,
): string {
  const failure = item.failure;
  if (!failure) return t("composer.interrupted");
  if (failure.status === 413)
    return t("composer.refusedSize", { name: item.name, limit: fileSize(MAX_ATTACHMENT_BYTES) });
  switch (failure.code) {
    case "unsupported_attachment":
      return t("composer.refusedType", { name: item.name });
    case "invalid_request":
      return t("composer.refusedFile", { name: item.name });
    case "rate_limited":
      return t("composer.tooManyUploads");
    case "unauthorized":
    case "invalid_embed_token":
      return t("composer.signedOut");
    default:
      return t("composer.notUploaded");
  }
}

function refusalText(
  t: ReturnType<typeof useChatText>,
  fileSize: (bytes: number) => string,
  refusal: AttachmentRefusal,
): string {
  switch (refusal.kind) {
    case "type":
      return t("composer.refusedType", { name: refusal.name });
    case "size":
      return t("composer.refusedSize", { name: refusal.name, limit: fileSize(MAX_ATTACHMENT_BYTES) });
    case "count":
      return t("composer.refusedCount", { max: refusal.max });
  }
}
