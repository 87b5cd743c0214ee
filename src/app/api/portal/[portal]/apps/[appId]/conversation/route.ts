// The portal chat: an app conversation as Server-Sent Events for a signed-in end user.
import { portalConversationRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export async function POST(
  request: Request,
  { params }: { params: Promise<{ portal: string; appId: string }> },
): Promise<Response> {
  const { portal, appId } = await params;
  return portalConversationRoute(request, portal, appId);
}
