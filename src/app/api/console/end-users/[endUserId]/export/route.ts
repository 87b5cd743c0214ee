// An end user's page's "Download their data": everything held about them, streamed.
import { consoleEndUserExportRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ endUserId: string }> }): Promise<Response> {
  return consoleEndUserExportRoute(request, (await params).endUserId);
}
