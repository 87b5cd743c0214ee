// Downloads the OpenAPI handler cannot serve: the audit log's export (GET /audit-events/export,
// and the console's GET /api/console/audit-events/export for a signed-in admin), the query checked
// with the procedure's schema, then the service's lines written as they are read, so the
// whole log is never held in memory; and an attached file's bytes (GET /files/{fileId}/content).
import { FileIdInput } from "@/schemas/runs/attachment";
import { ExportAuditEventsInput } from "@/schemas/org/audit";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import { rateLimitHeaders, type RateLimitResult } from "@/server/auth/rate-limit";
import type { Db } from "@/server/db";
import { getFileContent } from "@/server/services/runs/attachments";
import { exportAuditEvents } from "@/server/services/org/audit-log";
import { streamEndUserExport } from "@/server/services/provisioning/end-user-export";
import { EndUserIdInput } from "@/schemas/provisioning/provisioning";

const CONTENT_TYPES = { jsonl: "application/x-ndjson", csv: "text/csv; charset=utf-8" } as const;

/** `rateLimit` is the API key's (REST); the console's download has none. */
export async function downloadResponse(
  db: Db,
  actor: Actor,
  rateLimit: RateLimitResult | null,
  request: Request,
  requestId: string,
): Promise<Response> {
  const query = Object.fromEntries(new URL(request.url).searchParams);
  const input = ExportAuditEventsInput.parse(query);
  const lines = await exportAuditEvents(db, actor, input);
  const body = textStream(lines);
  const headers = new Headers(rateLimit ? rateLimitHeaders(rateLimit) : {});
  headers.set("X-Request-Id", requestId);
  headers.set("Content-Type", CONTENT_TYPES[input.format]);
  headers.set("Content-Disposition", `attachment; filename="audit-events.${input.format}"`);
  headers.set("Cache-Control", "no-store");
  return new Response(request.method === "HEAD" ? null : body, { status: 200, headers });
}

/** Pieces of text as a byte stream, pulled as the client reads; a client gone ends the source. */
export function textStream(pieces: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await pieces.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await pieces.return(undefined);
    },
  });
}

/**
 * `GET /end-users/{endUserId}/export`: the document written as it is read (services/provisioning/end-user-export.ts),
 * so an end user's long history is never held whole. A refusal comes before the first byte.
 */
export async function endUserExportResponse(
  db: Db,
  actor: Actor,
  pathParams: Record<string, string> | undefined,
  request: Request,
  headers: Headers,
): Promise<Response> {
  const pieces = await streamEndUserExport(db, actor, EndUserIdInput.parse({ ...pathParams }));
  headers.set("Content-Type", "application/json; charset=utf-8");
  headers.set("Cache-Control", "no-store");
  if (request.method === "HEAD") {
    await pieces.return(undefined);
    return new Response(null, { status: 200, headers });
  }
  return new Response(textStream(pieces), { status: 200, headers });
}

/**
 * `Content-Disposition: attachment` naming the file: an ASCII `filename` (other characters,
 * quotes and backslashes as `_`) for old clients, and the exact name as `filename*` (RFC 6266).
 */
export function attachmentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  const exact = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/**
 * An attached file as it was uploaded, to those who may read it (services/runs/attachments.ts), for
 * every door that serves it (REST, the console's and the portal's chats) with the door's own
 * headers: always a download, under the type stored at upload, never sniffed into another (an
 * HTML page sent as text stays text), and never cached by a shared cache.
 */
export async function fileDownloadResponse(
  db: Db,
  caller: Actor | EndUserActor,
  pathParams: Record<string, string> | undefined,
  request: Request,
  headers: Headers,
): Promise<Response> {
  const file = await getFileContent(db, caller, FileIdInput.parse({ ...pathParams }));
  headers.set("Content-Type", file.contentType);
  headers.set("Content-Length", String(file.bytes.byteLength));
  headers.set("Content-Disposition", attachmentDisposition(file.name));
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Cache-Control", "private, no-store");
  return new Response(request.method === "HEAD" ? null : Buffer.from(file.bytes), { status: 200, headers });
}
