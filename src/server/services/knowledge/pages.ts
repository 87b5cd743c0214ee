// Pages: durable markdown notes agents read and edit. Every applied write makes a revision and
// re-reads the page's links; agent writes (any API key) wait for review when the organization
// asks for it. Creating, reading, moving and deleting a page are here; editing its content is
// page-edits.ts, with patches in page-patches.ts and links in page-links.ts.
import { isUuid } from "@/schemas/common";
import type { CreatePageInput, MovePageInput, Page, PageIdInput, PageWriteResult } from "@/schemas/knowledge/page";
import { channelOf, type Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError, invalidRequest } from "@/server/errors";
import { changesBetween, recordEvent } from "../org/events";
import { authorOf, findKnowledgebase, lockFor, reviewsWritesOf } from "../support/knowledge-access";
import { resolveLinks } from "./page-links";
import { applyPageContent, findPage, heldForReview, pageEvent, writeResult, type Tx } from "./pages-shared";

async function checkParent(
  db: Db | Tx,
  knowledgebase: { id: string; organizationId: string },
  parentPageId: string | null | undefined,
): Promise<void> {
  if (!parentPageId) return;
  const parent = await db.page.findFirst({
    where: { id: parentPageId, organizationId: knowledgebase.organizationId, knowledgebaseId: knowledgebase.id },
    select: { id: true },
  });
  if (!parent) throw new AppError("not_found", "No parent page with that id in this knowledgebase.");
}

export const createPage = guarded(
  { scope: "knowledge:write" },
  async function createPage(db: Db, actor: Actor, input: CreatePageInput): Promise<PageWriteResult> {
    const knowledgebase = await findKnowledgebase(db, actor, input.knowledgebaseId);
    await checkParent(db, knowledgebase, input.parentPageId);
    const reviewed = await reviewsWritesOf(db, actor);
    const { authorMemberId, keyId } = authorOf(actor);
    const markdown = input.markdown ?? "";
    return db.$transaction(async (tx) => {
      const page = await tx.page.create({
        data: {
          organizationId: actor.organizationId,
          knowledgebaseId: knowledgebase.id,
          parentPageId: input.parentPageId ?? null,
          title: input.title,
          templateKey: input.templateKey ?? "",
          hook: input.hook ?? "",
          isFolder: input.isFolder ?? false,
          markdown: "",
          authorMemberId,
        },
      });
      if (reviewed) {
        // The page exists, empty, until a person approves the content.
        await tx.knowledgebase.update({
          where: { id: knowledgebase.id, organizationId: actor.organizationId },
          data: { updatedAt: new Date() },
        });
        return heldForReview(tx, actor, page, {
          kind: "page_create",
          payload: { title: input.title, markdown },
          baseMarkdown: "",
          markdown,
          label: input.title,
        });
      }
      const applied = await applyPageContent(
        tx,
        page,
        { title: input.title, markdown },
        { authorMemberId, keyId, via: channelOf(actor) },
      );
      await recordEvent(
        tx,
        actor,
        pageEvent("page.create", applied.page, markdown, {
          title: [null, input.title],
          revisionId: [null, applied.revisionId],
        }),
      );
      return writeResult(applied.page, applied.revisionId, await resolveLinks(tx, knowledgebase.id, markdown), null);
    });
  },
);

export const getPage = guarded(
  { scope: "knowledge:read" },
  async function getPage(db: Db, actor: Actor, input: PageIdInput): Promise<Page> {
    const page = await findPage(db, actor.organizationId, input);
    const links = await db.pageLink.findMany({ where: { pageId: page.id } });
    const [related, files, referencing] = await Promise.all([
      db.page.findMany({
        where: {
          organizationId: page.organizationId,
          knowledgebaseId: page.knowledgebaseId,
          id: { in: links.filter((l) => l.kind === "page" && isUuid(l.targetId)).map((l) => l.targetId) },
        },
        select: { id: true, title: true },
        orderBy: [{ title: "asc" }, { id: "asc" }],
      }),
      db.source.findMany({
        where: {
          organizationId: page.organizationId,
          knowledgebaseId: page.knowledgebaseId,
          id: { in: links.filter((l) => l.kind === "source" && isUuid(l.targetId)).map((l) => l.targetId) },
        },
        select: { name: true },
        orderBy: [{ name: "asc" }],
      }),
      db.page.findMany({
        where: {
          organizationId: page.organizationId,
          knowledgebaseId: page.knowledgebaseId,
          links: { some: { kind: "page", targetId: page.id } },
        },
        select: { id: true, title: true },
        orderBy: [{ title: "asc" }, { id: "asc" }],
      }),
    ]);
    return {
      id: page.id,
      knowledgebaseId: page.knowledgebaseId,
      title: page.title,
      templateKey: page.templateKey,
      parentPageId: page.parentPageId,
      isFolder: page.isFolder,
      hook: page.hook,
      createdAt: page.createdAt.toISOString(),
      updatedAt: page.updatedAt.toISOString(),
      markdown: page.markdown,
      attachedFiles: files.map((file) => file.name),
      relatedPages: related,
      referencedBy: referencing,
    };
  },
);

