"use client";
// What one can do with an answer: copy it (as written, or as plain text), write it again (the
// last answer only; its own credit), and say whether it helped, with an optional reason.
import { Check, Copy, RefreshCw, ThumbsDown, ThumbsUp } from "lucide-react";
import { useRef, useState, type FormEvent } from "react";
import { useChatText } from "./chat-i18n";
import { MAX_FEEDBACK_REASON_CHARS } from "@/schemas/limits";

export type FeedbackRating = "up" | "down";

export function MessageActions({
  content,
  renderedText,
  onRegenerate,
  feedback,
  onFeedback,
}: {
  content: string;
  /** The answer as shown, without markdown's marks (the rendered message's text). */
  renderedText: () => string;
  onRegenerate?: () => void;
  feedback?: FeedbackRating | null;
  /** Sends the feedback; when it answers a promise, the next is sent once it settles. */
  onFeedback?: (rating: FeedbackRating | null, reason?: string) => unknown;
}) {
  const t = useChatText();
  const [copied, setCopied] = useState<"markdown" | "text" | null>(null);
  // The rating as last chosen here; the stored one until then.
  const [rating, setRating] = useState<FeedbackRating | null>(feedback ?? null);
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState("");
  // What was last sent and not stored: shown with a way to send it again, so that a rating never
  // looks saved when it was not.
  const [unsaved, setUnsaved] = useState<{ rating: FeedbackRating | null; reason?: string } | null>(null);
  // A rating and the reason sent right after it go out in that order: sent side by side, the
  // rating could be stored last and the reason lost.
  const sending = useRef<Promise<unknown>>(Promise.resolve());

  function send(chosen: FeedbackRating | null, why?: string) {
    setUnsaved(null);
    sending.current = sending.current
      .then(() => onFeedback?.(chosen, why))
      // Sent in order, the last to settle is the newest choice: it alone says what is stored.
      .then(
        () => setUnsaved(null),
        () => setUnsaved({ rating: chosen, reason: why }),
      );
  }

  function copy(kind: "markdown" | "text") {
    void navigator.clipboard?.writeText(kind === "markdown" ? content : renderedText()).then(() => {
      setCopied(kind);
      setTimeout(() => setCopied(null), 1500);
    });
  }

  function rate(chosen: FeedbackRating) {
    const next = rating === chosen ? null : chosen;
    setRating(next);
    send(next);
    setAsking(next === "down");
  }

  function sendReason(event: FormEvent) {
    event.preventDefault();
    send("down", reason.trim() || undefined);
    setAsking(false);
    setReason("");
  }

  return (
    <div className="chat-actions">
      <div className="chat-actions-row" role="group" aria-label={t("actions.group")}>
        <button type="button" className="icon-button" onClick={() => copy("markdown")} title={t("actions.copyTitle")}>
          {copied === "markdown" ? <Check size={16} aria-hidden /> : <Copy size={16} aria-hidden />}
          <span>{copied === "markdown" ? t("actions.copied") : t("actions.copy")}</span>
        </button>
        <button type="button" className="icon-button" onClick={() => copy("text")} title={t("actions.copyTextTitle")}>
          <span>{copied === "text" ? t("actions.copied") : t("actions.copyText")}</span>
        </button>
        {onRegenerate && (
          <button type="button" className="icon-button" onClick={onRegenerate} title={t("actions.regenerateTitle")}>
            <RefreshCw size={16} aria-hidden />
            <span>{t("actions.regenerate")}</span>
          </button>
        )}
        {onFeedback && (
          <>
            <button
              type="button"
              className="icon-button"
              aria-pressed={rating === "up"}
              onClick={() => rate("up")}
              title={t("actions.helpful")}
            >
              <ThumbsUp size={16} aria-hidden />
              <span className="visually-hidden">{t("actions.helpful")}</span>
            </button>
            <button
              type="button"
              className="icon-button"
              aria-pressed={rating === "down"}
              onClick={() => rate("down")}
              title={t("actions.notHelpful")}
            >
              <ThumbsDown size={16} aria-hidden />
              <span className="visually-hidden">{t("actions.notHelpful")}</span>
            </button>
          </>
        )}
      </div>
      {unsaved && (
        <p className="chat-feedback-failed" role="alert">
          {t("actions.feedbackFailed")}{" "}
          <button type="button" className="link" onClick={() => send(unsaved.rating, unsaved.reason)}>
            {t("actions.tryAgain")}
          </button>
        </p>
      )}
      {asking && (
        <form className="chat-feedback" onSubmit={sendReason} aria-label={t("actions.reasonForm")}>
          <input
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            maxLength={MAX_FEEDBACK_REASON_CHARS}
            placeholder={t("actions.reasonPlaceholder")}
            aria-label={t("actions.reasonLabel")}
          />
          <button type="submit">{t("actions.send")}</button>
          <button type="button" className="link" onClick={() => setAsking(false)}>
            {t("actions.skip")}
          </button>
        </form>
      )}
    </div>
  );
}
