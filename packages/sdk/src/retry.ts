// When the SDK retries and how long it waits: exponential backoff with jitter (0.5 s, 1 s, 2 s, ...
// up to 8 s), or exactly the server's Retry-After when it sends one, as the OpenAI SDK does.
import { parseRetryAfterSeconds } from "./errors.js";

export const INITIAL_RETRY_DELAY_MS = 500;
export const MAX_RETRY_DELAY_MS = 8_000;
/** A Retry-After longer than this is not waited for: the error is thrown at once. */
export const MAX_RETRY_AFTER_SECONDS = 60;

/** The backoff before retry number `retry` (0 for the first): 0.5 s · 2^retry, at most 8 s, less up to 25 % jitter. */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  return Math.min(INITIAL_RETRY_DELAY_MS * 2 ** retry, MAX_RETRY_DELAY_MS) * (1 - 0.25 * random());
}

/**
 * How long to wait before retry number `retry` after an answer with `headers` (null when no answer
 * came): the server's Retry-After when it sends one, else the backoff; null when Retry-After asks
 * for longer than a minute, which is not worth holding the caller for.
 */
export function retryDelayMs(
  retry: number,
  headers: Headers | null,
  now: number = Date.now(),
  random: () => number = Math.random,
): number | null {
  const retryAfter = headers ? parseRetryAfterSeconds(headers, now) : null;
  if (retryAfter === null) return backoffMs(retry, random);
  if (retryAfter > MAX_RETRY_AFTER_SECONDS) return null;
  return retryAfter * 1000;
}

const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

/**
 * Whether a request may be sent again: the idempotent methods, and a POST that carries an
 * Idempotency-Key (the server replays its first success instead of writing twice). PATCH never:
 * the server takes no key on it, and a patch applied twice is not the patch once.
 */
export function isRetryableRequest(method: string, headers: Headers): boolean {
  return IDEMPOTENT_METHODS.has(method) || (method === "POST" && headers.has("idempotency-key"));
}

/**
 * Whether an error answer is worth retrying: 408, 429 and 5xx. A 409 too, but only on a retry of a
 * POST: the first attempt, cut off, may still be running with the same key on the server, which
 * answers 409 until it ends; a 409 on a first attempt is a real conflict.
 */
export function isRetryableStatus(status: number, method: string, attempt: number): boolean {
  if (status === 408 || status === 429 || status >= 500) return true;
  return status === 409 && method === "POST" && attempt > 0;
}
