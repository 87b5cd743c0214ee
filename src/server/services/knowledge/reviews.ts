// The review queue: agent writes (any API key) wait here when the organization reviews them.
// A person approves (an admin in the console, or the operator with the CLI) or rejects each.
// Approving a page edit applies its patch to the page as it is now: if an anchor no longer
// matches, the approval fails with the reason and the page stays untouched.
import type { ApproveReviewsOutput, ListReviewsInput, RejectReviewInput, Review } from "@/schemas/knowledge/review";
import type { PatchOperation } from "@/schemas/knowledge/page";
import { actorLabel, type Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import type { Prisma } from "@/generated/prisma/client";
import { AppError, isAppError } from "@/server/errors";
import { recordEvent, type EventInput } from "../org/events";
import { enqueueIndexing, wakeIndexWorker } from "@/server/jobs/indexing";
import { applyPatch } from "./page-patches";
import { applyPageContent } from "./pages-shared";
import { oldestFirst } from "../support/pagination";

type ReviewRow = Awaited<ReturnType<Db["review"]["findFirstOrThrow"]>>;

async function toReviews(db: Db, rows: ReviewRow[]): Promise<Review[]> {
  const pageIds = rows.map((r) => r.pageId).filter((id): id is string => id !== null);
  const sourceIds = rows.map((r) => r.sourceId).filter((id): id is string => id !== null);
  const memberIds = rows.map((r) => r.authorMemberId).filter((id): id is string => id !== null);
  const keyIds = rows.map((r) => r.keyId).filter((id): id is string => id !== null);
  // The reviews were read for one organization; what they name is read for it too.
  const organizationId = { in: [...new Set(rows.map((r) => r.organizationId))] };
  const [pages, sources, members, keys, knowledgebases] = await Promise.all([
    db.page.findMany({
      where: { organizationId, id: { in: pageIds } },
      select: { id: true, title: true, markdown: true },
    }),
    db.source.findMany({ where: { organizationId, id: { in: sourceIds } }, select: { id: true, name: true } }),
    db.member.findMany({
      where: { organizationId, id: { in: memberIds } },
      select: { id: true, user: { select: { email: true } } },
    }),
    db.apiKey.findMany({ where: { organizationId, id: { in: keyIds } }, select: { id: true, name: true } }),
    db.knowledgebase.findMany({
      where: { organizationId, id: { in: rows.map((r) => r.knowledgebaseId) } },
      select: { id: true, name: true },
    }),
  ]);
  return rows.map((row) => {
    const payload = (row.payload ?? {}) as { title?: string; name?: string };
    const title =
      (row.kind === "source"
        ? sources.find((s) => s.id === row.sourceId)?.name
        : pages.find((p) => p.id === row.pageId)?.title) ??
      payload.title ??
      payload.name ??
      "";
    const author =
      members.find((m) => m.id === row.authorMemberId)?.user.email ??
      keys.find((k) => k.id === row.keyId)?.name ??
      null;
    const page = row.kind === "source" ? undefined : pages.find((p) => p.id === row.pageId);
    return {
      id: row.id,
      knowledgebaseId: row.knowledgebaseId,
      knowledgebaseName: knowledgebases.find((k) => k.id === row.knowledgebaseId)?.name ?? "",
      kind: row.kind as Review["kind"],
      status: row.status as Review["status"],
      pageId: row.pageId,
      sourceId: row.sourceId,
      title,
      baseMarkdown: row.baseMarkdown,
      proposedMarkdown: row.proposedMarkdown,
      author,
      authorId: row.authorMemberId ?? row.keyId,
      pageChanged: row.status === "pending" && page !== undefined && page.markdown !== row.baseMarkdown,
      createdAt: row.createdAt.toISOString(),
      decidedAt: row.decidedAt?.toISOString() ?? null,
      decidedBy: row.decidedBy,
      rejectionReason: row.rejectionReason,
    };
  });
}

/** Approval and rejection are for people (console admins, the CLI's operator): an organization key has no role to check, so keys are refused outright. */
function checkDecider(actor: Actor): void {
  if (actor.kind === "key")
    throw new AppError(
      "forbidden_role",
      "Reviews are approved or rejected in the console or with the admin CLI, not with an API key.",
    );
}

/** A review's author filter: the member who wrote it, or the organization key that wrote it unattributed. */
function authoredBy(authorId: string | undefined) {
  if (!authorId) return {};
  return { OR: [{ authorMemberId: authorId }, { authorMemberId: null, keyId: authorId }] };
}

/** Oldest first, in cursor pages like every list; optionally one kind and one author. */
export const listReviews = guarded(
  { may: "read" },
  async function listReviews(
    db: Db,
    actor: Actor,
    input: Partial<ListReviewsInput> = {},
  ): Promise<{
    reviews: Review[];
    nextCursor: string | null;
  }> {
    const limit = input.limit ?? 50;
    const { items, nextCursor } = await oldestFirst({ limit, cursor: input.cursor }, (after, window) =>
      db.review.findMany({
        where: {
          organizationId: actor.organizationId,
          status: input.status ?? "pending",
          ...(input.kind ? { kind: input.kind } : {}),
          ...authoredBy(input.authorId),
          ...after,
        },
        ...window,
      }),
    );
    return { reviews: await toReviews(db, items), nextCursor };
  },
);

/** Who wrote the reviews of one status, with how many each: the choices of the author filter. */
export const listReviewAuthors = guarded(
  { may: "read" },
  async function listReviewAuthors(
    db: Db,
    actor: Actor,
    input: { status?: Review["status"] } = {},
  ): Promise<{
    authors: { authorId: string; name: string; count: number }[];
  }> {
    const groups = await db.review.groupBy({
      by: ["authorMemberId", "keyId"],
      where: { organizationId: actor.organizationId, status: input.status ?? "pending" },
      _count: { _all: true },
    });
    const counts = new Map<string, number>();
    for (const group of groups) {
      const authorId = group.authorMemberId ?? group.keyId;
      if (authorId) counts.set(authorId, (counts.get(authorId) ?? 0) + group._count._all);
    }
    const ids = [...counts.keys()];
    const [members, keys] = await Promise.all([
      db.member.findMany({
        where: { organizationId: actor.organizationId, id: { in: ids } },
        select: { id: true, user: { select: { email: true } } },
      }),
      db.apiKey.findMany({
        where: { organizationId: actor.organizationId, id: { in: ids } },
        select: { id: true, name: true },
      }),
    ]);
    const names = new Map<string, string>([
      ...members.map((m) => [m.id, m.user.email] as const),
      ...keys.map((k) => [k.id, k.name] as const),
    ]);
    const authors = ids.map((authorId) => ({
      authorId,
      name: names.get(authorId) ?? "a deleted author",
      count: counts.get(authorId)!,
    }));
    return { authors: authors.sort((a, b) => a.name.localeCompare(b.name)) };
  },
);

async function findReview(db: Db, actor: Actor, reviewId: string): Promise<ReviewRow> {
  const row = await db.review.findFirst({ where: { id: reviewId, organizationId: actor.organizationId } });
  if (!row) throw new AppError("not_found", "No review with that id in this organization.");
  return row;
}

export const getReview = guarded(
  { may: "read" },
  async function getReview(db: Db, actor: Actor, input: { reviewId: string }): Promise<{ review: Review }> {
    return { review: (await toReviews(db, [await findReview(db, actor, input.reviewId)]))[0]! };
  },
);

function decisionEvent(action: string, row: ReviewRow, status: "approved" | "rejected"): EventInput {
  return {
    action,
    target: { type: "review", id: row.id, label: row.kind },
    changes: { status: ["pending", status] },
    data: { id: row.id, kind: row.kind, status, reviewPath: `/reviews/${row.id}` },
  };
}

/** Locks the review's row for its decision; one decided meanwhile is refused. */
async function lockPending(tx: Prisma.TransactionClient, row: ReviewRow): Promise<void> {
  const locked = await tx.$queryRaw<
    { status: string }[]
  >`select status from reviews where id = ${row.id}::uuid for update`;
  if (locked[0]?.status !== "pending") throw notPending(row);
}

function notPending(row: ReviewRow): AppError {
  return new AppError(
    "conflict",
    `This review was already ${row.status}${row.decidedBy ? ` (${row.decidedBy})` : ""}.`,
  );
}

export const approveReview = guarded(
  { may: "review" },
  async function approveReview(db: Db, actor: Actor, input: { reviewId: string }): Promise<{ review: Review }> {
    checkDecider(actor);
    const row = await findReview(db, actor, input.reviewId);
    await db.$transaction(async (tx) => {
      await lockPending(tx, row);
      const author = {
        authorMemberId: row.authorMemberId,
        keyId: row.keyId,
        via: "review",
        revisionId: row.revisionId ?? undefined,
      };
      if (row.kind === "page_create" || row.kind === "page_edit") {
        const pages = row.pageId
          ? await tx.$queryRaw<{ id: string }[]>`select id from pages where id = ${row.pageId}::uuid for update`
          : [];
        if (pages.length === 0)
          throw new AppError("conflict", "The page of this review no longer exists; reject the review.");
        const page = await tx.page.findFirstOrThrow({ where: { id: row.pageId!, organizationId: row.organizationId } });
        const payload = row.payload as { title?: string; markdown?: string; patch?: PatchOperation[] };
        let markdown: string;
        if (row.kind === "page_create") {
          markdown = payload.markdown ?? "";
        } else {
          try {
            markdown = applyPatch(page.markdown, payload.patch ?? []);
          } catch (error) {
            if (!isAppError(error)) throw error;
            throw new AppError(
              "conflict",
              `The page changed since this edit was proposed, so it cannot be applied: ${error.message.replace(/ Nothing was changed\.$/, "")} The page was left untouched; reject this review and ask for a new edit.`,
            );
          }
        }
        // A create keeps the page's current title (it may have been renamed while waiting); an edit may set one.
        const title = row.kind === "page_edit" ? (payload.title ?? page.title) : page.title;
        await applyPageContent(tx, page, { title, markdown }, author);
      } else if (row.kind === "source") {
        const updated = await tx.source.updateMany({
          where: { id: row.sourceId ?? undefined, organizationId: actor.organizationId, status: "pending_review" },
          data: { status: "processing" },
        });
        if (updated.count !== 1)
          throw new AppError("conflict", "The source of this review no longer waits for review; reject the review.");
        await enqueueIndexing(tx, row.sourceId!);
      }
      await tx.review.update({
        where: { id: row.id, organizationId: actor.organizationId },
        data: { status: "approved", decidedAt: new Date(), decidedBy: actorLabel(actor) },
      });
      await recordEvent(tx, actor, decisionEvent("review.approve", row, "approved"));
    });
    wakeIndexWorker();
    return getReview(db, actor, input);
  },
);

/**
 * Approves each review on its own, as approveReview does one: one that fails (changed page,
 * already decided, not found) is reported with its code and leaves the others approved.
 */
export const approveReviews = guarded(
  { may: "review" },
  async function approveReviews(db: Db, actor: Actor, input: { reviewIds: string[] }): Promise<ApproveReviewsOutput> {
    checkDecider(actor);
    const approved: Review[] = [];
    const failed: ApproveReviewsOutput["failed"] = [];
    for (const reviewId of [...new Set(input.reviewIds)]) {
      try {
        approved.push((await approveReview(db, actor, { reviewId })).review);
      } catch (error) {
        if (!isAppError(error)) throw error;
        failed.push({ reviewId, code: error.code, message: error.message });
      }
    }
    return { approved, failed };
  },
);

export const rejectReview = guarded(
  { may: "review" },
  async function rejectReview(
    db: Db,
    actor: Actor,
    input: Pick<RejectReviewInput, "reviewId"> & { reason?: string },
  ): Promise<{ review: Review }> {
    checkDecider(actor);
    const row = await findReview(db, actor, input.reviewId);
    await db.$transaction(async (tx) => {
      await lockPending(tx, row);
      if (row.kind === "page_create" && row.pageId) {
        // The placeholder page goes, unless someone has since written to it or put pages under it.
        const revisions = await tx.pageRevision.count({ where: { pageId: row.pageId } });
        const children = await tx.page.count({ where: { parentPageId: row.pageId } });
        if (revisions === 0 && children === 0)
          await tx.page.deleteMany({ where: { id: row.pageId, organizationId: actor.organizationId } });
      } else if (row.kind === "source" && row.sourceId) {
        await tx.source.deleteMany({
          where: { id: row.sourceId, organizationId: actor.organizationId, status: "pending_review" },
        });
      }
      await tx.review.update({
        where: { id: row.id, organizationId: actor.organizationId },
        data: {
          status: "rejected",
          decidedAt: new Date(),
          decidedBy: actorLabel(actor),
          rejectionReason: input.reason?.trim() || null,
        },
      });
      await recordEvent(tx, actor, decisionEvent("review.reject", row, "rejected"));
    });
    return getReview(db, actor, input);
  },
);
