"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Check, TriangleAlert, X } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { Button, ConfirmButton, ConfirmDialog, ErrorAlert, FormField, notifyDone, When } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { MAX_REVIEW_REASON_CHARS } from "@/schemas/limits";
import type { Review } from "@/schemas/knowledge/review";
import { TextDiff } from "./text-diff";
import "./review-card.css";

export const REVIEW_KIND_LABEL: Record<Review["kind"], string> = {
  page_create: "New page",
  page_edit: "Page edit",
  source: "New source",
};

/** Where the reviewed thing lives in the console: the page selected in its knowledgebase, or the source. */
function targetHref(review: Review): string {
  const base = `/knowledge/${review.knowledgebaseId}`;
  if (review.pageId) return `${base}?page=${review.pageId}`;
  if (review.sourceId) return `${base}?source=${review.sourceId}`;
  return base;
}

interface ReviewCardProps {
  review: Review;
  canDecide: boolean;
  /** Present in the queue, where reviews can be approved together. */
  selected?: boolean;
  onSelectedChange?: (selected: boolean) => void;
}

export function ReviewCard(props: ReviewCardProps) {
  const { review, canDecide } = props;
  const pending = review.status === "pending";
  return (
    <article className="panel review-card" data-testid="review" aria-label={`Review of ${review.title}`}>
      <ReviewHead {...props} />
      {review.pageChanged && (
        <p className="notice review-stale" role="note">
          <TriangleAlert size={16} aria-hidden className="icon" />
          <span>
            The page changed since this was proposed. The diff shows the page as it was then; approving applies the edit
            to the page as it is now and fails if its anchors no longer match.{" "}
            <Link href={targetHref(review)}>Open the page</Link>
          </span>
        </p>
      )}
      {review.status === "rejected" && review.rejectionReason && (
        <p className="review-reason">
          <strong>Reason:</strong> {review.rejectionReason}
        </p>
      )}
      <ReviewText review={review} />
      {pending && <ReviewDecision review={review} canDecide={canDecide} />}
    </article>
  );
}

/** The kind, title, knowledgebase, author and date, its decision once decided, and the box that selects it in the queue. */
function ReviewHead({ review, canDecide, selected, onSelectedChange }: ReviewCardProps) {
  const pending = review.status === "pending";
  return (
    <header className="review-card-head">
      {onSelectedChange && pending && canDecide && (
        <input
          type="checkbox"
          checked={!!selected}
          onChange={(e) => onSelectedChange(e.target.checked)}
          aria-label={`Select ${review.title} for approval`}
        />
      )}
      <div className="review-card-title">
        <h2>
          <span className="badge">{REVIEW_KIND_LABEL[review.kind]}</span>{" "}
          <Link href={`/reviews/${review.id}`}>{review.title || "(untitled)"}</Link>
        </h2>
        <p className="muted">
          In <Link href={targetHref(review)}>{review.knowledgebaseName}</Link> · by{" "}
          {review.author ?? "an organization key"} · <When at={review.createdAt} />
          {!pending && (
            <>
              {" "}
              · <span className={`badge ${review.status === "rejected" ? "revoked" : ""}`}>{review.status}</span>
              {review.decidedBy && ` by ${review.decidedBy}`}
            </>
          )}
        </p>
      </div>
    </header>
  );
}

/** The change proposed, as a diff by words or by lines; a document to index has no text to show. */
function ReviewText({ review }: { review: Review }) {
  const [by, setBy] = useState<"words" | "lines">("words");
  const showsText = !(review.kind === "source" && !review.proposedMarkdown);
  return showsText ? (
    <>
      <div className="row review-diff-mode" role="group" aria-label="Compare by">
        <Button
          aria-pressed={by === "words"}
          variant={by === "words" ? "primary" : "secondary"}
          onClick={() => setBy("words")}
        >
          Words
        </Button>
        <Button
          aria-pressed={by === "lines"}
          variant={by === "lines" ? "primary" : "secondary"}
          onClick={() => setBy("lines")}
        >
          Lines
        </Button>
      </div>
      <TextDiff
        by={by}
        before={review.baseMarkdown}
        after={review.proposedMarkdown}
        label={`Changes proposed in ${review.title}`}
      />
    </>
  ) : (
    <p className="muted">A document to index (binary or fetched from its URL).</p>
  );
}

/** Approve (after a confirm) or reject (with an optional reason), for admins; a pending review says who may. */
function ReviewDecision({ review, canDecide }: { review: Review; canDecide: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState("");
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.reviews.pathKey() });
  const approve = useMutation(
    trpc.reviews.approve.mutationOptions({
      onSuccess: () => {
        notifyDone(`Approved: ${review.title || REVIEW_KIND_LABEL[review.kind]}.`);
        void refresh();
      },
    }),
  );
  const reject = useMutation(
    trpc.reviews.reject.mutationOptions({
      onSuccess: () => {
        notifyDone(`Rejected: ${review.title || REVIEW_KIND_LABEL[review.kind]}.`);
        void refresh();
      },
    }),
  );
  if (!canDecide) return <p className="muted">Only admins can approve or reject.</p>;
  return (
    <>
      <ErrorAlert error={approve.error ?? reject.error} />
      <div className="row review-actions">
        <ConfirmButton
          label="Approve"
          className="primary"
          destructive={false}
          icon={<Check size={16} aria-hidden className="icon" />}
          title={`Approve “${review.title || REVIEW_KIND_LABEL[review.kind]}”?`}
          description={
            review.kind === "source"
              ? "The document is indexed and agents find it on their next run."
              : "The change goes live on the page at once."
          }
          disabled={approve.isPending}
          onConfirm={() => approve.mutate({ reviewId: review.id })}
        />
        <Button variant="danger" disabled={reject.isPending} onClick={() => setRejecting(true)}>
          <X size={16} aria-hidden className="icon" />
          Reject
        </Button>
        <ConfirmDialog
          open={rejecting}
          title={`Reject “${review.title || REVIEW_KIND_LABEL[review.kind]}”?`}
          confirmLabel="Reject"
          onClose={() => setRejecting(false)}
          onConfirm={() => reject.mutate({ reviewId: review.id, reason: reason.trim() || undefined })}
        >
          <p>
            {review.kind === "page_edit"
              ? "The page stays as it is."
              : `The proposed ${review.kind === "source" ? "document" : "page"} is discarded.`}
          </p>
          <FormField label="Reason (optional, shown with the review)">
            <textarea
              rows={3}
              maxLength={MAX_REVIEW_REASON_CHARS}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
            />
          </FormField>
        </ConfirmDialog>
      </div>
    </>
  );
}
