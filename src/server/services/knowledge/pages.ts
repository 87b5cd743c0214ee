// Pages: durable markdown notes agents read and edit. Every applied write makes a revision and
// re-reads the page's links; agent writes (any API key) wait for review when the organization
// asks for it. Patches are all-or-nothing: each anchor must occur exactly once in the text the
// previous operation left, else nothing changes.
import { isUuid } from "@/schemas/common";
import { randomUUID } from "node:crypto";
import type {
  CreatePageInput,
  Page,
  PageLinks,
  PageWriteResult,
  PatchOperation,
  PatchPageInput,
} from "@/schemas/knowledge/page";
import { MAX_PAGE_MARKDOWN_CHARS } from "@/schemas/limits";
import { MAX_PATCH_OPERATIONS } from "@/schemas/knowledge/page";
import { channelOf, type Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError, invalidRequest } from "@/server/errors";
import { changesBetween, recordEvent, type EventInput } from "../org/events";
import { authorOf, findKnowledgebase, lockFor, reviewsWritesOf } from "../support/knowledge-access";
import { checkVersion, type VersionMatch } from "../support/preconditions";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

// ---------------------------------------------------------------------------------------------
// Patches

/**
 * Where `needle` first occurs in `text` from `from` on (-1 if nowhere) and how many times,
 * overlapping occurrences included. Knuth-Morris-Pratt, linear in both lengths: anchors and pages
 * are untrusted, and repeated indexOf over a repetitive page took minutes.
 */
function occurrences(text: string, needle: string, from = 0): { first: number; count: number } {
  if (needle.length === 0) return { first: from, count: text.length - from + 1 };
  // border[i]: the length of the longest proper prefix of needle[0..i] that is also its suffix.
  const border = new Int32Array(needle.length);
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle.charCodeAt(i) !== needle.charCodeAt(k)) k = border[k - 1]!;
    if (needle.charCodeAt(i) === needle.charCodeAt(k)) k++;
    border[i] = k;
  }
  let first = -1;
  let count = 0;
  for (let i = from, k = 0; i < text.length; i++) {
    while (k > 0 && text.charCodeAt(i) !== needle.charCodeAt(k)) k = border[k - 1]!;
    if (text.charCodeAt(i) === needle.charCodeAt(k)) k++;
    if (k === needle.length) {
      if (first === -1) first = i - k + 1;
      count++;
      k = border[k - 1]!;
    }
  }
  return { first, count };
}

function quote(anchor: string): string {
  const short = anchor.length > 80 ? `${anchor.slice(0, 77)}...` : anchor;
  return JSON.stringify(short);
}

function once(
  text: string,
  anchor: string,
  index: number,
  op: string,
  field: string,
  from = 0,
  where = "the current markdown",
): number {
  const { first, count } = occurrences(text, anchor, from);
  if (count === 1) return first;
  const message =
    count === 0
      ? `Operation ${index} (${op}): ${field} ${quote(anchor)} does not appear in ${where}; it must appear exactly once. Nothing was changed.`
      : `Operation ${index} (${op}): ${field} ${quote(anchor)} appears ${count} times in ${where}; it must appear exactly once (quote more surrounding text). Nothing was changed.`;
  throw new AppError("invalid_request", message, {
    problems: [
      { path: `patch.${index}.${field}`, message: count === 0 ? "Anchor not found" : `Anchor appears ${count} times` },
    ],
    operationIndex: index,
    anchor,
  });
}

