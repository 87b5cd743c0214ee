// The portal chat: an app conversation as Server-Sent Events for a signed-in end user.
import { createPortalConversationHandler } from "@/server/adapters/portal";
import { getDb } from "@/server/db";
import { observed } from "@/server/observability/observe";

export const dynamic = "force-dynamic";

const handler = createPortalConversationHandler({ db: getDb });

export const POST = observed(
  "/api/portal/{portal}/apps/{appId}/conversation",
  async (request: Request, { params }: { params: Promise<{ portal: string; appId: string }> }) => {
    const { portal, appId } = await params;
    return handler(request, portal, appId);
  },
);
