// Background indexing: durable jobs in PostgreSQL (index_jobs), claimed with
// FOR UPDATE SKIP LOCKED so no two workers, in any number of processes, hold one job at a time.
// A claim carries a lease and a token; a job whose lease ran out (its process died) is claimed
// again, and a worker whose lease was taken over cannot write its result (the token no longer
// matches); the holder renews its lease while it works. A job left behind by a crashed server is
// claimed again, at most 3 attempts in all. PDF, CSV, HTML and fetched documents, and inline
// text over INLINE_CHUNKING_MAX_BYTES, are extracted and chunked in a child process under their
// own limits (extraction-process.ts), so no document holds up this process's event loop: a
// document that passes a limit, or whose worker dies, fails at once, so a poison pill is never
// handed to another process. Every failure ends `failed` with a reason a person can act on.
import { randomUUID } from "node:crypto";
import type { Prisma } from "@/generated/prisma/client";
import { retryOnConflict, type Db } from "@/server/db";
import { databaseUnavailableKind } from "@/server/errors";
import { logger } from "@/server/observability/log";
import { inSpan } from "@/server/observability/tracing";
import { recordEvent, type EventInput } from "@/server/services/org/events";
import { toSource } from "@/server/services/support/source-shape";
import { analyzeChunksAfterLoad, noteChunksWritten, type AnalyzeThreshold } from "./chunk-statistics";
import { chunkMarkdown } from "./chunking";
import { runCrawlOnce } from "./crawl";
import { runEmbeddingOnce } from "./embedding";
import { ExtractionFailed, extractText, type SourceType } from "./extract";
import type { ExtractedDocument } from "./extraction-child";
import { extractInChildProcess, extractPageInChildProcess, ExtractionUnavailable } from "./extraction-process";
import type { Validators } from "./fetch-url";
import type { ClaimedJob, IndexingOptions } from "./indexing-options";
import { runRefreshOnce } from "./refresh";
import { fetchedNow } from "./refresh-schedule";
import { insertChunks, lockSource, replaceChunks } from "./source-writes";
import { groupedDigits } from "@/lib/digits";

export type { ClaimedJob, IndexingOptions };

const DEFAULTS = {
  leaseMs: 60_000,
  // Above the extraction time limit (60 s, fetching included) twice over: a document may wait
  // for one of the process's extraction workers, then run its own 60 s, then write.
  attemptTimeoutMs: 150_000,
  maxAttempts: 3,
  maxTotalMs: 10 * 60_000,
  batch: 4,
  // A 4.5 MB document is some 10,000 chunks whose full-text vectors PostgreSQL computes as they
  // are inserted: seconds on a busy machine, so Prisma's default 5 s failed such sources.
  writeTimeoutMs: 60_000,
} satisfies Partial<IndexingOptions>;

/** How long the write waits for a free database connection before the attempt fails. */
const WRITE_MAX_WAIT_MS = 10_000;

/** A problem with the document itself: the source fails at once, whatever attempts are left. */
class PermanentFailure extends Error {
  override readonly name = "PermanentFailure";
}

/** Chunks written per transaction: a larger document is written in several, with its progress between them. */
export const CHUNKS_PER_TRANSACTION = 1_000;

/** The claim was taken over while the document was written: this worker stops writing. */
class LostClaim extends Error {
  override readonly name = "LostClaim";
}

/** Writing a large document failed part-way: the cause, and how far it got. */
class BatchWriteFailed extends Error {
  override readonly name = "BatchWriteFailed";
  constructor(
    override readonly cause: unknown,
    readonly written: number,
    readonly total: number,
  ) {
    super("writing the chunks failed");
  }
}

/** A passing problem whose message a person may read (the attempt took too long, ...). */
class TransientFailure extends Error {
  override readonly name = "TransientFailure";
}

const seconds = (ms: number) => `${ms < 1000 ? ms / 1000 : Math.round(ms / 1000)} s`;

/**
 * What errorMessage says about a failed attempt: its cause in words a person can act on (the
 * write took too long, the database was away, no connection was free), never a stack or
 * database-internal text; anything else is logged and named by its kind only.
 */