/** Applies the operations in order; throws invalid_request (naming the operation and anchor) and changes nothing on any failure. */
export function applyPatch(markdown: string, patch: readonly PatchOperation[]): string {
  if (patch.length > MAX_PATCH_OPERATIONS) {
    throw invalidRequest([{ path: "patch", message: `At most ${MAX_PATCH_OPERATIONS} operations per request` }]);
  }
  let text = markdown;
  patch.forEach((operation, index) => {
    switch (operation.op) {
      case "replace": {
        const at = once(text, operation.oldString, index, operation.op, "oldString");
        text = text.slice(0, at) + operation.newString + text.slice(at + operation.oldString.length);
        break;
      }
      case "insert_before": {
        const at = once(text, operation.anchor, index, operation.op, "anchor");
        text = text.slice(0, at) + operation.text + text.slice(at);
        break;
      }
      case "insert_after": {
        const at = once(text, operation.anchor, index, operation.op, "anchor") + operation.anchor.length;
        text = text.slice(0, at) + operation.text + text.slice(at);
        break;
      }
      case "prepend":
        text = operation.text + text;
        break;
      case "append":
        text = text + operation.text;
        break;
      case "replace_range": {
        const start = once(text, operation.from, index, operation.op, "from");
        const after = start + operation.from.length;
        const end =
          once(text, operation.to, index, operation.op, "to", after, "the markdown after `from`") + operation.to.length;
        text = text.slice(0, start) + operation.text + text.slice(end);
        break;
      }
    }
    // Checked after each operation, so a patch cannot build a page far over the maximum first.
    if (text.length > MAX_PAGE_MARKDOWN_CHARS) {
      throw invalidRequest([
        {
          path: "markdown",
          message: `Operation ${index} makes the page ${text.length} characters long; a page holds at most ${MAX_PAGE_MARKDOWN_CHARS}. Nothing was changed.`,
        },
      ]);
    }
  });
  return text;
}

// ---------------------------------------------------------------------------------------------
// Links

const WHITESPACE = /\s/;

/** Where the target of `(page:…)` or `(source:…)` starting at `at` ends (its `)`), or where it stops being one. */
function targetEnd(markdown: string, at: number): { end: number; closed: boolean } {
  let end = at;
  while (end < markdown.length && markdown[end] !== ")" && !WHITESPACE.test(markdown[end]!)) end++;
  return { end, closed: end > at && markdown[end] === ")" };
}

/**
 * The `[text](page:<id>)` and `[text](source:<id>)` links of page markdown, each once, in order
 * (the text holds no `]`; the id no `)` nor whitespace). One pass: page markdown is untrusted, and
 * the regular expression this replaces was quadratic over a run of `[`.
 */
export function parseLinks(markdown: string): { kind: "page" | "source"; id: string }[] {
  const seen = new Set<string>();
  const links: { kind: "page" | "source"; id: string }[] = [];
  let opened = false;
  // A target that stopped short stops every `](page:` before that point short too: skip them.
  let failedUntil = -1;
  for (let i = 0; i < markdown.length; i++) {
    const char = markdown[i];
    if (char === "[") opened = true;
    if (char !== "]") continue;
    const kind =
      !opened || i < failedUntil
        ? undefined
        : markdown.startsWith("(page:", i + 1)
          ? "page"
          : markdown.startsWith("(source:", i + 1)
            ? "source"
            : undefined;
    opened = false;
    if (!kind) continue;
    const start = i + kind.length + 3;
    const { end, closed } = targetEnd(markdown, start);
    if (!closed) {
      failedUntil = end;
      continue;
    }
    const id = markdown.slice(start, end).toLowerCase();
    i = end;
    if (seen.has(`${kind}:${id}`)) continue;
    seen.add(`${kind}:${id}`);
    links.push({ kind, id });
  }
  return links;
}

/** Resolves the links of `markdown` against the knowledgebase's pages and sources. */
export async function resolveLinks(db: Db | Tx, knowledgebaseId: string, markdown: string): Promise<PageLinks> {
  const links = parseLinks(markdown);
  const pageIds = links.filter((l) => l.kind === "page" && isUuid(l.id)).map((l) => l.id);
  const sourceIds = links.filter((l) => l.kind === "source" && isUuid(l.id)).map((l) => l.id);
  const [pages, sources] = await Promise.all([
    pageIds.length
      ? db.page.findMany({ where: { knowledgebaseId, id: { in: pageIds } }, select: { id: true, title: true } })
      : [],
    sourceIds.length
      ? db.source.findMany({ where: { knowledgebaseId, id: { in: sourceIds } }, select: { id: true, name: true } })
      : [],
  ]);
  const found = new Set([...pages.map((p) => `page:${p.id}`), ...sources.map((s) => `source:${s.id}`)]);
  return {
    pages: pageIds.flatMap((id) => pages.filter((p) => p.id === id)),
    sources: sourceIds.flatMap((id) => sources.filter((s) => s.id === id)),
    unresolved: links.filter((l) => !found.has(`${l.kind}:${l.id}`)),
  };
}

