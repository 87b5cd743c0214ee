// The database client: one per process, created on first use from DATABASE_URL. Prisma runs
// over a pg pool it shares with the few hot paths (key check, rate limit) that send plain SQL
// straight to the pool, where a query costs a fifth of the CPU time of Prisma's $queryRaw.
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { env } from "@/env";
import { PrismaClient } from "@/generated/prisma/client";
import { logger } from "@/server/observability/log";
import { traceQueries } from "@/server/observability/tracing";

export type Db = PrismaClient & { readonly pool: pg.Pool };

/**
 * A CTE (`with no_flush as (…)`, referenced in the statement's FROM) for a write whose commit
 * need not wait for the WAL to reach the disk, which on an ordinary disk is most of a small
 * write's time (3.3 ms sequentially against 0.3 ms; BENCHMARKS.md). The setting ends with the
 * statement's transaction. For rate-limit counters (a crash of PostgreSQL loses at most the last
 * fraction of a second of counts) and a run's credit charge: the run's record is a flushed
 * commit after it, and flushing the WAL up to one commit flushes every commit before it, so a
 * crash can lose a charge only together with the run it paid for. Tests: tests/api/rate-limit.test.ts,
 * tests/runtime/credit-durability.test.ts.
 */
export const NO_FLUSH = "select set_config('synchronous_commit', 'off', true)";

export function createDb(
  databaseUrl: string,
  poolSize = env().DATABASE_POOL_SIZE,
  statementTimeoutMs = env().DATABASE_STATEMENT_TIMEOUT_MS,
): Db {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    ...(statementTimeoutMs > 0 && { statement_timeout: statementTimeoutMs }),
  });
  // An idle connection dropped by the server must not take the process down; the pool reconnects.
  pool.on("error", (error) => logger().error({ reason: error.message }, "Database connection lost"));
  pool.on("connect", (client) => traceQueries(client as unknown as Parameters<typeof traceQueries>[0]));
  return Object.assign(new PrismaClient({ adapter: new PrismaPg(pool) }), { pool });
}

const closers = new WeakMap<Db, (() => Promise<void>)[]>();

/** Runs `close` when the client is closed: a connection of its own beside the pool (runtime/run-hub.ts). */
export function onCloseDb(db: Db, close: () => Promise<void>): void {
  closers.set(db, [...(closers.get(db) ?? []), close]);
}

/**
 * What a process holds per client and renews on a timer (run leases, idempotency keys): made on
 * first use, its timer stopped when the client is closed.
 */
export function renewedPerDb<Held extends { timer: NodeJS.Timeout | null }>(create: () => Held): (db: Db) => Held {
  const heldBy = new WeakMap<Db, Held>();
  return (db) => {
    const existing = heldBy.get(db);
    if (existing) return existing;
    const held = create();
    heldBy.set(db, held);
    onCloseDb(db, async () => {
      if (held.timer) clearInterval(held.timer);
      held.timer = null;
    });
    return held;
  };
}

export async function closeDb(db: Db): Promise<void> {
  await Promise.all((closers.get(db) ?? []).map((close) => close()));
  await db.$disconnect();
  await db.pool.end();
}

const globalForDb = globalThis as unknown as { atriumDb?: Db };

export function getDb(): Db {
  if (!globalForDb.atriumDb) {
    const url = env().DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set: start Atrium with `npm start`, which provides the database.");
    globalForDb.atriumDb = createDb(url);
  }
  return globalForDb.atriumDb;
}

/** SQLSTATEs after which PostgreSQL rolled the transaction back and running it again is safe: deadlock_detected, serialization_failure. */
const RETRYABLE_SQLSTATES = new Set(["40P01", "40001"]);

type ErrorShape =
  | { code?: unknown; originalCode?: unknown; cause?: ErrorShape; meta?: { driverAdapterError?: ErrorShape } }
  | null
  | undefined;

/**
 * True when PostgreSQL aborted the transaction as the victim of a deadlock or a serialization
 * conflict: pg's own error, Prisma's P2034, or the SQLSTATE the driver adapter carries (in the
 * error's cause, or in meta.driverAdapterError's cause for a raw query's P2010).
 */
export function isRetryableConflict(error: unknown): boolean {
  const shape = error as ErrorShape;
  if (shape?.code === "P2034") return true;
  const adapter = shape?.meta?.driverAdapterError;
  return [shape, shape?.cause, adapter, adapter?.cause].some(
    (part) =>
      RETRYABLE_SQLSTATES.has(String(part?.originalCode ?? "")) || RETRYABLE_SQLSTATES.has(String(part?.code ?? "")),
  );
}

/**
 * Runs `transaction` (one whole database transaction, nothing outside it), and once more if
 * PostgreSQL aborted it for a deadlock or a serialization failure: the one place such a retry
 * lives. Lock order still matters (a retry hides a rare cycle, not a habitual one); see
 * docs/architecture.md (Lock order).
 */
export async function retryOnConflict<T>(transaction: () => Promise<T>): Promise<T> {
  try {
    return await transaction();
  } catch (error) {
    if (!isRetryableConflict(error)) throw error;
    logger().warn(
      { err: error },
      "A transaction was aborted by a lock conflict (deadlock or serialization failure); running it once more",
    );
    return transaction();
  }
}
