// Background indexing: durable jobs in PostgreSQL (index_jobs), claimed with
// FOR UPDATE SKIP LOCKED so no two workers, in any number of processes, hold one job at a time.
// A claim carries a lease and a token; a job whose lease ran out (its process died) is claimed
// again, and a worker whose lease was taken over cannot write its result (the token no longer
// matches). Each source gets a bounded number of attempts and a bounded total time, after which
// it ends `failed` with a reason a person can act on.
import { randomUUID } from "node:crypto";
import type { Db } from "@/server/db";
import { chunkText, ExtractionFailed, extractText, typeOfContent, type SourceType } from "./extract";
import { FetchRefused, fetchPublicUrl, type FetchPolicy } from "./fetch-url";

export interface IndexingOptions {
  fetchPolicy?: FetchPolicy;
  /** How long a claim holds before another worker may take the job over. */
  leaseMs?: number;
  /** Time allowed for one attempt. */
  attemptTimeoutMs?: number;
  /** Attempts before the source fails. */
  maxAttempts?: number;
  /** Total time from the first attempt before the source fails. */
  maxTotalMs?: number;
  /** Jobs claimed per round. */
  batch?: number;
  /** Called after a job is claimed, before it is worked on (tests use it to simulate a crash). */
  afterClaim?: (job: ClaimedJob) => Promise<void> | void;
}

export interface ClaimedJob {
  id: string;
  sourceId: string;
  claimToken: string;
  attempts: number;
  startedAt: Date;
  lastError: string | null;
}

const DEFAULTS = {
  leaseMs: 60_000,
  attemptTimeoutMs: 45_000,
  maxAttempts: 3,
  maxTotalMs: 10 * 60_000,
  batch: 4,
} satisfies Partial<IndexingOptions>;

class PermanentFailure extends Error {
  override readonly name = "PermanentFailure";
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

async function failSource(db: Db, job: ClaimedJob, message: string): Promise<void> {
  await db.$transaction(async (tx) => {
    const owned = await tx.$executeRaw`delete from index_jobs where id = ${job.id}::uuid and claim_token = ${job.claimToken}::uuid`;
    if (owned !== 1) return;
    await tx.source.updateMany({ where: { id: job.sourceId, status: "processing" }, data: { status: "failed", errorMessage: message } });
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the attempt took longer than ${ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`}`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

async function indexSource(db: Db, job: ClaimedJob, options: IndexingOptions): Promise<void> {
  const source = await db.source.findUnique({ where: { id: job.sourceId } });
  if (!source || source.status !== "processing") {
    await db.$executeRaw`delete from index_jobs where id = ${job.id}::uuid and claim_token = ${job.claimToken}::uuid`;
    return;
  }
  let type = source.type as SourceType;
  let bytes: Uint8Array;
  if (source.url && !source.content) {
    try {
      const fetched = await fetchPublicUrl(source.url, options.fetchPolicy);
      const fetchedType = typeOfContent(fetched.contentType);
      if (!fetchedType) {
        throw new PermanentFailure(
          `The URL answered with content type "${fetched.contentType || "none"}"; only HTML, PDF, CSV, Markdown and plain text can be indexed.`,
        );
      }
      type = fetchedType;
      bytes = fetched.bytes;
    } catch (error) {
      if (error instanceof FetchRefused) throw new PermanentFailure(error.message);
      throw error;
    }
  } else {
    bytes = source.content ?? new Uint8Array();
  }
  let text: string;
  try {
    text = await extractText(type, bytes);
  } catch (error) {
    if (error instanceof ExtractionFailed) throw new PermanentFailure(error.message);
    throw error;
  }
  const chunks = chunkText(text);
  await db.$transaction(async (tx) => {
    // Only the current holder of the claim may write the result.
    const owned = await tx.$executeRaw`delete from index_jobs where id = ${job.id}::uuid and claim_token = ${job.claimToken}::uuid`;
    if (owned !== 1) return;
    await tx.sourceChunk.deleteMany({ where: { sourceId: source.id } });
    await tx.$executeRaw`
      insert into source_chunks (id, source_id, knowledgebase_id, position, text)
      select gen_random_uuid(), ${source.id}::uuid, ${source.knowledgebaseId}::uuid, c.position, c.text
      from unnest(${chunks.map((_, i) => i)}::int[], ${chunks}::text[]) as c(position, text)`;
    await tx.source.update({
      where: { id: source.id },
      data: { status: "ready", text, type, errorMessage: null, ...(source.content ? {} : { sizeBytes: bytes.byteLength }) },
    });
  });
}

/** Works on one claimed job: ready, failed (permanent problem or out of attempts/time), or queued again. */
export async function runJob(db: Db, job: ClaimedJob, options: IndexingOptions = {}): Promise<void> {
  const o = { ...DEFAULTS, ...options };
  const elapsed = Date.now() - new Date(job.startedAt).getTime();
  if (job.attempts > o.maxAttempts || elapsed > o.maxTotalMs) {
    const minutes = Math.max(1, Math.round(elapsed / 60_000));
    await failSource(
      db,
      job,
      `Indexing did not finish after ${job.attempts - 1} attempt(s) over about ${minutes} min${job.lastError ? ` (last error: ${job.lastError})` : ""}. ` +
        "Check the document, then run it again with POST /knowledgebases/{id}/sources/{sourceId}/retry.",
    );
    return;
  }
  try {
    await withTimeout(indexSource(db, job, options), o.attemptTimeoutMs);
  } catch (error) {
    if (error instanceof PermanentFailure) {
      await failSource(db, job, error.message);
      return;
    }
    const message = (error as Error).message;
    if (job.attempts >= o.maxAttempts) {
      await failSource(
        db,
        job,
        `Indexing failed ${job.attempts} times (last error: ${message}). Check the document, then run it again with POST /knowledgebases/{id}/sources/{sourceId}/retry.`,
      );
      return;
    }
    const backoffMs = 1000 * 2 ** job.attempts;
    await db.$executeRaw`
      update index_jobs set status = 'queued', claim_token = null, lease_until = null, last_error = ${message},
        run_after = now() + (${backoffMs} * interval '1 millisecond')
      where id = ${job.id}::uuid and claim_token = ${job.claimToken}::uuid`;
  }
}

/** Claims a batch and works on it; returns how many jobs were claimed. */
export async function runIndexingOnce(db: Db, options: IndexingOptions = {}): Promise<number> {
  const o = { ...DEFAULTS, ...options };
  const jobs = await claimJobs(db, o.batch, o.leaseMs);
  await Promise.all(
    jobs.map(async (job) => {
      await options.afterClaim?.(job);
      await runJob(db, job, options);
    }),
  );
  return jobs.length;
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
  stop(): Promise<void>;
}

export function startIndexWorker(db: Db, options: IndexingOptions & { pollMs?: number } = {}): IndexWorker {
  let stopped = false;
  let sleeping: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  const pollMs = options.pollMs ?? 1000;
  const sleep = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      sleeping = { timer, resolve };
    });
  wakeUp = () => {
    if (sleeping) {
      clearTimeout(sleeping.timer);
      sleeping.resolve();
    }
  };
  const loop = (async () => {
    while (!stopped) {
      let claimed = 0;
      try {
        claimed = await runIndexingOnce(db, options);
      } catch (error) {
        console.error("Indexing round failed:", error);
      }
      if (claimed === 0 && !stopped) await sleep();
    }
  })();
  return {
    async stop() {
      stopped = true;
      wakeIndexWorker();
      wakeUp = undefined;
      await loop;
    },
  };
}