function plainReason(error: unknown, writeTimeoutMs: number): string {
  if (error instanceof BatchWriteFailed)
    return `${plainReason(error.cause, writeTimeoutMs)}, with ${groupedDigits(error.written)} of ${groupedDigits(error.total)} chunks written`;
  if (error instanceof TransientFailure || error instanceof ExtractionUnavailable) return error.message;
  const unavailable = databaseUnavailableKind(error);
  if (unavailable) return `the database could not be reached (${unavailable})`;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === "string" ? message : "";
  const sqlState = /Code: `(\w+)`/.exec(text)?.[1] ?? (typeof code === "string" ? code : "");
  if (/Unable to start a transaction in the given time/.test(text))
    return `no database connection was free within ${seconds(WRITE_MAX_WAIT_MS)} (the database is busy)`;
  if (/expired transaction|Transaction already closed/.test(text) || ["55P03", "57014"].includes(sqlState))
    return `writing the index took longer than ${seconds(writeTimeoutMs)} (the database is busy, or another change held the source)`;
  logger().error({ err: error }, "Indexing attempt failed");
  const kind = error instanceof Error ? `${error.name}${typeof code === "string" ? ` ${code}` : ""}` : typeof error;
  return `an internal error (${kind}), logged on the server`;
}

export async function claimJobs(db: Db, count: number, leaseMs: number = DEFAULTS.leaseMs): Promise<ClaimedJob[]> {
  const token = randomUUID();
  const rows = await db.$queryRaw<ClaimedJob[]>`
    update index_jobs j set status = 'running', claim_token = ${token}::uuid,
      lease_until = now() + (${leaseMs} * interval '1 millisecond'),
      attempts = j.attempts + 1, started_at = coalesce(j.started_at, now())
    where j.id in (
      select id from index_jobs
      where (status = 'queued' and run_after <= now()) or (status = 'running' and lease_until < now())
      order by created_at
      for update skip locked
      limit ${count}
    )
    returning j.id, j.source_id as "sourceId", j.claim_token as "claimToken", j.attempts, j.started_at as "startedAt", j.last_error as "lastError"`;
  return rows;
}

/** Queues (or re-queues from scratch) the indexing of a source; then call wakeIndexWorker(). */
export async function enqueueIndexing(db: Pick<Db, "$executeRaw">, sourceId: string): Promise<void> {
  await db.$executeRaw`
    insert into index_jobs (id, source_id, status, attempts, run_after, created_at)
    values (${randomUUID()}::uuid, ${sourceId}::uuid, 'queued', 0, now(), now())
    on conflict (source_id) do update set status = 'queued', attempts = 0, claim_token = null, lease_until = null,
      run_after = now(), started_at = null, last_error = null`;
}

/** The event of a source's indexing ending; `data` is the source as the REST API shows it. */
function sourceEvent(
  action: "source.ready" | "source.failed",
  source: Parameters<typeof toSource>[0],
  status: string,
): EventInput {
  return {
    action,
    target: { type: "source", id: source.id, label: source.name },
    changes: { status: ["processing", status] },
    data: toSource(source),
  };
}

async function failSource(db: Db, job: ClaimedJob, message: string): Promise<void> {
  await retryOnConflict(() =>
    db.$transaction(async (tx) => {
      if (!(await lockSource(tx, job.sourceId))) return;
      const owned =
        await tx.$executeRaw`delete from index_jobs where id = ${job.id}::uuid and claim_token = ${job.claimToken}::uuid`;
      if (owned !== 1) return;
      // Unscoped: a job names its source, whose row names the organization.
      const { count } = await tx.source.updateMany({
        where: { id: job.sourceId, status: "processing" },
        data: { status: "failed", errorMessage: message },
      });
      // The chunks an attempt wrote part-way (a large document's first transactions).
      if (count === 1) await tx.$executeRaw`delete from source_chunks where source_id = ${job.sourceId}::uuid`;
      const source =
        count === 1
          ? // Unscoped: the source a job names (see above).
            await tx.source.findUniqueOrThrow({ where: { id: job.sourceId }, omit: { content: true, text: true } })
          : null;
      if (source)
        await recordEvent(
          tx,
          { kind: "system", organizationId: source.organizationId },
          sourceEvent("source.failed", source, "failed"),
        );
    }),
  );
  logger().warn(
    { event: "indexing_failed", sourceId: job.sourceId, jobId: job.id, attempts: job.attempts, reason: message },
    "Indexing failed for a source",
  );
}

