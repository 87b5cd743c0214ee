"use client";
import { CircleAlert } from "lucide-react";

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

/** A failed call as a person reads it: the message, and the code and request id for support. */
export function ErrorAlert({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const { message, code, requestId } = errorEnvelope(error);
  return (
    <div role="alert" className="alert">
      <CircleAlert size={18} aria-hidden className="icon" />
      <div className="alert-body">
        {title && (
          <p>
            <strong>{title}</strong>
          </p>
        )}
        <p>{message}</p>
        {(code || requestId) && (
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
