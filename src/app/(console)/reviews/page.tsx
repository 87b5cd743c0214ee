"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { CheckCheck } from "lucide-react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState, type ComponentProps, type Dispatch, type SetStateAction } from "react";
import type { z } from "zod";
import {
  ConfirmButton,
  ErrorAlert,
  FormField,
  LoadMore,
  notifyDone,
  PageHeader,
  Select,
  Tabs,
  useCursorList,
  useMay,
  urlStatePage,
} from "@/components/console";
import { REVIEW_KIND_LABEL, ReviewCard } from "@/components/review-card";
import { useTRPC } from "@/lib/trpc";
import { ReviewKind, ReviewStatus, type ApproveReviewsOutput } from "@/schemas/knowledge/review";

const STATUS_LABEL = { pending: "Pending", approved: "Approved", rejected: "Rejected" } as const;

export default urlStatePage(Reviews);

/** The queue: status, kind and author live in the URL (?status=…&kind=…&author=…). */
function Reviews() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [outcome, setOutcome] = useState<ApproveReviewsOutput | null>(null);
  const { status, kind, authorId, setFilters } = useReviewFilters(() => {
    setSelected(new Set());
    setOutcome(null);
  });

  const canDecide = useMay("review");
  const list = useCursorList(
    (cursor) =>
      trpc.reviews.list.queryOptions({
        status,
        limit: 20,
        cursor,
        ...(kind ? { kind } : {}),
        ...(authorId ? { authorId } : {}),
      }),
    (page) => page.reviews,
  );
  const approveMany = useMutation(
    trpc.reviews.approveMany.mutationOptions({
      onSuccess: (result) => {
        setSelected(new Set());
        setOutcome(result.failed.length ? result : null);
        if (result.approved.length)
          notifyDone(`Approved ${result.approved.length} ${result.approved.length === 1 ? "review" : "reviews"}.`);
        void queryClient.invalidateQueries({ queryKey: trpc.reviews.pathKey() });
      },
    }),
  );

  const pendingIds = status === "pending" ? list.items.map((review) => review.id) : [];
  const chosen = pendingIds.filter((id) => selected.has(id));
  const titleOf = (id: string) => list.items.find((review) => review.id === id)?.title || id;

  const queue = (
    <>
      <ReviewFilters status={status} kind={kind} authorId={authorId} setFilters={setFilters} />
      {canDecide && pendingIds.length > 0 && (
        <BulkApprove pendingIds={pendingIds} chosen={chosen} setSelected={setSelected} approveMany={approveMany} />
      )}
      <ErrorAlert error={list.error ?? approveMany.error} />
      {outcome && <BulkFailures outcome={outcome} titleOf={titleOf} />}
      {list.isLoaded && list.items.length === 0 && (
        <p className="muted">
          Nothing {status}
          {kind || authorId ? " matches these filters" : ""}.
        </p>
      )}
      <ReviewCards reviews={list.items} canDecide={canDecide} selected={selected} setSelected={setSelected} />
      <LoadMore list={list} />
    </>
  );

  return (
    <>
      <PageHeader
        title="Reviews"
        description="Writes made with API keys wait here when the organization reviews agent writes (Settings)."
      />
      <Tabs
        label="Review status"
        selected={status}
        onSelect={(id) => setFilters({ status: id })}
        tabs={ReviewStatus.options.map((value) => ({
          id: value,
          label: STATUS_LABEL[value],
          panel: value === status ? queue : null,
        }))}
      />
    </>
  );
}

/** Status, kind and author, read from the URL and set there; `onChange` runs on each change. */
function useReviewFilters(onChange: () => void) {
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const status = ReviewStatus.catch("pending").parse(search.get("status") ?? undefined);
  const kind = ReviewKind.optional()
    .catch(undefined)
    .parse(search.get("kind") ?? undefined);
  const authorId = search.get("author") ?? undefined;

  function setFilters(next: Filters) {
    const params = new URLSearchParams();
    const merged = { status, kind, author: authorId, ...next };
    if (merged.status && merged.status !== "pending") params.set("status", merged.status);
    if (merged.kind) params.set("kind", merged.kind);
    if (merged.author) params.set("author", merged.author);
    onChange();
    router.replace(params.size ? `${pathname}?${params}` : pathname);
  }
  return { status, kind, authorId, setFilters };
}

