// Every request the SDK sends goes through `send`: it adds an Idempotency-Key to a POST (one per
// call, the same on each of its retries), times each attempt out, retries what may be retried
// (retry.ts) after the backoff or the server's Retry-After, and turns a failure into an error class.
import { ConnectionError, TimeoutError, errorFromAnswer, type AtriumError } from "./errors.js";
import { isRetryableRequest, isRetryableStatus, retryDelayMs } from "./retry.js";

export const DEFAULT_MAX_RETRIES = 2;
/** Longer than the longest run (2 minutes), so a JSON conversation turn is not cut off. */
export const DEFAULT_TIMEOUT_MS = 180_000;

/** Options every call takes, overriding the client's. */
export interface RequestOptions {
  /** Milliseconds each attempt may take until its answer has arrived (for a stream: until it starts). */
  timeout?: number;
  /** Retries after a connection error, a timeout, 408, 429 or 5xx (0 turns them off). */
  maxRetries?: number;
  /** For a POST: the Idempotency-Key to send (by default the SDK makes one per call). */
  idempotencyKey?: string;
}

export interface SendOptions extends RequestOptions {
  /** Reads the whole body within the timeout (false for streams, which are read as they come). */
  buffer?: boolean;
}

export type Send = (request: Request, options?: SendOptions) => Promise<Response>;

export function createSend(defaults: {
  fetch: (request: Request) => Promise<Response>;
  maxRetries?: number;
  timeout?: number;
}): Send {
  return async function send(template, options = {}) {
    const maxRetries = options.maxRetries ?? defaults.maxRetries ?? DEFAULT_MAX_RETRIES;
    const timeout = options.timeout ?? defaults.timeout ?? DEFAULT_TIMEOUT_MS;
    const headers = new Headers(template.headers);
    if (template.method === "POST" && !headers.has("idempotency-key"))
      headers.set("Idempotency-Key", options.idempotencyKey ?? crypto.randomUUID());
    const retryable = isRetryableRequest(template.method, headers);
    const userSignal = template.signal;

    for (let attempt = 0; ; attempt++) {
      let failure: AtriumError;
      let answerHeaders: Headers | null = null;
      try {
        const request = new Request(template.clone(), { headers });
        const response = await attemptOnce(defaults.fetch, request, userSignal, timeout, options.buffer ?? true);
        if (response.ok) return response;
        answerHeaders = response.headers;
        failure = errorFromAnswer(response.status, response.headers, await response.text());
      } catch (error) {
        if (userSignal.aborted) throw userSignal.reason;
        failure = error instanceof ConnectionError ? error : new ConnectionError(describe(error), { cause: error });
      }
      const again =
        retryable &&
        attempt < maxRetries &&
        (failure.status === null || isRetryableStatus(failure.status, template.method, attempt));
      const delay = again ? retryDelayMs(attempt, answerHeaders) : null;
      if (delay === null) throw failure;
      await sleep(delay, userSignal);
    }
  };
}

/**
 * One attempt under its own timeout; the user's abort passes through as it is. The attempt is raced
 * against the timeout and the abort as well as handed their signal: undici's Request follows a
 * signal only while the Request it was built from stays reachable, so after a garbage collection
 * an abort may never reach the fetch (the attempt would hang past its timeout).
 */
async function attemptOnce(
  fetch: (request: Request) => Promise<Response>,
  request: Request,
  userSignal: AbortSignal,
  timeoutMs: number,
  buffer: boolean,
): Promise<Response> {
  const timer = new AbortController();
  let timeout: ReturnType<typeof setTimeout> | undefined;
  let onUserAbort = () => {};
  const stopped = new Promise<never>((_, reject) => {
    timeout = setTimeout(() => {
      const reason = new TimeoutError(timeoutMs);
      timer.abort(reason);
      reject(reason);
    }, timeoutMs);
    onUserAbort = () => reject(userSignal.reason as Error);
    userSignal.addEventListener("abort", onUserAbort, { once: true });
  });
  const answer = async () => {
    const response = await fetch(new Request(request, { signal: AbortSignal.any([userSignal, timer.signal]) }));
    if (!buffer && response.ok) return response;
    // Read within the timeout: a body cut off or stalled is a failed attempt, retried like any other.
    const body = await response.arrayBuffer();
    return new Response(response.status === 204 || response.status === 304 ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  try {
    return await Promise.race([answer(), stopped]);
  } catch (error) {
    if (timer.signal.aborted && !userSignal.aborted) throw timer.signal.reason;
    throw error;
  } finally {
    clearTimeout(timeout);
    userSignal.removeEventListener("abort", onUserAbort);
  }
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const detail = typeof cause?.code === "string" ? cause.code : typeof cause?.message === "string" ? cause.message : "";
  const message = error instanceof Error ? error.message : String(error);
  return `Connection failed: ${message}${detail ? ` (${detail})` : ""}`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
