// What the portal needs to know about a failed call, from the tRPC door (error.data) or from the
// chat stream (StreamError): the HTTP status, the product's code and the wait on 429; and what
// to tell the end user, in the portal's language.
import type { TFunction } from "i18next";
import { StreamError } from "@/components/chat/stream-reply";

export interface PortalErrorInfo {
  status?: number;
  code?: string;
  message: string;
  retryAfterSeconds?: number;
}

type TrpcErrorData = {
  httpStatus?: number;
  code?: string;
  retryAfterSeconds?: number;
  appError?: { code?: string; retryAfterSeconds?: number };
};

export function portalError(error: unknown): PortalErrorInfo {
  if (error instanceof StreamError) return { status: error.status, code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : "";
  const data = (error as { data?: TrpcErrorData } | null)?.data;
  if (!data) return { message };
  const retryAfterSeconds = data.appError?.retryAfterSeconds ?? data.retryAfterSeconds;
  return {
    status: data.httpStatus,
    code: data.appError?.code ?? data.code,
    message,
    ...(typeof retryAfterSeconds === "number" ? { retryAfterSeconds } : {}),
  };
}

export function isUnauthorized(error: unknown): boolean {
  const info = portalError(error);
  return info.status === 401 || info.code === "unauthorized" || info.code === "UNAUTHORIZED";
}

/**
 * Every code the portal's doors (its tRPC door, the conversation stream, uploads, the embed) may
 * answer, each worded in `errors.<code>` of every language: the end user never reads the server's
 * English. tests/portal-ui/portal-pieces.test.ts walks the server's codes and fails on one that is
 * neither here nor named there as never sent to the portal.
 */
export const PORTAL_ERROR_CODES = [
  "invalid_code",
  "rate_limited",
  "unauthorized",
  "invalid_embed_token",
  "not_found",
  "insufficient_credits",
  "service_disabled",
  "model_not_in_plan",
  "plan_limit",
  "feature_not_available",
  "origin_not_allowed",
  "cross_origin_request",
  "invalid_request",
  "conflict",
  "canceled",
  "deleted_identity",
  "version_not_found",
  "invalid_workflow",
  "unpublished_dependencies",
  "run_limit_exceeded",
  "unsupported_attachment",
  "server_error",
  "output_invalid",
  "provider_error",
  "search_unavailable",
  "service_unavailable",
  // A mailed export link's refusals (the portal's Your data).
  "export_link_unavailable",
  "export_link_other_user",
  // Only in a conversation stream's final `error` event (runtime/run-leases.ts).
  "run_lost",
  "server_shutdown",
  // The browser's own: a stream that ended without its last event.
  "connection_lost",
] as const;
type WordedCode = (typeof PORTAL_ERROR_CODES)[number];

function isWorded(code: string | undefined): code is WordedCode {
  return (PORTAL_ERROR_CODES as readonly (string | undefined)[]).includes(code);
}

/** A wait in words: "45 seconds", "2 minutes". */
export function waitInWords(t: TFunction<"portal">, seconds: number): string {
  if (seconds < 60) return t("errors.seconds", { count: Math.max(1, Math.ceil(seconds)) });
  return t("errors.minutes", { count: Math.ceil(seconds / 60) });
}

/**
 * What the end user reads about a failed call, in the portal's language, chosen by its code:
 * throttling says how long to wait, a body too large says so, and anything else (a code the
 * portal does not know, the browser's "Failed to fetch") is the generic sentence, never the
 * server's or the browser's English.
 */
export function portalErrorText(t: TFunction<"portal">, error: unknown): string {
  const info = portalError(error);
  if ((info.status === 429 || info.code === "rate_limited") && info.retryAfterSeconds !== undefined) {
    return t("errors.tooManyAttempts", { wait: waitInWords(t, info.retryAfterSeconds) });
  }
  if (info.status === 413) return t("errors.tooLarge");
  if (isWorded(info.code)) return t(`errors.${info.code}`);
  return t("errors.generic");
}
