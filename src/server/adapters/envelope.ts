// The response every door sends on failure: `{error:{code,message,...}}` with the status from
// errors.ts, the error's own headers and X-Request-Id. Door-neutral: REST, upload, MCP, portal,
// console, metrics and the catch-all routes all import it from here.
import { requestIdFrom } from "@/lib/request-id";
import { logIfUnexpected, type AppError } from "@/server/errors";
import { textResponse } from "./text-response";

export function requestIdFor(request: Request): string {
  return requestIdFrom(request.headers.get("x-request-id"));
}

export function errorResponse(error: AppError, requestId: string, headers: HeadersInit = {}): Response {
  logIfUnexpected(error);
  // Merged case-insensitively: a plain object spread would send `x-request-id` twice.
  const merged = new Headers(headers);
  for (const [name, value] of Object.entries(error.headers)) merged.set(name, value);
  merged.set("X-Request-Id", requestId);
  merged.set("Content-Type", "application/json");
  return textResponse(JSON.stringify({ error: error.toBody() }), { status: error.status, headers: merged });
}
