"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { errorMessage, useTRPC } from "@/lib/trpc";
import type { Review } from "@/schemas/review";
import { MarkdownDiff } from "./markdown-diff";

const KIND_LABEL: Record<Review["kind"], string> = { page_create: "New page", page_edit: "Page edit", source: "New source" };

export function ReviewCard({ review, canDecide }: { review: Review; canDecide: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.reviews.pathKey() });
  const approve = useMutation(trpc.reviews.approve.mutationOptions({ onSuccess: () => void refresh() }));
  const reject = useMutation(trpc.reviews.reject.mutationOptions({ onSuccess: () => void refresh() }));
  const failure = approve.error ?? reject.error;
  return (
    <article className="panel" data-testid="review" aria-label={`Review of ${review.title}`}>
      <h2 style={{ marginTop: 0 }}>
        {KIND_LABEL[review.kind]}: {review.title}
      </h2>
      <p className="muted">
        In <a href={`/knowledge/${review.knowledgebaseId}`}>{review.knowledgebaseName}</a> · by {review.author ?? "an organization key"} ·{" "}
        {new Date(review.createdAt).toLocaleString()} · <span className="badge">{review.status}</span>
        {review.decidedBy && ` by ${review.decidedBy}`}
      </p>
      {review.kind === "source" && !review.proposedMarkdown ? (
        <p className="muted">A document to index (binary or fetched from its URL).</p>
      ) : (
        <MarkdownDiff before={review.baseMarkdown} after={review.proposedMarkdown} />
      )}
      {failure && (
        <p role="alert" className="error">
          {errorMessage(failure)}
        </p>
      )}
      {review.status === "pending" &&
        (canDecide ? (
          <div className="row">
            <button className="primary" type="button" disabled={approve.isPending} onClick={() => approve.mutate({ reviewId: review.id })}>
              Approve
            </button>
            <button type="button" disabled={reject.isPending} onClick={() => reject.mutate({ reviewId: review.id })}>
              Reject
            </button>
          </div>
        ) : (
          <p className="muted">Only admins can approve or reject.</p>
        ))}
    </article>
  );
}
