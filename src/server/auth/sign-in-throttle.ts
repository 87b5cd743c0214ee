// Throttling of password (or code) guesses, shared by every sign-in door, each with its own
// bucket names. Counted in PostgreSQL by the sliding-window limiter, so server processes that
// share a database share the limits. Three limits, all per minute:
// - one address guessing one account (the right password is refused too while it is over);
// - one address guessing across accounts (password spraying);
// - one account guessed from many addresses: over this limit only addresses that have already
//   failed against the account are held off, so the member, signing in from their own
//   address, is never locked out by someone else's failures.
// Every attempt is counted before the password is checked (parallel guesses cannot slip past
// a limit) and uncounted again when it succeeds: only failures use up the limits.
// A throttle may add a per-account delay whatever the address (`accountDelay`): after `free`
// failures, each next attempt on the account waits twice as long as the one before, up to
// `maxSeconds`, never a lockout. The wait is claimed in one upsert before the password is
// checked (table sign_in_delays), so parallel guesses from many addresses get one check per
// wait; quiet for `quietSeconds`, or a success, starts the account afresh.
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { logger } from "@/server/observability/log";
import { hitRateLimit, uncountHit, windowAt, type RateLimitResult } from "./rate-limit";

export interface SignInLimits {
  perAccountAndAddress: number;
  perAddress: number;
  perAccount: number;
  accountDelay?: AccountDelay;
}

export interface AccountDelay {
  /** Failures on the account before the first wait. */
  free: number;
  /** The longest wait, in seconds; the first is 1 s. */
  maxSeconds: number;
  /** Seconds without a failure after which the account's failures are forgotten. */
  quietSeconds: number;
}

/** An admitted attempt: report how it ended with `succeeded` or leave it counted as a failure. */
export interface SignInAttempt {
  succeeded(): Promise<void>;
}

export interface SignInThrottle {
  /** Counts an attempt of `address` on `account`, or throws 429 `rate_limited` with Retry-After. */
  admit(db: Db, account: string, address: string): Promise<SignInAttempt>;
}

export function createSignInThrottle(name: string, limits: SignInLimits): SignInThrottle {
  return {
    async admit(db, account, address) {
      const now = Date.now();
      const position = windowAt(now);
      const counted: string[] = [];
      const uncountAll = async () => {
        await Promise.all(counted.map((bucket) => uncountHit(db, bucket, position)));
      };
      const hit = async (bucket: string, limit: number): Promise<RateLimitResult> => {
        const result = await hitRateLimit(db, bucket, limit, now);
        if (result.allowed) counted.push(bucket);
        return result;
      };

      const pair = await hit(`${name}:pair:${account}:${address}`, limits.perAccountAndAddress);
      if (!pair.allowed) throw tooMany(pair.retryAfterSeconds);
      const fromAddress = await hit(`${name}:address:${address}`, limits.perAddress);
      if (!fromAddress.allowed) {
        await uncountAll();
        throw tooMany(fromAddress.retryAfterSeconds);
      }
      // Counted without a limit of its own: what it refuses depends on the address's history.
      const onAccount = await hit(`${name}:account:${account}`, Number.MAX_SAFE_INTEGER);
      const accountUnderAttack = onAccount.used - 1 >= limits.perAccount;
      const addressFailedBefore = pair.used - 1 > 1e-9;
      if (accountUnderAttack && addressFailedBefore) {
        await uncountAll();
        throw tooMany(pair.resetSeconds);
      }
      if (!limits.accountDelay) return { succeeded: uncountAll };
      const waitSeconds = await claimAccountAttempt(db, name, account, limits.accountDelay, new Date(now));
      if (waitSeconds !== undefined) {
        await uncountAll();
        throw tooMany(waitSeconds);
      }
      return {
        async succeeded() {
          await uncountAll();
          await db.signInDelay.deleteMany({ where: { throttle: name, account } });
        },
      };
    },
  };
}

/**
 * Counts an attempt on the account as a failure (taken back on success) if its wait is over,
 * setting the next wait once `free` failures are behind it; otherwise the seconds left to wait.
 */
async function claimAccountAttempt(
  db: Db,
  throttle: string,
  account: string,
  delay: AccountDelay,
  now: Date,
): Promise<number | undefined> {
  const quietSince = new Date(now.getTime() - delay.quietSeconds * 1000);
  sweepQuietAccounts(db, throttle, quietSince);
  const claimed = await db.$executeRaw`
    insert into sign_in_delays as d (throttle, account, failures, last_failure_at, next_attempt_at)
    values (${throttle}, ${account}, 1, ${now}, ${now})
    on conflict (throttle, account) do update set
      failures = case when d.last_failure_at <= ${quietSince} then 1 else d.failures + 1 end,
      last_failure_at = ${now},
      next_attempt_at = case when d.last_failure_at <= ${quietSince} or d.failures < ${delay.free} then ${now}::timestamptz
        else ${now}::timestamptz + make_interval(secs => least(${delay.maxSeconds}::float8, power(2, d.failures - ${delay.free})))
      end
    where d.next_attempt_at <= ${now} or d.last_failure_at <= ${quietSince}`;
  if (claimed === 1) return undefined;
  const row = await db.signInDelay.findUnique({
    where: { throttle_account: { throttle, account } },
    select: { nextAttemptAt: true },
  });
  return Math.max(1, Math.ceil(((row?.nextAttemptAt.getTime() ?? now.getTime()) - now.getTime()) / 1000));
}

const lastSweep = new WeakMap<Db, number>();

/** At most once a minute per process: accounts quiet long enough are forgotten (sprayed emails too). */
function sweepQuietAccounts(db: Db, throttle: string, quietSince: Date): void {
  const now = Date.now();
  if (now - (lastSweep.get(db) ?? 0) < 60_000) return;
  lastSweep.set(db, now);
  db.signInDelay
    .deleteMany({ where: { throttle, lastFailureAt: { lte: quietSince } } })
    .catch((error: unknown) => logger().error({ err: error }, "Sweeping quiet sign-in delays failed"));
}

export function tooMany(retryAfterSeconds = 60): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new AppError(
    "rate_limited",
    `Too many sign-in attempts. Try again in ${seconds} s.`,
    { retryAfterSeconds: seconds },
    { headers: { "Retry-After": String(seconds) } },
  );
}
