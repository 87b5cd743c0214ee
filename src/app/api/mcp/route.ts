import { createMcpHandler } from "@/server/adapters/mcp";
import { getDb } from "@/server/db";
import { observed } from "@/server/observability/observe";

export const dynamic = "force-dynamic";

const handler = observed("/api/mcp", createMcpHandler({ db: getDb }));

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as HEAD, handler as OPTIONS };
