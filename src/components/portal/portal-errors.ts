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

/** The codes the portal words itself; any other shows the server's message. */
const WORDED_CODES = [
  "invalid_code",
  "rate_limited",
  "unauthorized",
  "not_found",
  "insufficient_credits",
  "service_disabled",
  "connection_lost",
  "export_link_unavailable",
  "export_link_other_user",
] as const;
type WordedCode = (typeof WORDED_CODES)[number];

function isWorded(code: string | undefined): code is WordedCode {
  return (WORDED_CODES as readonly (string | undefined)[]).includes(code);
}

/** A wait in words: "45 seconds", "2 minutes". */
export function waitInWords(t: TFunction<"portal">, seconds: number): string {
  if (seconds < 60) return t("errors.seconds", { count: Math.max(1, Math.ceil(seconds)) });
  return t("errors.minutes", { count: Math.ceil(seconds / 60) });
}

/**
 * What the end user reads about a failed call: throttling says how long to wait. A server fault
 * (5xx), or a failure with no answer at all (the browser's "Failed to fetch"), is said in the
 * portal's language rather than in the server's or the browser's English.
 */
export function portalErrorText(t: TFunction<"portal">, error: unknown): string {
  const info = portalError(error);
  if ((info.status === 429 || info.code === "rate_limited") && info.retryAfterSeconds !== undefined) {
    return t("errors.tooManyAttempts", { wait: waitInWords(t, info.retryAfterSeconds) });
  }
  if (isWorded(info.code)) return t(`errors.${info.code}`);
  const fault = info.status === undefined || info.status >= 500;
  return fault || !info.message ? t("errors.generic") : info.message;
}
