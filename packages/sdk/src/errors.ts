// The SDK's errors: one class per kind of failure, as the Stripe and OpenAI SDKs have them, each
// with the envelope's stable `code`, the HTTP `status`, the `requestId` to quote to support and
// the code's own fields. `instanceof` picks the kind; `is(code)` narrows `extras` to that code's.
import type { components } from "./schema.js";

type Schemas = components["schemas"];
/** Every code the server sends in its error envelope. */
export type ErrorCode = Schemas["ErrorBody"]["code"];
/** The server's codes, and the SDK's own two for failures that have no HTTP answer. */
export type AtriumErrorCode = ErrorCode | "connection_error" | "timeout";

type CodeSchema<C extends ErrorCode> = Extract<Schemas[keyof Schemas], { code: C; message: string }>;
/** The fields a code carries beside `code` and `message` (e.g. `plan_limit`: `limit`, `used`). */
export type ErrorExtras<C extends ErrorCode> = {
  [K in keyof CodeSchema<C> as string extends K ? never : K extends "code" | "message" ? never : K]: CodeSchema<C>[K];
} & Record<string, unknown>;
export type Problem = { path: string; message: string };

/** Any failure the SDK reports: an HTTP error answer, a connection that failed, or a timeout. */
export class AtriumError extends Error {
  override name = "AtriumError";
  constructor(
    /** The HTTP status, or null when no answer came (ConnectionError, TimeoutError). */
    readonly status: number | null,
    readonly code: AtriumErrorCode,
    message: string,
    /** The code's fields from the envelope (`problems`, `limit`, `used`, `feedback`, ...). */
    readonly extras: Record<string, unknown> = {},
    /** The answer's `X-Request-Id`, to quote when asking for help. */
    readonly requestId: string | null = null,
    /** The answer's headers (empty when none came). */
    readonly headers: Headers = new Headers(),
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Narrows to one code, typing its extras: `if (error.is("plan_limit")) error.extras.limit`. */
  is<C extends ErrorCode>(code: C): this is this & { code: C; extras: ErrorExtras<C> } {
    return this.code === code;
  }
}

/** 400, 413, 415: the request itself is wrong; `problems` names every field at fault. */
export class ValidationError extends AtriumError {
  override name = "ValidationError";
  declare readonly status: number;
  get problems(): Problem[] {
    return Array.isArray(this.extras.problems) ? (this.extras.problems as Problem[]) : [];
  }
}
/** 401: the key is missing, unknown, revoked, or its member left. */
export class AuthenticationError extends AtriumError {
  override name = "AuthenticationError";
  declare readonly status: number;
}
/** 402 `insufficient_credits`: nothing ran, nothing was charged. */
export class InsufficientCreditsError extends AtriumError {
  override name = "InsufficientCreditsError";
  declare readonly status: number;
}
/** 403: a scope, role, feature or plan limit refuses it (`plan_limit` carries `limit` and `used`). */
export class PermissionError extends AtriumError {
  override name = "PermissionError";
  declare readonly status: number;
}
/** 404. */
export class NotFoundError extends AtriumError {
  override name = "NotFoundError";
  declare readonly status: number;
}
/** 409: a conflicting state, or an Idempotency-Key reused with another body; `canceled` on a stopped run. */
export class ConflictError extends AtriumError {
  override name = "ConflictError";
  declare readonly status: number;
}
/** 412 `precondition_failed`: If-Match names a version other than the current one. */
export class PreconditionFailedError extends AtriumError {
  override name = "PreconditionFailedError";
  declare readonly status: number;
}
/** 422: the request is well-formed but names what does not exist or cannot run (`feedback`, `dependencies`, ...). */
export class UnprocessableError extends AtriumError {
  override name = "UnprocessableError";
  declare readonly status: number;
}
/** 429 `rate_limited`, after the SDK's retries; `retryAfter` is the server's Retry-After in seconds. */
export class RateLimitError extends AtriumError {
  override name = "RateLimitError";
  declare readonly status: number;
  get retryAfter(): number | null {
    const seconds = parseRetryAfterSeconds(this.headers);
    return seconds === null ? null : Math.ceil(seconds);
  }
}
/** 5xx, after the SDK's retries: `server_error`, `provider_error`, `service_unavailable`, ... */
export class ServerError extends AtriumError {
  override name = "ServerError";
  declare readonly status: number;
}
/** No answer: the connection was refused, reset or dropped (after the SDK's retries). `cause` is the underlying error. */
export class ConnectionError extends AtriumError {
  override name = "ConnectionError";
  declare readonly status: null;
  constructor(message: string, options?: { cause?: unknown; code?: "connection_error" | "timeout" }) {
    super(null, options?.code ?? "connection_error", message, {}, null, new Headers(), options);
  }
}
/** No answer within the timeout (after the SDK's retries). */
export class TimeoutError extends ConnectionError {
  override name = "TimeoutError";
  constructor(timeoutMs: number) {
    super(`No answer within ${timeoutMs} ms`, { code: "timeout" });
  }
}

/** Retry-After (seconds or an HTTP date; `retry-after-ms` first) in seconds, or null when absent or unreadable. */
export function parseRetryAfterSeconds(headers: Headers, now = Date.now()): number | null {
  const milliseconds = headers.get("retry-after-ms");
  if (milliseconds !== null && /^\s*\d+(\.\d+)?\s*$/.test(milliseconds)) return Number(milliseconds) / 1000;
  const value = headers.get("retry-after")?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value);
  // An HTTP date names its day and month ("Fri, 04 Dec 2026 12:00:03 GMT"); "-3" is no date.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(date)) return null;
  return Math.max(0, (date - now) / 1000);
}

