import { createConsoleHandler } from "@/server/adapters/console";
import { getDb } from "@/server/db";

export const dynamic = "force-dynamic";

const handler = createConsoleHandler({ db: getDb });

export { handler as GET, handler as POST };
