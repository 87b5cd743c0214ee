// Sources: documents added to a knowledgebase as inline markdown or text, a URL fetched
// server-side, or an uploaded file. Adding one answers 202 at once: indexing runs in the
// background (src/server/jobs/indexing.ts), or the source waits for review when the
// organization reviews agent writes.
import {
  CRAWL_BOUNDS,
  SOURCE_PREVIEW,
  type Source,
  type SourceDetail,
  type SourceIdInput,
  type SourceWriteResult,
} from "@/schemas/knowledge/source";
import type { z } from "zod";
import type { Actor, AuditDoor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import { retryOnConflict, type Db } from "@/server/db";
import { AppError, invalidRequest } from "@/server/errors";
import type { SourceType } from "@/server/jobs/extract";
import { typeOfFile } from "@/server/jobs/extract";
import { enqueueIndexing, wakeIndexWorker } from "@/server/jobs/indexing";
import { nextRefreshAt, type RefreshPeriod } from "@/server/jobs/refresh-schedule";
import { hashRequest, withIdempotency, type StoredResponse } from "../support/idempotency";
import { recordEvent } from "../org/events";
import { authorOf, findKnowledgebase, refuseOverPlanCap, reviewsWritesOf } from "../support/knowledge-access";
import { toSource } from "../support/source-shape";

/** Which source: its knowledgebase and its id, as every source route names them. */
type SourceRef = z.infer<typeof SourceIdInput>;

/** The time the transaction storing a new source (its document up to 4.5 MB) gets. */
const SOURCE_WRITE_TRANSACTION = { timeout: 30_000, maxWait: 10_000 };

/** What to add: inline content, a URL or an uploaded file. */
export type NewSource =
  | {
      knowledgebaseId: string;
      name?: string;
      contentMarkdown?: string;
      contentText?: string;
      url?: string;
      refresh?: "daily" | "weekly";
      crawl?: { maxPages: number; sameHost: true; maxDepth?: number };
    }
  | { knowledgebaseId: string; name?: string; file: { name: string; contentType: string; bytes: Buffer } };

function describe(input: NewSource): {
  name: string;
  type: SourceType | "url";
  url: string | null;
  content: Buffer | null;
} {
  if ("file" in input) {
    const type = typeOfFile(input.file.name, input.file.contentType, input.file.bytes);
    if (!type) {
      throw invalidRequest([
        {
          path: "file",
          message:
            "Upload a PDF, DOCX, PPTX, XLSX, HTML, CSV, TXT or MD file (by extension or content type; an office file by its content)",
        },
      ]);
    }
    if (input.file.bytes.byteLength === 0) throw invalidRequest([{ path: "file", message: "The file is empty" }]);
    return { name: input.name ?? input.file.name, type, url: null, content: input.file.bytes };
  }
  const given = (["contentMarkdown", "contentText", "url"] as const).filter((field) => input[field] !== undefined);
  if (given.length !== 1) {
    throw invalidRequest([
      {
        path: given.length ? given.join(",") : "contentMarkdown",
        message: "Give exactly one of contentMarkdown, contentText or url",
      },
    ]);
  }
  if (input.url !== undefined) {
    const url = new URL(input.url);
    return { name: input.name ?? url.hostname + url.pathname, type: "url", url: input.url, content: null };
  }
  const markdown = input.contentMarkdown !== undefined;
  const text = (input.contentMarkdown ?? input.contentText)!;
  const firstLine = text
    .trim()
    .split("\n")[0]!
    .replace(/^#+\s*/, "")
    .slice(0, 120)
    .trim();
  return {
    name: input.name ?? (firstLine || "Untitled"),
    type: markdown ? "markdown" : "text",
    url: null,
    content: Buffer.from(text, "utf8"),
  };
}

export const createSource = guarded(
  { scope: "knowledge:write" },
  async function createSource(
    db: Db,
    actor: Actor,
    input: NewSource,
    via: AuditDoor | "upload",
  ): Promise<SourceWriteResult> {
    const document = describe(input);
    const knowledgebase = await findKnowledgebase(db, actor, input.knowledgebaseId);
    const reviewed = await reviewsWritesOf(db, actor);
    const crawl = "crawl" in input && input.crawl ? input.crawl : null;
    const refresh = "refresh" in input ? (input.refresh ?? null) : null;
    if (crawl && reviewed)
      throw invalidRequest([
        {
          path: "crawl",
          message:
            "This organization reviews agent writes: a crawl, whose pages would each wait for review, cannot be started with a key. Add the start URL alone, or crawl from the console.",
        },
      ]);
    const { authorMemberId, keyId } = authorOf(actor);
    const { row, reviewId, crawlRow } = await db.$transaction(async (tx) => {
      await refuseOverPlanCap(tx, actor, "maxSourcesPerKnowledgebase", knowledgebase.id, () =>
        tx.source.count({ where: { knowledgebaseId: knowledgebase.id } }),
      );
      const crawlRow = crawl
        ? await tx.crawl.create({
            data: {
              organizationId: actor.organizationId,
              knowledgebaseId: knowledgebase.id,
              startUrl: document.url!,
              maxPages: crawl.maxPages,
              maxDepth: crawl.maxDepth ?? CRAWL_BOUNDS.defaultDepth,
              refresh,
              createdVia: via,
            },
          })
        : null;
      const row = await tx.source.create({
        data: {
          organizationId: actor.organizationId,
          knowledgebaseId: knowledgebase.id,
          name: document.name,
          type: document.type,
          status: reviewed ? "pending_review" : "processing",
          url: document.url,
          content: document.content ? new Uint8Array(document.content) : null,
          sizeBytes: document.content?.byteLength ?? 0,
          createdVia: via,
          refresh,
          crawlId: crawlRow?.id ?? null,
        },
        // Not the document back (up to 4.5 MB): reading it into the answer took seconds under load.
        omit: { content: true, text: true },
      });
      let reviewId: string | null = null;
      if (reviewed) {
        const review = await tx.review.create({
          data: {
            organizationId: actor.organizationId,
            knowledgebaseId: knowledgebase.id,
            kind: "source",
            sourceId: row.id,
            payload: { name: row.name, type: row.type, url: row.url },
            proposedMarkdown:
              document.content && (document.type === "markdown" || document.type === "text")
                ? document.content.toString("utf8").slice(0, 200_000)
                : "",
            authorMemberId,
            keyId,
          },
        });
        reviewId = review.id;
        await recordEvent(tx, actor, {
          action: "review.create",
          target: { type: "review", id: review.id, label: row.name },
          data: { id: review.id, kind: "source", status: "pending", reviewPath: `/reviews/${review.id}` },
        });
      } else if (crawlRow) {
        // The crawl's worker fetches the start page (and what it links to) itself.
        await tx.crawlPage.create({ data: { crawlId: crawlRow.id, url: row.url!, depth: 0, sourceId: row.id } });
      } else {
        await enqueueIndexing(tx, row.id);
      }
      await tx.knowledgebase.update({
        where: { id: knowledgebase.id, organizationId: actor.organizationId },
        data: { updatedAt: new Date() },
      });
      await recordEvent(tx, actor, {
        action: "source.create",
        target: { type: "source", id: row.id, label: row.name },
        changes: {
          name: [null, row.name],
          type: [null, row.type],
          url: [null, row.url],
          ...(refresh ? { refresh: [null, refresh] } : {}),
          ...(crawlRow ? { crawl: [null, { maxPages: crawlRow.maxPages, maxDepth: crawlRow.maxDepth }] } : {}),
        },
      });
      return { row, reviewId, crawlRow };
      // Storing a 4.5 MB document takes seconds on a loaded machine: Prisma's default 5 s failed such uploads with 500.
    }, SOURCE_WRITE_TRANSACTION);
    wakeIndexWorker();
    return {
      status: reviewed ? "pending_review" : "processing",
      source: toSource(row),
      reviewPath: reviewId ? `/reviews/${reviewId}` : null,
      crawl: crawlRow && { id: crawlRow.id, maxPages: crawlRow.maxPages, maxDepth: crawlRow.maxDepth },
    };
  },
);

/** The add-source endpoint: createSource behind the Idempotency-Key guard. Both doors (JSON, multipart) call this. */
export const addSource = guarded(
  { scope: "knowledge:write" },
  async function addSource(
    db: Db,
    actor: Actor,
    input: NewSource,
    options: { idempotencyKey?: string | null; via: AuditDoor | "upload" },
  ): Promise<StoredResponse & { body: SourceWriteResult; replayed: boolean }> {
    const hash =
      "file" in input
        ? hashRequest(["file", input.knowledgebaseId, input.name ?? "", input.file.name, input.file.bytes])
        : hashRequest(["json", JSON.stringify(input, Object.keys(input).sort())]);
    const response = await withIdempotency(db, actor.organizationId, options.idempotencyKey, hash, async () => ({
      status: 202,
      body: await createSource(db, actor, input, options.via),
    }));
    return response as StoredResponse & { body: SourceWriteResult; replayed: boolean };
  },
);

async function findSource(db: Db, actor: Actor, input: SourceRef) {
  await findKnowledgebase(db, actor, input.knowledgebaseId);
  const row = await db.source.findFirst({
    where: { id: input.sourceId, knowledgebaseId: input.knowledgebaseId, organizationId: actor.organizationId },
  });
  if (!row) throw new AppError("not_found", "No source with that id in this knowledgebase.");
  return row;
}

export const getSource = guarded(
  { scope: "knowledge:read" },
  async function getSource(db: Db, actor: Actor, input: SourceRef): Promise<{ source: Source }> {
    return { source: toSource(await findSource(db, actor, input)) };
  },
);

/** The console's detail of a source: the start of its extracted text and chunks, and its indexing job. */
export const getSourceDetail = guarded(
  { scope: "knowledge:read" },
  async function getSourceDetail(db: Db, actor: Actor, input: SourceRef): Promise<SourceDetail> {
    const row = await findSource(db, actor, input);
    const [[text], chunks, chunkCount, job, refreshes] = await Promise.all([
      db.$queryRaw<{ preview: string; chars: number }[]>`
      select left(coalesce(text, ''), ${SOURCE_PREVIEW.textChars}) as preview, char_length(coalesce(text, ''))::int as chars
      from sources where id = ${row.id}::uuid and organization_id = ${actor.organizationId}::uuid`,
      db.$queryRaw<{ position: number; heading: string; text: string; chars: number }[]>`
      select position, heading, left(text, ${SOURCE_PREVIEW.chunkChars}) as text, char_length(text)::int as chars
      from source_chunks where source_id = ${row.id}::uuid and knowledgebase_id = ${input.knowledgebaseId}::uuid
      order by position limit ${SOURCE_PREVIEW.chunks}`,
      db.sourceChunk.count({ where: { sourceId: row.id, knowledgebaseId: input.knowledgebaseId } }),
      db.indexJob.findUnique({ where: { sourceId: row.id } }),
      db.sourceRefresh.findMany({
        where: { sourceId: row.id, organizationId: actor.organizationId },
        orderBy: { at: "desc" },
        take: SOURCE_PREVIEW.refreshes,
      }),
    ]);
    return {
      source: toSource(row),
      text: text?.preview ?? "",
      textChars: text?.chars ?? 0,
      chunkCount,
      chunks: chunks.map((chunk) => ({
        position: chunk.position,
        heading: chunk.heading,
        text: chunk.text,
        textChars: chunk.chars,
      })),
      job: job && {
        status: job.status,
        attempts: job.attempts,
        lastError: job.lastError,
        queuedAt: job.createdAt.toISOString(),
        startedAt: job.startedAt?.toISOString() ?? null,
        runAfter: job.runAfter.toISOString(),
        chunksWritten: job.chunksWritten,
        chunksTotal: job.chunksTotal,
      },
      refreshes: refreshes.map((refresh) => ({
        at: refresh.at.toISOString(),
        outcome: refresh.outcome as "changed" | "unchanged" | "failed",
        summary: refresh.summary,
      })),
      refreshDueAt: row.refreshDueAt?.toISOString() ?? null,
    };
  },
);

export const deleteSource = guarded(
  { scope: "knowledge:write", may: "delete" },
  async function deleteSource(db: Db, actor: Actor, input: SourceRef): Promise<void> {
    const row = await findSource(db, actor, input);
    // Deleting the row locks it, then its job and chunks (by cascade): the order the indexing worker keeps too.
    await retryOnConflict(() =>
      db.$transaction([
        db.review.updateMany({
          where: { sourceId: row.id, status: "pending" },
          data: { status: "rejected", decidedAt: new Date(), decidedBy: "source deleted" },
        }),
        db.source.delete({ where: { id: row.id, organizationId: actor.organizationId } }),
        recordEvent(db, actor, { action: "source.delete", target: { type: "source", id: row.id, label: row.name } }),
      ]),
    );
  },
);

/**
 * Changes how often a URL source is fetched again: due one period from now, or never again
 * (null). Another kind of source has no URL to fetch: invalid_request, nothing written.
 */
export const updateSource = guarded(
  { scope: "knowledge:write" },
  async function updateSource(
    db: Db,
    actor: Actor,
    input: SourceRef & { refresh: RefreshPeriod | null },
  ): Promise<{ source: Source }> {
    const row = await findSource(db, actor, input);
    if (row.url === null)
      throw invalidRequest([{ path: "refresh", message: "Only a URL source is fetched again; this one has no URL" }]);
    if (row.refresh === input.refresh) return { source: toSource(row) };
    const updated = await db.$transaction(async (tx) => {
      const source = await tx.source.update({
        where: { id: row.id, organizationId: actor.organizationId },
        data: { refresh: input.refresh, refreshDueAt: nextRefreshAt(input.refresh), refreshClaim: null },
      });
      await recordEvent(tx, actor, {
        action: "source.update",
        target: { type: "source", id: row.id, label: row.name },
        changes: { refresh: [row.refresh, input.refresh] },
      });
      return source;
    });
    return { source: toSource(updated) };
  },
);

/** Runs a failed source again from the start. */
export const retrySource = guarded(
  { scope: "knowledge:write" },
  async function retrySource(db: Db, actor: Actor, input: SourceRef): Promise<{ source: Source }> {
    const row = await findSource(db, actor, input);
    if (row.status !== "failed") {
      throw invalidRequest([
        { path: "sourceId", message: `Only a failed source can be retried; this one is ${row.status}` },
      ]);
    }
    const updated = await db.$transaction(async (tx) => {
      const source = await tx.source.update({
        where: { id: row.id, organizationId: actor.organizationId },
        data: { status: "processing", errorMessage: null },
      });
      await enqueueIndexing(tx, row.id);
      await recordEvent(tx, actor, {
        action: "source.retry",
        target: { type: "source", id: row.id, label: row.name },
        changes: { status: ["failed", "processing"] },
      });
      return source;
    });
    wakeIndexWorker();
    return { source: toSource(updated) };
  },
);
