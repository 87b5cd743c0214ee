// Refreshed URL sources (`refresh: daily|weekly`): each due source is claimed by one worker in
// any number of processes (FOR UPDATE SKIP LOCKED; the claim moves refresh_due_at on by a lease
// and writes a token, so a source whose process died comes due again, and only the holder of the
// token writes), fetched again in the extraction child with If-None-Match / If-Modified-Since, and:
// - 304, or the same text: nothing is re-indexed; the check is recorded as `unchanged`;
// - new text: its chunks replace the old in one transaction (searches see one or the other),
//   recorded as `changed` with lines added and removed;
// - a failure: the last good text and chunks stay; `refreshError` says why, recorded as `failed`.
// Every check is a row of source_refreshes, which the source's page shows.
import { randomUUID } from "node:crypto";
import { retryOnConflict, type Db } from "@/server/db";
import { logger } from "@/server/observability/log";
import { chunkMarkdown } from "./chunking";
import { extractPageInChildProcess, ExtractionUnavailable } from "./extraction-process";
import type { IndexingOptions } from "./indexing-options";
import { fetchedNow, nextRefreshAt } from "./refresh-schedule";
import { lockSource, replaceChunks } from "./source-writes";

/** How long a claim holds a source before another worker may take it over. */
const REFRESH_LEASE_MS = 5 * 60_000;
/** Sources claimed per round. */
const REFRESH_BATCH = 4;
/** Lines of added text quoted in a change's summary. */
const QUOTED_LINES = 3;

interface ClaimedRefresh {
  id: string;
  organizationId: string;
  knowledgebaseId: string;
  url: string;
  refresh: string;
  etag: string | null;
  lastModified: string | null;
  claim: string;
}

async function claimDueSources(db: Db, count: number): Promise<ClaimedRefresh[]> {
  const token = randomUUID();
  return db.$queryRaw<ClaimedRefresh[]>`
    update sources s set refresh_claim = ${token}::uuid,
      refresh_due_at = now() + (${REFRESH_LEASE_MS} * interval '1 millisecond')
    where s.id in (
      select id from sources
      where refresh_due_at <= now() and refresh is not null and url is not null and status = 'ready'
      order by refresh_due_at
      for update skip locked
      limit ${count}
    )
    returning s.id, s.organization_id as "organizationId", s.knowledgebase_id as "knowledgebaseId", s.url,
      s.refresh, s.etag, s.last_modified as "lastModified", s.refresh_claim as claim`;
}

/** Lines added and removed between two texts (as sets of lines: linear, order ignored), and the first added ones. */
export function changeSummary(before: string, after: string): string {
  const old = new Set(
    before
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean),
  );
  const now = new Set(
    after
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean),
  );
  const added = [...now].filter((line) => !old.has(line));
  const removed = [...old].filter((line) => !now.has(line)).length;
  const quoted = added.slice(0, QUOTED_LINES).map((line) => `+ ${line.slice(0, 200)}`);
  return [`${added.length} line${added.length === 1 ? "" : "s"} added, ${removed} removed`, ...quoted].join("\n");
}

/** Records a check and releases the claim; false when the claim was taken over (nothing written). */
async function recordCheck(
  tx: Pick<Db, "$executeRaw" | "source" | "sourceRefresh">,
  source: ClaimedRefresh,
  outcome: "changed" | "unchanged" | "failed",
  summary: string,
  data: Record<string, unknown>,
): Promise<boolean> {
  const { count } = await tx.source.updateMany({
    where: { id: source.id, organizationId: source.organizationId, refreshClaim: source.claim },
    data: { ...data, refreshClaim: null },
  });
  if (count !== 1) return false;
  await tx.sourceRefresh.create({
    data: { organizationId: source.organizationId, sourceId: source.id, outcome, summary },
  });
  return true;
}

async function refreshSource(db: Db, source: ClaimedRefresh, options: IndexingOptions): Promise<void> {
  const answer = await extractPageInChildProcess(
    {
      kind: "page",
      url: source.url,
      limits: options.fetchLimits,
      validators: { etag: source.etag, lastModified: source.lastModified },
      links: false,
    },
    options.extraction,
  ).catch((error: unknown) => {
    if (error instanceof ExtractionUnavailable) return { ok: false as const, message: error.message };
    throw error;
  });
  if (!answer.ok || (!answer.notModified && !answer.document)) {
    const reason = answer.ok ? "The URL is now a sitemap, not a document." : answer.message;
    await db.$transaction((tx) =>
      recordCheck(tx, source, "failed", reason, { refreshError: reason, refreshDueAt: nextRefreshAt(source.refresh) }),
    );
    logger().warn({ event: "refresh_failed", sourceId: source.id, reason }, "A URL source's refresh failed");
    return;
  }
  if (answer.notModified) {
    await db.$transaction((tx) =>
      recordCheck(tx, source, "unchanged", "Not modified (the server answered 304).", {
        checkedAt: new Date(),
        refreshDueAt: nextRefreshAt(source.refresh),
        refreshError: null,
      }),
    );
    return;
  }
  const document = answer.document!;
  const fetched = fetchedNow(source.refresh, answer.validators);
  await retryOnConflict(() =>
    db.$transaction(
      async (tx) => {
        if (!(await lockSource(tx, source.id))) return;
        // Unscoped: the row just locked; the claim named it, and its organization is checked on write.
        const current = await tx.source.findUnique({ where: { id: source.id }, select: { text: true } });
        if (current?.text === document.text) {
          await recordCheck(tx, source, "unchanged", "Fetched again; the text is the same.", fetched);
          return;
        }
        const summary = changeSummary(current?.text ?? "", document.text);
        if (!(await recordCheck(tx, source, "changed", summary, fetched))) return;
        await replaceChunks(tx, source, document.chunks.length ? document.chunks : chunkMarkdown(document.text));
        await tx.source.update({
          where: { id: source.id, organizationId: source.organizationId },
          data: { text: document.text, type: document.type, sizeBytes: document.sizeBytes },
        });
      },
      { timeout: 60_000, maxWait: 10_000 },
    ),
  );
}

/** Refreshes the sources due now (a batch); how many were claimed. */
export async function runRefreshOnce(db: Db, options: IndexingOptions = {}): Promise<number> {
  const due = await claimDueSources(db, REFRESH_BATCH);
  await Promise.all(
    due.map((source) =>
      refreshSource(db, source, options).catch((error: unknown) => {
        // The claim's lease runs out and the source comes due again.
        logger().error({ err: error, sourceId: source.id }, "A URL source's refresh could not be recorded");
      }),
    ),
  );
  return due.length;
}
