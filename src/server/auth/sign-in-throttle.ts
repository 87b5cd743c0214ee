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
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { hitRateLimit, uncountHit, windowAt, type RateLimitResult } from "./rate-limit";

export interface SignInLimits {
  perAccountAndAddress: number;
  perAddress: number;
  perAccount: number;
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
      return { succeeded: uncountAll };
    },
  };
}

export function tooMany(retryAfterSeconds = 60): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new AppError("rate_limited", `Too many sign-in attempts. Try again in ${seconds} s.`, { retryAfterSeconds: seconds }, { headers: { "Retry-After": String(seconds) } });
}