/** Runs `work` under a time limit; on timeout its signal aborts (killing an extraction child). */
async function withTimeout<T>(work: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const controller = new AbortController();
  const timeout = new TransientFailure(
    `the attempt took longer than ${ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`}`,
  );
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(timeout);
      reject(timeout);
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Keeps the claim while the job runs, so a long extraction is not taken over as abandoned. */
function renewLease(db: Db, job: ClaimedJob, leaseMs: number): () => void {
  const timer = setInterval(() => {
    db.$executeRaw`update index_jobs set lease_until = now() + (${leaseMs} * interval '1 millisecond')
      where id = ${job.id}::uuid and claim_token = ${job.claimToken}::uuid`.catch(() => {
      // The database is away: if the lease runs out, another worker takes the job over.
    });
  }, leaseMs / 3);
  return () => clearInterval(timer);
}

/**
 * Inline markdown or text up to this size is chunked in this process: chunking is linear
 * (tests/security/linear-text.test.ts), and this much takes milliseconds, less than starting a
 * child. Longer documents go to the extraction child, as every other kind does.
 */
export const INLINE_CHUNKING_MAX_BYTES = 64 * 1024;

/** The text and chunks of a source (and a fetched one's validators): short inline text here, anything else in an extraction child process. */
async function documentOf(
  source: { type: string; url: string | null; content: Uint8Array | null },
  options: IndexingOptions,
  signal: AbortSignal,
): Promise<ExtractedDocument & { validators?: Validators }> {
  const maxChars = options.extraction?.maxChars;
  const type = source.type as SourceType;
  const bytes = source.content ?? new Uint8Array();
  const run = { signal, onWorker: options.onExtractionWorker };
  if (source.url && !source.content) {
    const page = await extractPageInChildProcess(
      { kind: "page", url: source.url, limits: options.fetchLimits, links: false },
      options.extraction,
      run,
    );
    if (!page.ok) throw new PermanentFailure(page.message);
    if (page.notModified || !page.document) throw new PermanentFailure("The URL is a sitemap, not a document.");
    return { ...page.document, validators: page.validators };
  }
  if ((type === "markdown" || type === "text") && bytes.byteLength <= INLINE_CHUNKING_MAX_BYTES) {
    try {
      const text = await extractText(type, bytes, { maxChars });
      return { text, type, sizeBytes: bytes.byteLength, chunks: chunkMarkdown(text) };
    } catch (error) {
      if (error instanceof ExtractionFailed) throw new PermanentFailure(error.message);
      throw error;
    }
  }
  const answer = await extractInChildProcess({ kind: "bytes", type, bytes }, options.extraction, run);
  if (!answer.ok) throw new PermanentFailure(answer.message);
  return answer;
}

async function indexSource(db: Db, job: ClaimedJob, options: IndexingOptions, signal: AbortSignal): Promise<void> {
  // Unscoped: a job names its source, whose row names the organization.
  const source = await db.source.findUnique({ where: { id: job.sourceId } });
  if (!source || source.status !== "processing") {
    await db.$executeRaw`delete from index_jobs where id = ${job.id}::uuid and claim_token = ${job.claimToken}::uuid`;
    return;
  }
  const { text, type, sizeBytes, chunks, validators } = await documentOf(source, options, signal);
  const writeTimeoutMs = options.writeTimeoutMs ?? DEFAULTS.writeTimeoutMs;
  const write = (work: (tx: Prisma.TransactionClient) => Promise<void>) =>
    retryOnConflict(() =>
      db.$transaction(
        async (tx) => {
          // Every statement and lock wait ends within the write's time, so the timeout is kept.
          await tx.$executeRaw`select set_config('statement_timeout', ${String(writeTimeoutMs)}, true),
            set_config('lock_timeout', ${String(writeTimeoutMs)}, true)`;
          if (await lockSource(tx, source.id)) await work(tx);
        },
        { maxWait: WRITE_MAX_WAIT_MS, timeout: writeTimeoutMs },
      ),
    );
  // A large document is written in several transactions of CHUNKS_PER_TRANSACTION chunks, each
  // by the holder of the claim only, its progress on the job in between (the source page shows
  // it); the source is searchable once the last one marks it ready.
  const last = Math.max(0, Math.ceil(chunks.length / CHUNKS_PER_TRANSACTION) - 1);
  let written = 0;
  try {
    for (let batch = 0; batch < last; batch++) {
      const slice = chunks.slice(written, written + CHUNKS_PER_TRANSACTION);
      await write(async (tx) => {
        const owned = await tx.$executeRaw`update index_jobs set chunks_written = ${written + slice.length},
            chunks_total = ${chunks.length}
          where id = ${job.id}::uuid and claim_token = ${job.claimToken}::uuid`;
        if (owned !== 1) throw new LostClaim();
        if (batch === 0) await tx.$executeRaw`delete from source_chunks where source_id = ${source.id}::uuid`;
        await insertChunks(tx, source, slice, written);
      });
      written += slice.length;
    }
    await write(async (tx) => {
      // Only the current holder of the claim may write the result.
      const owned =
        await tx.$executeRaw`delete from index_jobs where id = ${job.id}::uuid and claim_token = ${job.claimToken}::uuid`;
      if (owned !== 1) return;
      if (last === 0) await replaceChunks(tx, source, chunks);
      else await insertChunks(tx, source, chunks.slice(written), written);
      const ready = await tx.source.update({
        where: { id: source.id, organizationId: source.organizationId },
        data: {
          status: "ready",
          text,
          type,
          errorMessage: null,
          ...(source.content ? {} : { sizeBytes }),
          ...(validators && fetchedNow(source.refresh, validators)),
        },
        omit: { content: true, text: true },
      });
      await recordEvent(
        tx,
        { kind: "system", organizationId: source.organizationId },
        sourceEvent("source.ready", ready, "ready"),
      );
    });
    noteChunksWritten(chunks.length);
  } catch (error) {
    if (error instanceof LostClaim) return;
    throw chunks.length > CHUNKS_PER_TRANSACTION ? new BatchWriteFailed(error, written, chunks.length) : error;
  }
}

/** Works on one claimed job: ready, failed (permanent problem or out of attempts/time), or queued again. */
export async function runJob(db: Db, job: ClaimedJob, options: IndexingOptions = {}): Promise<void> {
  const o = { ...DEFAULTS, ...options };
  const elapsed = Date.now() - new Date(job.startedAt).getTime();
  if (job.attempts > o.maxAttempts || elapsed > o.maxTotalMs) {
    // Earlier attempts ended without a word: their server stopped (or lost its lease) mid-job.
    const minutes = Math.max(1, Math.round(elapsed / 60_000));
    const tried = job.attempts - 1;
    await failSource(
      db,
      job,
      `Indexing did not finish after ${tried} attempt${tried === 1 ? "" : "s"} over about ${minutes} min ` +
        `(${job.lastError ? `last error: ${job.lastError}` : "the server working on it stopped before it finished"}). ` +
        "Check the document, then run it again with POST /knowledgebases/{id}/sources/{sourceId}/retry.",
    );
    return;
  }
  const stopRenewing = renewLease(db, job, o.leaseMs);
  try {
    await withTimeout((signal) => indexSource(db, job, options, signal), o.attemptTimeoutMs);
  } catch (error) {
    if (error instanceof PermanentFailure) {
      await failSource(db, job, error.message);
      return;
    }
    const reason = plainReason(error, o.writeTimeoutMs);
    if (job.attempts >= o.maxAttempts) {
      await failSource(
        db,
        job,
        `Indexing failed ${job.attempts} times (last error: ${reason}). Check the document, then run it again with POST /knowledgebases/{id}/sources/{sourceId}/retry.`,
      );
      return;
    }
    const backoffMs = 1000 * 2 ** job.attempts;
    logger().warn(
      {
        event: "indexing_retry",
        sourceId: job.sourceId,
        jobId: job.id,
        attempts: job.attempts,
        reason,
        retryInMs: backoffMs,
      },
      "Indexing attempt failed; queued again",
    );
    await db.$executeRaw`
      update index_jobs set status = 'queued', claim_token = null, lease_until = null, last_error = ${reason},
        run_after = now() + (${backoffMs} * interval '1 millisecond')
      where id = ${job.id}::uuid and claim_token = ${job.claimToken}::uuid`;
  } finally {
    stopRenewing();
  }
}

/** Claims a batch and works on it; returns how many jobs were claimed. `held` tracks the claims in hand. */
export async function runIndexingOnce(db: Db, options: IndexingOptions = {}, held?: Set<ClaimedJob>): Promise<number> {
  const o = { ...DEFAULTS, ...options };
  const jobs = await claimJobs(db, o.batch, o.leaseMs);
  await Promise.all(
    jobs.map(async (job) => {
      held?.add(job);
      try {
        await options.afterClaim?.(job);
        await inSpan("job indexing", { "atrium.source.id": job.sourceId, "atrium.job.attempt": job.attempts }, () =>
          runJob(db, job, options),
        );
      } finally {
        held?.delete(job);
      }
    }),
  );
  return jobs.length;
}

/**
 * Hands claimed jobs back to the queue at once, for another process to take (a graceful stop):
 * the attempt is not counted, and the worker still on them can no longer write (the token is gone).
 */
export async function releaseJobs(db: Db, jobs: ClaimedJob[]): Promise<void> {
  for (const job of jobs) {
    await db.$executeRaw`
      update index_jobs set status = 'queued', claim_token = null, lease_until = null, run_after = now(),
        attempts = greatest(attempts - 1, 0)
      where id = ${job.id}::uuid and claim_token = ${job.claimToken}::uuid`;
  }
}

/** Works until nothing is claimable (tests, benchmarks). */
export async function drainIndexJobs(db: Db, options: IndexingOptions = {}, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await runIndexingOnce(db, options)) === 0) return;
  }
  throw new Error("Indexing did not drain in time");
}

// ---------------------------------------------------------------------------------------------
// The worker loop each server process runs.

let wakeUp: (() => void) | undefined;

/** Wakes this process's worker at once (call after the transaction that queued a source commits). */
export function wakeIndexWorker(): void {
  wakeUp?.();
}

export interface IndexWorker {
  /** Stops claiming and waits for the jobs in hand to finish. */
  stop(): Promise<void>;
  /** Stops claiming and hands the jobs in hand back to the queue at once (the server is shutting down); how many. */
  release(): Promise<number>;
}

/** The pause after `failures` failed rounds in a row: pollMs doubled each time, up to maxMs. */
export function backoffDelay(failures: number, pollMs: number, maxMs: number): number {
  return Math.min(maxMs, pollMs * 2 ** Math.max(0, failures - 1));
}

/** One line about a failed round: the driver's kind of failure (DatabaseNotReachable, ...) or the error's code. */
function shortReason(error: unknown): string {
  const { code, meta } = error as { code?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown } } } };
  const kind = meta?.driverAdapterError?.cause?.kind;
  if (typeof kind === "string" && kind) return kind;
  if (typeof code === "string" && code) return code;
  const message = error instanceof Error ? error.message : String(error);
  return (message.split("\n").find((line) => line.trim()) ?? "unknown error").trim().slice(0, 200);
}

export function startIndexWorker(
  db: Db,
  options: IndexingOptions & {
    pollMs?: number;
    maxBackoffMs?: number;
    embeddingPollMs?: number;
    analyzeAfter?: AnalyzeThreshold;
  } = {},
): IndexWorker {
  let stopped = false;
  let sleeping: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  const pollMs = options.pollMs ?? 1000;
  const embeddingPollMs = options.embeddingPollMs ?? 10_000;
  let nextEmbeddingRound = 0;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  /** A wake that came while a round ran: that round may have looked before the work was queued. */
  let wokenMidRound = false;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (wokenMidRound) return resolve();
      const timer = setTimeout(() => {
        sleeping = undefined;
        resolve();
      }, ms);
      sleeping = { timer, resolve };
    });
  wakeUp = () => {
    if (!sleeping) {
      wokenMidRound = true;
      return;
    }
    clearTimeout(sleeping.timer);
    sleeping.resolve();
    sleeping = undefined;
  };
  const held = new Set<ClaimedJob>();
  const loop = (async () => {
    // While the database is away, rounds fail in a row: back off and say so once, not every round.
    let failures = 0;
    while (!stopped) {
      wokenMidRound = false;
      let claimed = 0;
      try {
        claimed = await runIndexingOnce(db, options, held);
        // Then the pages crawls have queued, then the URL sources due for a refresh.
        if (claimed === 0) claimed = await runCrawlOnce(db, options);
        if (claimed === 0) claimed = await runRefreshOnce(db, options);
        // Documents first; when none is waiting, the embeddings of hybrid search. Looking for
        // rows to embed reads every page and chunk of organizations with an embedding model, so
        // it runs every embeddingPollMs while it finds nothing, at once again while it finds work.
        if (claimed === 0 && Date.now() >= nextEmbeddingRound) {
          claimed = await runEmbeddingOnce(db);
          nextEmbeddingRound = claimed > 0 ? 0 : Date.now() + embeddingPollMs;
        }
        // Idle after a large load: the chunk table's statistics, before the searches that follow it.
        if (claimed === 0) await analyzeChunksAfterLoad(db, options.analyzeAfter);
        if (failures > 0) logger().info("Indexing worker: the database is reachable again; indexing resumes.");
        failures = 0;
      } catch (error) {
        failures++;
        if (failures === 1) {
          logger().error(
            `Indexing worker: the database is unreachable (${shortReason(error)}); retrying with backoff up to ${maxBackoffMs / 1000} s.`,
          );
        }
      }
      if (stopped) break;
      if (failures > 0) await sleep(backoffDelay(failures, pollMs, maxBackoffMs));
      else if (claimed === 0) await sleep(pollMs);
    }
  })();
  const stopClaiming = () => {
    stopped = true;
    wakeIndexWorker();
    wakeUp = undefined;
  };
  return {
    async stop() {
      stopClaiming();
      await loop;
    },
    async release() {
      stopClaiming();
      const jobs = [...held];
      await releaseJobs(db, jobs);
      return jobs.length;
    },
  };
}
