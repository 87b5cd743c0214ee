// Downloads the OpenAPI handler cannot stream (GET /audit-events/export, and the console's
// GET /api/console/audit-events/export for a signed-in admin): the query checked
// with the procedure's schema, then the service's lines written as they are read, so the
// whole log is never held in memory.
import { ExportAuditEventsInput } from "@/schemas/audit";
import type { Actor } from "@/server/auth/actor";
import { rateLimitHeaders, type RateLimitResult } from "@/server/auth/rate-limit";
import type { Db } from "@/server/db";
import { exportAuditEvents } from "@/server/services/audit-log";

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
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  const headers = new Headers(rateLimit ? rateLimitHeaders(rateLimit) : {});
  headers.set("X-Request-Id", requestId);
  headers.set("Content-Type", CONTENT_TYPES[input.format]);
  headers.set("Content-Disposition", `attachment; filename="audit-events.${input.format}"`);
  headers.set("Cache-Control", "no-store");
  return new Response(request.method === "HEAD" ? null : body, { status: 200, headers });
}
