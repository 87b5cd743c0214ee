// Editing a page's content: a patch (agents and the API; it waits for review when the
// organization asks for it) and the console editor's save of the whole markdown.
import { randomUUID } from "node:crypto";
import type { PageWriteResult, PatchPageInput } from "@/schemas/knowledge/page";
import { channelOf, type Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { changesBetween, recordEvent } from "../org/events";
import { authorOf, reviewsWritesOf } from "../support/knowledge-access";
import { checkVersion, type VersionMatch } from "../support/preconditions";
import { resolveLinks } from "./page-links";
import { applyPatch } from "./page-patches";
import {
  applyPageContent,
  findPage,
  heldForReview,
  pageEvent,
  writeResult,
  type PageRow,
  type Tx,
} from "./pages-shared";

/**
 * The answer to a write that would leave the page as it is: no revision, no event, the page's
 * latest revision named (an editor saving an untouched page would otherwise fill the history
 * with empty "No changes." entries).
 */
async function unchangedResult(tx: Tx, page: PageRow, markdown: string): Promise<PageWriteResult> {
  const latest = await tx.pageRevision.findFirst({
    where: { pageId: page.id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { id: true },
  });
  return writeResult(page, latest?.id ?? randomUUID(), await resolveLinks(tx, page.knowledgebaseId, markdown), null);
}

export const patchPage = guarded(
  { scope: "knowledge:write" },
  async function patchPage(
    db: Db,
    actor: Actor,
    input: PatchPageInput,
    precondition: { ifMatch?: VersionMatch } = {},
  ): Promise<PageWriteResult> {
    await findPage(db, actor.organizationId, input);
    const reviewed = await reviewsWritesOf(db, actor);
    const { authorMemberId, keyId } = authorOf(actor);
    return db.$transaction(async (tx) => {
      // Lock the page so concurrent patches apply one after the other, each to the other's result.
      await tx.$executeRaw`select id from pages where id = ${input.pageId}::uuid for update`;
      const page = await tx.page.findFirstOrThrow({
        where: { id: input.pageId, organizationId: actor.organizationId },
      });
      checkVersion(precondition.ifMatch, page.updatedAt, "page");
      const markdown = applyPatch(page.markdown, input.patch);
      const title = input.title ?? page.title;
      if (reviewed)
        return heldForReview(tx, actor, page, {
          kind: "page_edit",
          payload: { patch: input.patch, ...(input.title !== undefined ? { title: input.title } : {}) },
          baseMarkdown: page.markdown,
          markdown,
          label: page.title,
        });
      if (title === page.title && markdown === page.markdown) return unchangedResult(tx, page, markdown);
      const applied = await applyPageContent(
        tx,
        page,
        { title, markdown },
        { authorMemberId, keyId, via: channelOf(actor) },
      );
      await recordEvent(
        tx,
        actor,
        pageEvent("page.update", applied.page, markdown, {
          ...changesBetween(page, { title }, ["title"]),
          revisionId: [null, applied.revisionId],
        }),
      );
      return writeResult(
        applied.page,
        applied.revisionId,
        await resolveLinks(tx, page.knowledgebaseId, markdown),
        null,
      );
    });
  },
);

/** Replaces the whole markdown (the console editor); a person's write, applied at once. */
export const savePage = guarded(
  { scope: "knowledge:write" },
  async function savePage(
    db: Db,
    actor: Actor,
    input: { knowledgebaseId: string; pageId: string; title?: string; markdown: string },
  ): Promise<PageWriteResult> {
    if (actor.kind === "key") throw new AppError("invalid_request", "API keys edit pages with PATCH operations.");
    await findPage(db, actor.organizationId, input);
    const { authorMemberId, keyId } = authorOf(actor);
    return db.$transaction(async (tx) => {
      // Compared with the page as locked, so a concurrent write in between is not mistaken for "unchanged".
      await tx.$executeRaw`select id from pages where id = ${input.pageId}::uuid for update`;
      const page = await tx.page.findFirstOrThrow({
        where: { id: input.pageId, organizationId: actor.organizationId },
      });
      if ((input.title ?? page.title) === page.title && input.markdown === page.markdown)
        return unchangedResult(tx, page, page.markdown);
      const applied = await applyPageContent(
        tx,
        page,
        { title: input.title ?? page.title, markdown: input.markdown },
        { authorMemberId, keyId, via: channelOf(actor) },
      );
      await recordEvent(
        tx,
        actor,
        pageEvent("page.update", applied.page, input.markdown, {
          ...changesBetween(page, input, ["title"]),
          revisionId: [null, applied.revisionId],
        }),
      );
      return writeResult(
        applied.page,
        applied.revisionId,
        await resolveLinks(tx, page.knowledgebaseId, input.markdown),
        null,
      );
    });
  },
);
