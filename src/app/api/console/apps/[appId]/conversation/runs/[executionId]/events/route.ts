// The console chat's resume: a run's events after Last-Event-ID, as Server-Sent Events.
import { consoleRunEventsRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export async function GET(
  request: Request,
  { params }: { params: Promise<{ appId: string; executionId: string }> },
): Promise<Response> {
  const { appId, executionId } = await params;
  return consoleRunEventsRoute(request, appId, executionId);
}
