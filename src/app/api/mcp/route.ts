import { createMcpHandler } from "@/server/adapters/mcp";
import { getDb } from "@/server/db";

export const dynamic = "force-dynamic";

const handler = createMcpHandler({ db: getDb });

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as HEAD, handler as OPTIONS };
