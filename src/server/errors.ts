// The one error type services throw, and the one table from error code to HTTP status.
import { logThrottled } from "@/server/observability/log";

export const ERROR_STATUS = {
  unauthorized: 401,
  invalid_api_key: 401,
  api_key_revoked: 401,
  member_removed: 401,
  /** An embed token that is forged, expired, too long-lived, for another portal, or names no usable end user. */
  invalid_embed_token: 401,
  insufficient_credits: 402,
  member_key_required: 403,
  api_disabled: 403,
  feature_not_available: 403,
  insufficient_scope: 403,
  forbidden_role: 403,
  groups_disabled: 403,
  /** An end user's run would call a model none of their plans allows (`models`: the ids refused). */
  model_not_in_plan: 403,
  service_disabled: 403,
  plan_limit: 403,
  cross_origin_request: 403,
  /** An embed request from an origin the portal does not allow (or a portal whose embedding is off). */
  origin_not_allowed: 403,
  /** A mailed export link opened by an end user other than the one it was sent to. */
  export_link_other_user: 403,
  invalid_request: 400,
  grants_unsupported: 400,
  portal_scope_unsupported: 400,
  invalid_code: 400,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  /** Only in a conversation stream's `error` event: the run was stopped by its cancel endpoint. */
  canceled: 409,
  deleted_identity: 409,
  live_paid_subscription: 409,
  directory_managed: 409,
  /** An invitation link that was used, revoked or has expired; `reason` says which. */
  invitation_unavailable: 410,
  /** A mailed export link that was used or has expired; `reason` says which. */
  export_link_unavailable: 410,
  /** If-Match names a version other than the current one (drafts, pages). */
  precondition_failed: 412,
  export_too_large: 413,
  group_not_found: 422,
  plan_group: 422,
  tier_not_found: 422,
  grant_target_not_found: 422,
  end_user_not_found: 422,
  /** A builder draft names an agent, flow, knowledgebase or MCP connection the organization does not have. */
  agent_not_found: 422,
  flow_not_found: 422,
  knowledgebase_not_found: 422,
  mcp_connection_not_found: 422,
  /** `version` on a conversation or transaction names no version of that app. */
  version_not_found: 422,
  invalid_workflow: 422,
  invalid_model: 422,
  unpublished_dependencies: 422,
  run_limit_exceeded: 422,
  /** A chat attachment of a type chats do not take, unreadable, or an image for an app whose models read none. */
  unsupported_attachment: 422,
  rate_limited: 429,
  server_error: 500,
  output_invalid: 502,
  provider_error: 502,
  search_unavailable: 503,
  /** The database cannot be reached (stopped, restarting, out of connections); with Retry-After. */
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** Fields some codes carry inside the envelope's `error` object (limit, used, problems, ...). */
export type ErrorExtra = Record<string, unknown>;

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  [extra: string]: unknown;
}

