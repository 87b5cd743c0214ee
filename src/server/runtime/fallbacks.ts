// When a model call may be tried again (the contract's "Fallbacks"): a call that failed before
// any output because the provider was busy or down (429, 408, 5xx), timed out or could not be
// reached is retried once, after the provider's Retry-After (at most 10 s) or 1 s, then the
// agent's next fallback model is called. A refusal the provider means (400, 401, 404, ...) and
// anything of the run's own (a bound, a cancel, credits) is not retried.
import { isAppError } from "@/server/errors";

/** The longest Retry-After honoured; a provider asking for more is tried again after this. */
export const MAX_RETRY_AFTER_MS = 10_000;
/** The pause before a retry when the provider names none. */
export const DEFAULT_RETRY_MS = 1_000;

interface ProviderFailure {
  statusCode?: number;
  responseHeaders?: Record<string, string>;
}

/** The provider's own error behind the run's provider_error (the AI SDK's APICallError, a fetch failure, a timeout). */
function providerCause(error: unknown): ProviderFailure | null {
  if (!isAppError(error) || error.code !== "provider_error") return null;
  const cause = (error as Error & { cause?: unknown }).cause;
  return typeof cause === "object" && cause !== null ? (cause as ProviderFailure) : {};
}

/** Whether a failed call (the run's error for it) may be tried again, on the same model or the next. */
export function mayRetry(error: unknown): boolean {
  const cause = providerCause(error);
  if (!cause) return false;
  const status = cause.statusCode;
  // No status: the provider could not be reached, or did not answer in time.
  return status === undefined || status === 408 || status === 429 || status >= 500;
}

/** How long to wait before trying the same model again: its Retry-After (seconds or a date), at most 10 s; else 1 s. */
export function retryDelayMs(error: unknown, now = Date.now()): number {
  const header = providerCause(error)?.responseHeaders?.["retry-after"];
  if (header === undefined) return DEFAULT_RETRY_MS;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  if (!Number.isFinite(ms)) return DEFAULT_RETRY_MS;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

// ---- The circuit breaker ----
// A model that failed CIRCUIT_FAILURES times (retryable failures, per organization) within
// CIRCUIT_WINDOW_MS is skipped by the next answers of that organization while it has a fallback,
// so a dead provider does not cost every turn its retries and time-outs. In process memory: each
// server process learns on its own, and an answer from the model closes its circuit again.

export const CIRCUIT_FAILURES = 5;
export const CIRCUIT_WINDOW_MS = 60_000;

const failuresByModel = new Map<string, number[]>();

function circuitKey(organizationId: string, modelId: string): string {
  return `${organizationId}\u0000${modelId}`;
}

function recentFailures(key: string, now: number): number[] {
  const recent = (failuresByModel.get(key) ?? []).filter((at) => now - at < CIRCUIT_WINDOW_MS);
  if (recent.length) failuresByModel.set(key, recent);
  else failuresByModel.delete(key);
  return recent;
}

/** A retryable failure of the model's call. */
export function noteFailure(organizationId: string, modelId: string, now = Date.now()): void {
  const key = circuitKey(organizationId, modelId);
  failuresByModel.set(key, [...recentFailures(key, now), now].slice(-CIRCUIT_FAILURES));
}

/** The model answered: its circuit closes. */
export function noteSuccess(organizationId: string, modelId: string): void {
  failuresByModel.delete(circuitKey(organizationId, modelId));
}

/** Whether the model is skipped for now (it failed CIRCUIT_FAILURES times in the last minute). */
export function circuitOpen(organizationId: string, modelId: string, now = Date.now()): boolean {
  return recentFailures(circuitKey(organizationId, modelId), now).length >= CIRCUIT_FAILURES;
}

/** The models to try, in order: those whose circuit is open left out, unless that leaves none. */
export function modelsToTry<M extends { id: string }>(organizationId: string, models: [M, ...M[]]): [M, ...M[]] {
  const open = models.filter((model) => !circuitOpen(organizationId, model.id));
  return open.length > 0 ? (open as [M, ...M[]]) : models;
}
