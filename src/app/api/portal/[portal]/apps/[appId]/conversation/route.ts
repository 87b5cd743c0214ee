// The portal chat: an app conversation as Server-Sent Events for a signed-in end user.
import { createPortalConversationHandler } from "@/server/adapters/portal";
import { getDb } from "@/server/db";

export const dynamic = "force-dynamic";

const handler = createPortalConversationHandler({ db: getDb });

export async function POST(request: Request, { params }: { params: Promise<{ portal: string; appId: string }> }) {
  const { portal, appId } = await params;
  return handler(request, portal, appId);
}