async function saveLinks(tx: Tx, pageId: string, markdown: string): Promise<void> {
  await tx.pageLink.deleteMany({ where: { pageId } });
  const links = parseLinks(markdown);
  if (links.length)
    await tx.pageLink.createMany({
      data: links.map((link) => ({ pageId, kind: link.kind, targetId: link.id })),
      skipDuplicates: true,
    });
}

// ---------------------------------------------------------------------------------------------
// Writes

type PageRow = { id: string; knowledgebaseId: string; title: string; updatedAt: Date };

function writeResult(page: PageRow, revisionId: string, links: PageLinks, reviewId: string | null): PageWriteResult {
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
function pageEvent(
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

function reviewEvent(review: { id: string; kind: string }, label: string): EventInput {
  return {
    action: "review.create",
    target: { type: "review", id: review.id, label },
    data: { id: review.id, kind: review.kind, status: "pending", reviewPath: `/reviews/${review.id}` },
  };
}

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
        const revisionId = randomUUID();
        const review = await tx.review.create({
          data: {
            organizationId: actor.organizationId,
            knowledgebaseId: knowledgebase.id,
            kind: "page_create",
            pageId: page.id,
            revisionId,
            payload: { title: input.title, markdown },
            baseMarkdown: "",
            proposedMarkdown: markdown,
            authorMemberId,
            keyId,
          },
        });
        await tx.knowledgebase.update({
          where: { id: knowledgebase.id, organizationId: actor.organizationId },
          data: { updatedAt: new Date() },
        });
        await recordEvent(tx, actor, reviewEvent(review, input.title));
        return writeResult(page, revisionId, await resolveLinks(tx, knowledgebase.id, markdown), review.id);
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

async function findPage(db: Db | Tx, actor: Actor, input: { knowledgebaseId: string; pageId: string }) {
  await findKnowledgebase(db, actor, input.knowledgebaseId);
  const page = await db.page.findFirst({
    where: { id: input.pageId, knowledgebaseId: input.knowledgebaseId, organizationId: actor.organizationId },
  });
  if (!page) throw new AppError("not_found", "No page with that id in this knowledgebase.");
  return page;
}

export const patchPage = guarded(
  { scope: "knowledge:write" },
  async function patchPage(
    db: Db,
    actor: Actor,
    input: PatchPageInput,
    precondition: { ifMatch?: VersionMatch } = {},
  ): Promise<PageWriteResult> {
    await findPage(db, actor, input);
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
      if (reviewed) {
        const revisionId = randomUUID();
        const review = await tx.review.create({
          data: {
            organizationId: actor.organizationId,
            knowledgebaseId: page.knowledgebaseId,
            kind: "page_edit",
            pageId: page.id,
            revisionId,
            payload: { patch: input.patch, ...(input.title !== undefined ? { title: input.title } : {}) },
            baseMarkdown: page.markdown,
            proposedMarkdown: markdown,
            authorMemberId,
            keyId,
          },
        });
        await recordEvent(tx, actor, reviewEvent(review, page.title));
        return writeResult(page, revisionId, await resolveLinks(tx, page.knowledgebaseId, markdown), review.id);
      }
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
    await findPage(db, actor, input);
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

export const getPage = guarded(
  { scope: "knowledge:read" },
  async function getPage(db: Db, actor: Actor, input: { knowledgebaseId: string; pageId: string }): Promise<Page> {
    const page = await findPage(db, actor, input);
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
  async function movePage(
    db: Db,
    actor: Actor,
    input: { knowledgebaseId: string; pageId: string; parentPageId: string | null },
  ) {
    const before = await findPage(db, actor, input);
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
  async function deletePage(db: Db, actor: Actor, input: { knowledgebaseId: string; pageId: string }): Promise<void> {
    const page = await findPage(db, actor, input);
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
  async function listRevisions(db: Db, actor: Actor, input: { knowledgebaseId: string; pageId: string }) {
    const page = await findPage(db, actor, input);
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