export interface AppErrorOptions {
  /** Only for codes the reference gives two statuses (plan_group 409, invalid_request 413/415). */
  status?: number;
  /** Response headers that belong to the error (Retry-After on rate_limited). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  override readonly name = "AppError";
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: ErrorExtra = {},
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.status = options.status ?? ERROR_STATUS[code];
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, ...this.extra };
  }
}

/** The refusal of a call whose session (a member's or an end user's) is gone or was ended. */
export function sessionEnded(): AppError {
  return new AppError("unauthorized", "Your session has ended; sign in again.");
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof Error && value.name === "AppError" && "code" in value && "status" in value;
}

export interface Problem {
  path: string;
  message: string;
}

/** A zod-like issue list turned into `invalid_request` naming every problem. */
export function invalidRequest(problems: Problem[], status?: number): AppError {
  const first = problems[0];
  const summary = first ? (first.path ? `${first.path}: ${first.message}` : first.message) : "Invalid request";
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})` : "";
  return new AppError("invalid_request", `Invalid request: ${summary}${more}`, { problems }, { status });
}

interface IssueLike {
  code?: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

export function problemsFromIssues(issues: readonly IssueLike[]): Problem[] {
  return issues.flatMap((issue) => {
    const base = issue.path.map(String);
    if (issue.code === "unrecognized_keys" && issue.keys?.length) {
      return issue.keys.map((key) => ({ path: [...base, key].join("."), message: "Unknown field" }));
    }
    return [{ path: base.join("."), message: issue.message }];
  });
}

function isZodError(value: unknown): value is Error & { issues: IssueLike[] } {
  return value instanceof Error && value.name === "ZodError" && Array.isArray((value as { issues?: unknown }).issues);
}

// PostgreSQL refuses U+0000 (22021 in text, 22P05 in jsonb); Prisma's engine refuses unpaired
// surrogates while it serializes a query. Doors refuse such text first, naming the field; this is
// the last line of defence, so it never reaches a client as a 500 (or a "retry" 503).
const UNSTORABLE_TEXT_CODES = new Set(["22021", "22P05"]);
const UNSTORABLE_TEXT_MESSAGES =
  /invalid byte sequence for encoding|unsupported Unicode escape sequence|unexpected end of hex escape|lone (leading|trailing) surrogate/i;

export function isUnstorableTextError(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error; current !== null && typeof current === "object" && !seen.has(current);) {
    seen.add(current);
    const { code, message, meta, cause } = current as {
      code?: unknown;
      message?: unknown;
      meta?: { driverAdapterError?: unknown };
      cause?: unknown;
    };
    if (typeof code === "string" && UNSTORABLE_TEXT_CODES.has(code)) return true;
    if (typeof message === "string" && UNSTORABLE_TEXT_MESSAGES.test(message)) return true;
    current = meta?.driverAdapterError ?? cause;
  }
  return false;
}

/**
 * The one mapping from anything thrown to an AppError. Checks names and codes rather than
 * instanceof, because bundling can load two copies of a module.
 */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  if (isZodError(error)) return invalidRequest(problemsFromIssues(error.issues));
  if (error instanceof Error && error.name === "TRPCError") {
    const cause = (error as Error & { cause?: unknown }).cause;
    if (isAppError(cause) || isZodError(cause)) return toAppError(cause);
    const trpcCode = (error as Error & { code?: string }).code;
    switch (trpcCode) {
      case "PARSE_ERROR":
        return new AppError("invalid_request", "Invalid request: the body is not valid JSON");
      case "BAD_REQUEST":
        return new AppError("invalid_request", `Invalid request: ${error.message}`);
      case "UNSUPPORTED_MEDIA_TYPE":
        return new AppError(
          "invalid_request",
          "Invalid request: send the body as application/json",
          {},
          { status: 415 },
        );
      case "PAYLOAD_TOO_LARGE":
        return new AppError("invalid_request", "Invalid request: the body is too large", {}, { status: 413 });
      case "NOT_FOUND":
        return new AppError("not_found", "Not found");
      case "METHOD_NOT_SUPPORTED":
        return new AppError("method_not_allowed", "Method not allowed");
    }
    if (cause !== undefined) return toAppError(cause);
  }
  if (isUnstorableTextError(error)) {
    return new AppError(
      "invalid_request",
      "Invalid request: a text contains U+0000 or an unpaired UTF-16 surrogate, which cannot be stored.",
      {},
      { cause: error },
    );
  }
  if (databaseUnavailableKind(error)) {
    return new AppError(
      "service_unavailable",
      `The service cannot reach its database at the moment. Retry in ${DATABASE_RETRY_AFTER_SECONDS} seconds.`,
      {},
      { headers: { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) }, cause: error },
    );
  }
  if (isStatementTimeout(error)) {
    return new AppError(
      "service_unavailable",
      `The database took too long to answer this request. Retry in ${DATABASE_RETRY_AFTER_SECONDS} seconds.`,
      {},
      { headers: { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) }, cause: error },
    );
  }
  const prismaCode = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && error.name.startsWith("PrismaClient")) {
    if (prismaCode === "P2025") return new AppError("not_found", "Not found");
    if (isUniqueViolation(error)) return new AppError("conflict", "A record with these values already exists");
  }
  return new AppError("server_error", "Something went wrong on our side. It is safe to retry.", {}, { cause: error });
}

/** A unique constraint refused the write (Prisma's P2002): services turn it into their own `conflict`. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "P2002";
}

/** What a client is told to wait before retrying when the database is away (a restart takes seconds). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

// Failures of the connection, not of the query: the server is down, restarting, shutting down or
// full, or the connection broke. Socket errors (pg's own, or inside an AggregateError), SQLSTATEs
// of class 08 that mean a lost or refused connection and 57P01-57P03 (administrator, crash or
// startup shutdown) and 53300 (too many connections), Prisma's P1001/P1002/P1017/P2024, the
// driver adapter's kinds, and pg's messages that carry no code.
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "P1001",
  "P1002",
  "P1017",
  "P2024",
]);
const UNAVAILABLE_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end)/;

interface ErrorLink {
  code?: unknown;
  originalCode?: unknown;
  kind?: unknown;
  message?: unknown;
}

/** The first non-null answer of `check` over an error, its causes, an adapter error and an AggregateError's errors. */
function searchErrorChain<T>(error: unknown, check: (link: ErrorLink) => T | null): T | null {
  const seen = new Set<unknown>();
  const pending = [error];
  while (pending.length) {
    const current = pending.pop();
    if (current === null || typeof current !== "object" || seen.has(current)) continue;
    seen.add(current);
    const found = check(current as ErrorLink);
    if (found !== null) return found;
    const { meta, cause, errors } = current as {
      meta?: { driverAdapterError?: unknown };
      cause?: unknown;
      errors?: unknown;
    };
    pending.push(meta?.driverAdapterError, cause, ...(Array.isArray(errors) ? errors : []));
  }
  return null;
}

/** Why the database could not answer ("ECONNREFUSED", "57P01", "DatabaseNotReachable", ...), or null for any other failure. */
export function databaseUnavailableKind(error: unknown): string | null {
  return searchErrorChain(error, ({ code, kind, message }) => {
    if (typeof code === "string" && UNAVAILABLE_CODES.has(code)) return code;
    if (typeof kind === "string" && UNAVAILABLE_KINDS.has(kind)) return kind;
    if (typeof message === "string" && UNAVAILABLE_MESSAGES.test(message)) return message.split(/[.:]/)[0]!;
    return null;
  });
}

/** PostgreSQL cancelled the statement (SQLSTATE 57014): the DATABASE_STATEMENT_TIMEOUT_MS backstop, or a cancel. */
export function isStatementTimeout(error: unknown): boolean {
  return (
    searchErrorChain(error, ({ code, originalCode }) => code === "57014" || originalCode === "57014" || null) ?? false
  );
}

/**
 * Doors call this once per failed request: unexpected failures are logged, never sent. One line
 * per kind of failure every few seconds (logThrottled), so an outage is a few lines, not one
 * stack trace per request.
 */
export function logIfUnexpected(error: AppError): void {
  if (error.code === "service_unavailable") {
    const kind =
      databaseUnavailableKind(error.cause) ?? (isStatementTimeout(error.cause) ? "statement_timeout" : "unknown");
    logThrottled(
      "error",
      `database_unavailable:${kind}`,
      { event: "database_unavailable", reason: kind },
      `The database is unavailable (${kind}); requests answer 503`,
    );
  } else if (error.code === "server_error") {
    const cause = error.cause ?? error;
    const signature =
      cause instanceof Error
        ? `${cause.name}:${(cause as { code?: unknown }).code ?? ""}:${cause.message.trim().split("\n")[0]}`
        : String(cause);
    logThrottled("error", `server_error:${signature.slice(0, 200)}`, { err: cause }, "Unexpected error");
  }
}
