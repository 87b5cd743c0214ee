"use client";
import { CircleAlert } from "lucide-react";
import type { ReactNode } from "react";

interface ErrorEnvelope {
  message: string;
  code?: string;
  requestId?: string;
}

/**
 * Reads our error envelope from whatever a call threw: tRPC puts the AppError body and the
 * request id in `error.data` (src/server/trpc/init.ts), a plain Error has only its message, and a
 * string is a message the page wrote itself (a check before sending).
 */
export function errorEnvelope(error: unknown): ErrorEnvelope {
  if (typeof error === "string") return { message: error };
  if (!(error instanceof Error)) return { message: "Something went wrong." };
  const data = (error as { data?: { appError?: { code?: unknown }; requestId?: unknown } }).data;
  const code = typeof data?.appError?.code === "string" ? data.appError.code : undefined;
  const requestId = typeof data?.requestId === "string" ? data.requestId : undefined;
  return { message: error.message, code, requestId };
}

/**
 * The input field a refusal is about, or null: validation names it (`field`, or the path of its
 * first problem, "name" for "name" or "steps.0.title" alike: the top-level field).
 */
export function refusedField(error: unknown): string | null {
  const appError = (error as { data?: { appError?: { field?: unknown; problems?: { path?: unknown }[] } } } | null)
    ?.data?.appError;
  const path = appError?.field ?? appError?.problems?.[0]?.path;
  return typeof path === "string" ? path.split(/[.[]/)[0] || null : null;
}

/**
 * A failed call as a person reads it: the message, and the code and request id for support.
 * `children` add what the person can do about it (a list of failures, a button); with
 * `tone="warning"` it is something to act on rather than a failure; `announceOnly` says the
 * message to screen readers where the page already shows it beside its field.
 */
export function ErrorAlert({
  error,
  title,
  tone = "danger",
  announceOnly = false,
  testId,
  hideMeta = false,
  children,
}: {
  error?: unknown;
  /** A refusal the person caused and can fix themselves (a wrong password): the message alone, no code or request id. */
  hideMeta?: boolean;
  title?: ReactNode;
  tone?: "danger" | "warning";
  announceOnly?: boolean;
  testId?: string;
  children?: ReactNode;
}) {
  if (!error && !children) return null;
  const { message, code, requestId } = error ? errorEnvelope(error) : {};
  if (announceOnly)
    return (
      <p role="alert" className="visually-hidden" data-testid={testId}>
        {message}
      </p>
    );
  return (
    <div role="alert" className={tone === "warning" ? "alert warning" : "alert"} data-testid={testId}>
      <CircleAlert size={18} aria-hidden className="icon" />
      <div className="alert-body">
        {title && (
          <p>
            <strong>{title}</strong>
          </p>
        )}
        {message && <p>{message}</p>}
        {children}
        {!hideMeta && (code || requestId) && (
          <p className="alert-meta">
            {code && (
              <span>
                Code <code>{code}</code>
              </span>
            )}
            {requestId && (
              <span>
                Request <code>{requestId}</code>
              </span>
            )}
          </p>
        )}
      </div>
    </div>
  );
}