export const movePage = guarded(
  { scope: "knowledge:write" },
  async function movePage(db: Db, actor: Actor, input: MovePageInput) {
    const before = await findPage(db, actor.organizationId, input);
    const moved = await db.$transaction(async (tx) => {
      await lockFor(tx, `page-tree:${input.knowledgebaseId}`);
      await checkParent(tx, { id: input.knowledgebaseId, organizationId: actor.organizationId }, input.parentPageId);
      if (input.parentPageId) {
        // Walk up from the new parent: meeting the page itself means a cycle.
        const pages = await tx.page.findMany({
          where: { knowledgebaseId: input.knowledgebaseId },
          select: { id: true, parentPageId: true },
        });
        const parentOf = new Map(pages.map((p) => [p.id, p.parentPageId]));
        for (let at: string | null | undefined = input.parentPageId; at; at = parentOf.get(at)) {
          if (at === input.pageId) {
            throw invalidRequest([
              { path: "parentPageId", message: "A page cannot move inside itself or its own sub-pages" },
            ]);
          }
        }
      }
      await recordEvent(
        tx,
        actor,
        pageEvent("page.move", before, before.markdown, changesBetween(before, input, ["parentPageId"])),
      );
      return tx.page.update({
        where: { id: input.pageId, organizationId: actor.organizationId },
        data: { parentPageId: input.parentPageId },
      });
    });
    return {
      page: {
        id: moved.id,
        knowledgebaseId: moved.knowledgebaseId,
        title: moved.title,
        parentPageId: moved.parentPageId,
        updatedAt: moved.updatedAt.toISOString(),
      },
    };
  },
);

export const deletePage = guarded(
  { scope: "knowledge:write", may: "delete" },
  async function deletePage(db: Db, actor: Actor, input: PageIdInput): Promise<void> {
    const page = await findPage(db, actor.organizationId, input);
    await db.$transaction(async (tx) => {
      await lockFor(tx, `page-tree:${input.knowledgebaseId}`);
      const children = await tx.page.count({ where: { parentPageId: page.id } });
      if (children > 0) {
        throw invalidRequest([
          { path: "pageId", message: `The folder holds ${children} page(s); move or delete them first` },
        ]);
      }
      await tx.review.updateMany({
        where: { pageId: page.id, status: "pending" },
        data: { status: "rejected", decidedAt: new Date(), decidedBy: "page deleted" },
      });
      await tx.page.delete({ where: { id: page.id, organizationId: actor.organizationId } });
      await recordEvent(tx, actor, pageEvent("page.delete", page, null));
    });
  },
);

export const listRevisions = guarded(
  { scope: "knowledge:read" },
  async function listRevisions(db: Db, actor: Actor, input: PageIdInput) {
    const page = await findPage(db, actor.organizationId, input);
    const rows = await db.pageRevision.findMany({
      where: { pageId: page.id },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: 100,
    });
    const memberIds = [...new Set(rows.map((r) => r.authorMemberId).filter((id): id is string => id !== null))];
    const members = memberIds.length
      ? await db.member.findMany({
          where: { organizationId: actor.organizationId, id: { in: memberIds } },
          select: { id: true, user: { select: { email: true } } },
        })
      : [];
    const emailOf = new Map(members.map((m) => [m.id, m.user.email]));
    return {
      revisions: rows.map((row) => ({
        id: row.id,
        title: row.title,
        markdown: row.markdown,
        authorEmail: row.authorMemberId ? (emailOf.get(row.authorMemberId) ?? null) : null,
        via: row.via,
        createdAt: row.createdAt.toISOString(),
      })),
    };
  },
);