type Filters = { status?: string; kind?: string; author?: string };

/** The kind and author filters; the authors listed are those of reviews with this status. */
function ReviewFilters({
  status,
  kind,
  authorId,
  setFilters,
}: {
  status: z.infer<typeof ReviewStatus>;
  kind: z.infer<typeof ReviewKind> | undefined;
  authorId: string | undefined;
  setFilters: (next: Filters) => void;
}) {
  const trpc = useTRPC();
  const authors = useQuery(trpc.reviews.authors.queryOptions({ status }));
  return (
    <div className="review-toolbar" role="search" aria-label="Filter reviews">
      <FormField label="Kind">
        <Select
          value={kind ?? ""}
          onChange={(e) => setFilters({ kind: e.target.value || undefined })}
          options={ReviewKind.options.map((value) => ({ value: value, label: REVIEW_KIND_LABEL[value] }))}
          placeholder="All kinds"
        />
      </FormField>
      <FormField label="Author">
        <Select
          value={authorId ?? ""}
          onChange={(e) => setFilters({ author: e.target.value || undefined })}
          options={(authors.data?.authors ?? []).map((author) => ({
            value: author.authorId,
            label: `${author.name} (${author.count})`,
          }))}
          placeholder="All authors"
        />
      </FormField>
    </div>
  );
}

/** Select all shown, and approve the selected together after a confirm. */
function BulkApprove({
  pendingIds,
  chosen,
  setSelected,
  approveMany,
}: {
  pendingIds: string[];
  chosen: string[];
  setSelected: (selected: Set<string>) => void;
  approveMany: { isPending: boolean; mutate: (input: { reviewIds: string[] }) => void };
}) {
  return (
    <div className="review-bulk">
      <label>
        <input
          type="checkbox"
          checked={chosen.length === pendingIds.length}
          onChange={(e) => setSelected(e.target.checked ? new Set(pendingIds) : new Set())}
        />
        Select all shown ({pendingIds.length})
      </label>
      <ConfirmButton
        label={`Approve selected (${chosen.length})`}
        className="primary"
        destructive={false}
        disabled={chosen.length === 0 || approveMany.isPending}
        icon={<CheckCheck size={16} aria-hidden className="icon" />}
        title={`Approve ${chosen.length} ${chosen.length === 1 ? "review" : "reviews"}?`}
        description="Each is applied on its own; any that cannot be applied (for example a page that changed since) stays pending and is listed here."
        confirmLabel="Approve"
        onConfirm={() => approveMany.mutate({ reviewIds: chosen })}
      />
    </div>
  );
}

/** The reviews a bulk approval could not apply, each with why; they stay pending. */
function BulkFailures({ outcome, titleOf }: { outcome: ApproveReviewsOutput; titleOf: (id: string) => string }) {
  return (
    <ErrorAlert
      testId="bulk-failures"
      title={`${outcome.failed.length} of ${outcome.failed.length + outcome.approved.length} could not be approved and stay pending:`}
    >
      <ul>
        {outcome.failed.map((failure) => (
          <li key={failure.reviewId}>
            {titleOf(failure.reviewId)}: {failure.message}
          </li>
        ))}
      </ul>
    </ErrorAlert>
  );
}

/** The reviews shown, each a card a pending one can be selected on. */
function ReviewCards({
  reviews,
  canDecide,
  selected,
  setSelected,
}: {
  reviews: ComponentProps<typeof ReviewCard>["review"][];
  canDecide: boolean;
  selected: Set<string>;
  setSelected: Dispatch<SetStateAction<Set<string>>>;
}) {
  return (
    <>
      {reviews.map((review) => (
        <ReviewCard
          key={review.id}
          review={review}
          canDecide={canDecide}
          selected={selected.has(review.id)}
          onSelectedChange={(on) =>
            setSelected((current) => {
              const next = new Set(current);
              if (on) next.add(review.id);
              else next.delete(review.id);
              return next;
            })
          }
        />
      ))}
    </>
  );
}
