// The Audit log's Export button: the events on screen, streamed as JSON Lines or CSV.
import { consoleAuditExportRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  return consoleAuditExportRoute(request);
}
