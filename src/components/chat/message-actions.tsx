"use client";
// What one can do with an answer: copy it (as written, or as plain text), write it again (the
// last answer only; its own credit), and say whether it helped, with an optional reason.
import { Check, Copy, RefreshCw, ThumbsDown, ThumbsUp } from "lucide-react";
import { useState, type FormEvent } from "react";

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
  onFeedback?: (rating: FeedbackRating | null, reason?: string) => void;
}) {
  const [copied, setCopied] = useState<"markdown" | "text" | null>(null);
  // The rating as last chosen here; the stored one until then.
  const [rating, setRating] = useState<FeedbackRating | null>(feedback ?? null);
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState("");

  function copy(kind: "markdown" | "text") {
    void navigator.clipboard?.writeText(kind === "markdown" ? content : renderedText()).then(() => {
      setCopied(kind);
      setTimeout(() => setCopied(null), 1500);
    });
  }

  function rate(chosen: FeedbackRating) {
    const next = rating === chosen ? null : chosen;
    setRating(next);
    onFeedback?.(next);
    setAsking(next === "down");
  }

  function sendReason(event: FormEvent) {
    event.preventDefault();
    onFeedback?.("down", reason.trim() || undefined);
    setAsking(false);
    setReason("");
  }

  return (
    <div className="chat-actions">
      <div className="chat-actions-row" role="group" aria-label="Answer actions">
        <button type="button" className="icon-button" onClick={() => copy("markdown")} title="Copy (markdown)">
          {copied === "markdown" ? <Check size={16} aria-hidden /> : <Copy size={16} aria-hidden />}
          <span>{copied === "markdown" ? "Copied" : "Copy"}</span>
        </button>
        <button type="button" className="icon-button" onClick={() => copy("text")} title="Copy as plain text">
          <span>{copied === "text" ? "Copied" : "Copy text"}</span>
        </button>
        {onRegenerate && (
          <button type="button" className="icon-button" onClick={onRegenerate} title="Write this answer again (uses a credit)">
            <RefreshCw size={16} aria-hidden />
            <span>Regenerate</span>
          </button>
        )}
        {onFeedback && (
          <>
            <button type="button" className="icon-button" aria-pressed={rating === "up"} onClick={() => rate("up")} title="Helpful">
              <ThumbsUp size={16} aria-hidden />
              <span className="visually-hidden">Helpful</span>
            </button>
            <button type="button" className="icon-button" aria-pressed={rating === "down"} onClick={() => rate("down")} title="Not helpful">
              <ThumbsDown size={16} aria-hidden />
              <span className="visually-hidden">Not helpful</span>
            </button>
          </>
        )}
      </div>
      {asking && (
        <form className="chat-feedback" onSubmit={sendReason} aria-label="What was wrong with this answer?">
          <input
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            maxLength={1000}
            placeholder="What was wrong? (optional)"
            aria-label="What was wrong with this answer? (optional)"
          />
          <button type="submit">Send</button>
          <button type="button" className="link" onClick={() => setAsking(false)}>
            Skip
          </button>
        </form>
      )}
    </div>
  );
}
