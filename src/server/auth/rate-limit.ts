// A sliding-window rate limiter whose state lives in PostgreSQL, so every server process
// sharing the database enforces one limit. It keeps a counter per fixed window and weighs the
// previous window by the share of it that still falls inside the last 60 seconds (the
// sliding-window-counter method): one upsert per request, no per-request rows.
import { NO_FLUSH, type Db } from "@/server/db";
import { logger } from "@/server/observability/log";

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** The weighted count in the last 60 seconds, this request included when allowed. */
  used: number;
  /** Seconds until the window has fully moved on from the current requests. */
  resetSeconds: number;
  /** Whole seconds (>= 1) until another request would be allowed; set when refused. */
  retryAfterSeconds?: number;
}

/** Every bucket shares one window length, so old counters can be swept in one statement. */
const WINDOW_SECONDS = 60;
/** Float noise (e.g. 3 · (1 − 2/3) + 2 = 3.0000000000000004) must not tip a boundary either way. */
const EPSILON = 1e-9;
const lastCleanup = new WeakMap<Db, number>();

/** Where a moment falls: its fixed window and how far into it (0..1). */
export interface WindowPosition {
  window: number;
  elapsed: number;
}

export function windowAt(nowMs = Date.now()): WindowPosition {
  const nowSeconds = nowMs / 1000;
  const window = Math.floor(nowSeconds / WINDOW_SECONDS);
  return { window, elapsed: (nowSeconds - window * WINDOW_SECONDS) / WINDOW_SECONDS };
}

export async function hitRateLimit(
  db: Db,
  bucket: string,
  limit: number,
  nowMs = Date.now(),
): Promise<RateLimitResult> {
  const position = windowAt(nowMs);
  const { rows } = await db.pool.query<{ current: number; previous: number }>({
    name: "atrium_rate_limit_hit",
    text: `with no_flush as (${NO_FLUSH}), cur as (
       insert into rate_limit_counters (bucket, window_start, count) select $1, $2, 1 from no_flush
       on conflict (bucket, window_start) do update set count = rate_limit_counters.count + 1
       returning count
     )
     select cur.count as current,
       coalesce((select count from rate_limit_counters where bucket = $1 and window_start = $2 - 1), 0) as previous
     from cur`,
    values: [bucket, position.window],
  });
  return settleRateLimit(db, bucket, limit, position, Number(rows[0]?.current ?? 1), Number(rows[0]?.previous ?? 0));
}

/** Takes back a counted request that was refused, so it uses up no capacity. */
export async function uncountHit(db: Db, bucket: string, { window }: WindowPosition): Promise<void> {
  await db.pool.query(
    `with no_flush as (${NO_FLUSH}) update rate_limit_counters set count = count - 1 from no_flush where bucket = $1 and window_start = $2`,
    [bucket, window],
  );
}

/**
 * Decides on a request already counted (`current` includes it): allowed, or refused and
 * uncounted again.
 */
export async function settleRateLimit(
  db: Db,
  bucket: string,
  limit: number,
  position: WindowPosition,
  current: number,
  previous: number,
): Promise<RateLimitResult> {
  const { window, elapsed } = position;
  const weighted = previous * (1 - elapsed) + current;
  const resetSeconds = Math.max(1, Math.ceil((1 - elapsed) * WINDOW_SECONDS));
  cleanupOccasionally(db, window);

  if (weighted <= limit + EPSILON) {
    return {
      allowed: true,
      limit,
      remaining: Math.max(0, Math.floor(limit - weighted + EPSILON)),
      used: weighted,
      resetSeconds,
    };
  }

  await uncountHit(db, bucket, position);
  const retryAfterSeconds = secondsUntilRoom(previous, current - 1, limit, elapsed);
  return {
    allowed: false,
    limit,
    remaining: 0,
    used: weighted - 1,
    resetSeconds: retryAfterSeconds,
    retryAfterSeconds,
  };
}

/** When will previous·(1 − t) + current, then current·(1 − t) next window, drop to limit − 1? */
function secondsUntilRoom(previous: number, current: number, limit: number, elapsed: number): number {
  const room = limit - 1;
  let waitWindows: number;
  if (current <= room && previous > 0) {
    waitWindows = Math.max(0, 1 - (room - current) / previous - elapsed);
  } else {
    const intoNext = current > 0 ? Math.max(0, 1 - room / current) : 0;
    waitWindows = 1 - elapsed + intoNext;
  }
  return Math.max(1, Math.ceil(waitWindows * WINDOW_SECONDS - EPSILON));
}

function cleanupOccasionally(db: Db, window: number): void {
  const now = Date.now();
  if (now - (lastCleanup.get(db) ?? 0) < WINDOW_SECONDS * 1000) return;
  lastCleanup.set(db, now);
  db.pool
    .query(`with no_flush as (${NO_FLUSH}) delete from rate_limit_counters using no_flush where window_start < $1`, [
      window - 1,
    ])
    .catch((error: unknown) => logger().error({ err: error }, "Rate-limit cleanup failed"));
}

/**
 * The rate-limit fields of a response: the contract's RateLimit-* names, and beside them the
 * current IETF ones (`RateLimit-Policy` and `RateLimit`, one policy named "default"), plus
 * Retry-After when refused.
 */
export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  const headers: Record<string, string> = {
    "RateLimit-Limit": String(result.limit),
    "RateLimit-Remaining": String(result.remaining),
    "RateLimit-Reset": String(result.resetSeconds),
    "RateLimit-Policy": `"default";q=${result.limit};w=${WINDOW_SECONDS}`,
    RateLimit: `"default";r=${result.remaining};t=${result.resetSeconds}`,
  };
  if (result.retryAfterSeconds !== undefined) headers["Retry-After"] = String(result.retryAfterSeconds);
  return headers;
}