type HttpErrorClass = new (...args: ConstructorParameters<typeof AtriumError>) => AtriumError;

function classFor(status: number): HttpErrorClass {
  if (status === 400 || status === 413 || status === 415) return ValidationError;
  if (status === 401) return AuthenticationError;
  if (status === 402) return InsufficientCreditsError;
  if (status === 403) return PermissionError;
  if (status === 404) return NotFoundError;
  if (status === 409) return ConflictError;
  if (status === 412) return PreconditionFailedError;
  if (status === 422) return UnprocessableError;
  if (status === 429) return RateLimitError;
  if (status >= 500) return ServerError;
  return AtriumError;
}

/** The error for an envelope `{code, message, ...extras}` answered with `status`. */
export function errorFromEnvelope(
  status: number,
  error: { code: ErrorCode; message: string } & Record<string, unknown>,
  requestId: string | null,
  headers: Headers = new Headers(),
): AtriumError {
  const { code, message, ...extras } = error;
  return new (classFor(status))(status, code, message, extras, requestId, headers);
}

/** The code an answer without our envelope (a proxy's or load balancer's page) is given, by its status. */
const BARE_STATUS_CODES: Partial<Record<number, ErrorCode>> = {
  400: "invalid_request",
  401: "unauthorized",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "invalid_request",
  415: "invalid_request",
  429: "rate_limited",
  503: "service_unavailable",
};

/** The error for a non-2xx answer whose body has been read as `text`. */
export function errorFromAnswer(status: number, headers: Headers, text: string): AtriumError {
  const requestId = headers.get("x-request-id");
  try {
    const { error } = JSON.parse(text) as { error?: { code: ErrorCode; message: string } & Record<string, unknown> };
    if (error && typeof error.code === "string") return errorFromEnvelope(status, error, requestId, headers);
  } catch {
    // Not our envelope (a proxy's page): described by its status below.
  }
  return new (classFor(status))(
    status,
    BARE_STATUS_CODES[status] ?? "server_error",
    `HTTP ${status}`,
    {},
    requestId,
    headers,
  );
}
