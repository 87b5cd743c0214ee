// What the portal needs to know about a failed call, from the tRPC door (error.data) or from the
// chat stream (StreamError): the HTTP status, the product's code and the wait on 429.
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
  const message = error instanceof Error ? error.message : "Something went wrong.";
  const data = (error as { data?: TrpcErrorData } | null)?.data;
  if (!data) return { message };
  const retryAfterSeconds = data.appError?.retryAfterSeconds ?? data.retryAfterSeconds;
  return { status: data.httpStatus, code: data.appError?.code ?? data.code, message, ...(typeof retryAfterSeconds === "number" ? { retryAfterSeconds } : {}) };
}

export function isUnauthorized(error: unknown): boolean {
  const info = portalError(error);
  return info.status === 401 || info.code === "unauthorized" || info.code === "UNAUTHORIZED";
}

/** A wait in words: "45 seconds", "2 minutes". */
export function waitInWords(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.ceil(seconds))} second${Math.ceil(seconds) === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/** The sign-in page's message: throttling says how long to wait. */
export function signInErrorMessage(error: unknown): string {
  const info = portalError(error);
  if (info.status === 429 || info.code === "rate_limited") {
    return info.retryAfterSeconds !== undefined ? `Too many attempts. Try again in ${waitInWords(info.retryAfterSeconds)}.` : info.message;
  }
  return info.message;
}
