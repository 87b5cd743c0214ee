// The portal chat's resume: a run's events after Last-Event-ID, as Server-Sent Events.
import { portalRunEventsRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export async function GET(
  request: Request,
  { params }: { params: Promise<{ portal: string; appId: string; executionId: string }> },
): Promise<Response> {
  const { portal, appId, executionId } = await params;
  return portalRunEventsRoute(request, portal, appId, executionId);
}
