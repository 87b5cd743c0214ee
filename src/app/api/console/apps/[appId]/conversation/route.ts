// The console chat: an app conversation as Server-Sent Events for a signed-in member.
import { createConsoleConversationHandler } from "@/server/adapters/console";
import { getDb } from "@/server/db";
import { observed } from "@/server/observability/observe";

export const dynamic = "force-dynamic";

const handler = createConsoleConversationHandler({ db: getDb });

export const POST = observed("/api/console/apps/{appId}/conversation", async (request: Request, { params }: { params: Promise<{ appId: string }> }) =>
  handler(request, (await params).appId),
);
