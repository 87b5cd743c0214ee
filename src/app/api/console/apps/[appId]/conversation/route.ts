// The console chat: an app conversation as Server-Sent Events for a signed-in member.
import { createConsoleConversationHandler } from "@/server/adapters/console";
import { getDb } from "@/server/db";

export const dynamic = "force-dynamic";

const handler = createConsoleConversationHandler({ db: getDb });

export async function POST(request: Request, { params }: { params: Promise<{ appId: string }> }) {
  return handler(request, (await params).appId);
}
