// A run's writes wait for the database rather than fail with it: a blip (PostgreSQL restarted, a
// connection cut) must not drop a run's events or tell its client another outcome than the run's.
// Only a lost or refused connection is waited out; any other failure is the write's own.
import { logger } from "@/server/observability/log";

/** How long a run's write waits for the database before it fails as it would have at once. */
export const DATABASE_WAIT_MS = 5 * 60_000;

const AWAY_CODES = new Set([
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  "P1001", // Prisma: can't reach database server
  "P1002",
  "P1017", // Prisma: server closed the connection
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
]);

const AWAY_MESSAGE =
  /ECONNREFUSED|ECONNRESET|EPIPE|Connection terminated|connection (?:ended|closed|error)|terminating connection|database system is (?:starting up|shutting down|in recovery mode)|Can't reach database server|timeout exceeded when trying to connect|Client has encountered a connection error|Server has closed the connection/i;

interface ErrorShape {
  code?: unknown;
  originalCode?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/** True when the failure is the database being away (not the statement's own fault). */
export function isDatabaseAway(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 5) return false;
  const shape = error as ErrorShape;
  if (AWAY_CODES.has(String(shape.code ?? "")) || AWAY_CODES.has(String(shape.originalCode ?? ""))) return true;
  if (typeof shape.message === "string" && AWAY_MESSAGE.test(shape.message)) return true;
  if (error instanceof AggregateError && error.errors.some((inner) => isDatabaseAway(inner, depth + 1))) return true;
  return isDatabaseAway(shape.cause, depth + 1) || isDatabaseAway(shape.meta?.driverAdapterError, depth + 1);
}

/** True for a unique violation: a write retried after its commit's answer was lost had landed. */
export function isUniqueViolation(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 5) return false;
  const shape = error as ErrorShape;
  if (shape.code === "23505" || shape.originalCode === "23505" || shape.code === "P2002") return true;
  return isUniqueViolation(shape.cause, depth + 1) || isUniqueViolation(shape.meta?.driverAdapterError, depth + 1);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `write`, again with backoff (up to 2 s apart) while the database is away, for
 * DATABASE_WAIT_MS at most. `write` must be safe to run again (one statement or transaction).
 */
export async function whenDatabaseAnswers<T>(what: string, write: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + DATABASE_WAIT_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!isDatabaseAway(error) || Date.now() > deadline) throw error;
      if (attempt === 1) logger().warn({ reason: (error as Error).message }, `${what}: the database is away; waiting`);
      await sleep(Math.min(2000, 100 * 2 ** Math.min(attempt, 5)));
    }
  }
}
