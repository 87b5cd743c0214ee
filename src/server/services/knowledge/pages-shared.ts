// What the page services share: the answer and the event of a write, a write held for review,
// the write of new content with its revision and links (reviews.ts applies an approved change
// through it too), and the lookup a page operation starts from.
import { randomUUID } from "node:crypto";
import type { Prisma } from "@/generated/prisma/client";
import type { PageIdInput, PageLinks, PageWriteResult } from "@/schemas/knowledge/page";
import type { Actor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { recordEvent, type EventInput } from "../org/events";
import { authorOf, knowledgebaseOf } from "../support/knowledge-access";
import { resolveLinks, saveLinks } from "./page-links";

export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

export type PageRow = { id: string; knowledgebaseId: string; title: string; updatedAt: Date };

export function writeResult(
  page: PageRow,
  revisionId: string,
  links: PageLinks,
  reviewId: string | null,
): PageWriteResult {
  return {
    status: reviewId ? "pending_review" : "applied",
    page: {
      id: page.id,
      knowledgebaseId: page.knowledgebaseId,
      title: page.title,
      updatedAt: page.updatedAt.toISOString(),
    },
    revisionId,
    reviewPath: reviewId ? `/reviews/${reviewId}` : null,
    links,
  };
}

/** Writes new content to a page with its revision and links, inside `tx`. */
export async function applyPageContent(
  tx: Tx,
  page: { id: string; organizationId: string },
  content: { title: string; markdown: string },
  author: { authorMemberId: string | null; keyId: string | null; via: string; revisionId?: string },
) {
  const updated = await tx.page.update({
    where: { id: page.id, organizationId: page.organizationId },
    data: { title: content.title, markdown: content.markdown },
  });
  const revision = await tx.pageRevision.create({
    data: {
      id: author.revisionId ?? randomUUID(),
      pageId: page.id,
      title: content.title,
      markdown: content.markdown,
      authorMemberId: author.authorMemberId,
      keyId: author.keyId,
      via: author.via,
    },
  });
  await saveLinks(tx, page.id, content.markdown);
  await tx.knowledgebase.update({
    where: { id: updated.knowledgebaseId, organizationId: page.organizationId },
    data: { updatedAt: new Date() },
  });
  return { page: updated, revisionId: revision.id };
}

/** The event of a page write; `data` carries the markdown (sent as a reference when too large). */
export function pageEvent(
  action: string,
  page: { id: string; knowledgebaseId: string; title: string },
  markdown: string | null,
  changes: Record<string, [unknown, unknown]> = {},
): EventInput {
  return {
    action,
    target: { type: "page", id: page.id, label: page.title },
    changes,
    data: {
      id: page.id,
      knowledgebaseId: page.knowledgebaseId,
      title: page.title,
      markdown,
      deleted: markdown === null,
    },
  };
}

export function reviewEvent(review: { id: string; kind: string }, label: string): EventInput {
  return {
    action: "review.create",
    target: { type: "review", id: review.id, label },
    data: { id: review.id, kind: review.kind, status: "pending", reviewPath: `/reviews/${review.id}` },
  };
}

/**
 * A write held for a person's review: the review of `markdown` proposed over `baseMarkdown`, and
 * its event. The page keeps its content until the review is approved (reviews.ts).
 */
export async function heldForReview(
  tx: Tx,
  actor: Actor,
  page: PageRow,
  proposal: {
    kind: "page_create" | "page_edit";
    payload: Prisma.InputJsonObject;
    baseMarkdown: string;
    markdown: string;
    /** The review's name in the audit log: the page's title. */
    label: string;
  },
): Promise<PageWriteResult> {
  const revisionId = randomUUID();
  const review = await tx.review.create({
    data: {
      organizationId: actor.organizationId,
      knowledgebaseId: page.knowledgebaseId,
      kind: proposal.kind,
      pageId: page.id,
      revisionId,
      payload: proposal.payload,
      baseMarkdown: proposal.baseMarkdown,
      proposedMarkdown: proposal.markdown,
      ...authorOf(actor),
    },
  });
  await recordEvent(tx, actor, reviewEvent(review, proposal.label));
  return writeResult(page, revisionId, await resolveLinks(tx, page.knowledgebaseId, proposal.markdown), review.id);
}

/** The page of the organization's knowledgebase; the guarded service calling it has checked the caller. */
export async function findPage(db: Db | Tx, organizationId: string, input: PageIdInput) {
  await knowledgebaseOf(db, organizationId, input.knowledgebaseId);
  const page = await db.page.findFirst({
    where: { id: input.pageId, knowledgebaseId: input.knowledgebaseId, organizationId },
  });
  if (!page) throw new AppError("not_found", "No page with that id in this knowledgebase.");
  return page;
}
