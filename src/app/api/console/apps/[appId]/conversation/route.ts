// The console chat: an app conversation as Server-Sent Events for a signed-in member.
import { consoleConversationRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ appId: string }> }): Promise<Response> {
  return consoleConversationRoute(request, (await params).appId);
}
