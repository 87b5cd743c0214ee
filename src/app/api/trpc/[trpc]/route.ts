import { createConsoleHandler } from "@/server/adapters/console";
import { getDb } from "@/server/db";
import { observed } from "@/server/observability/observe";

export const dynamic = "force-dynamic";

const handler = observed("/api/trpc", createConsoleHandler({ db: getDb }));

export { handler as GET, handler as POST };
