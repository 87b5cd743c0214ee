// The portal's tRPC for end users (their own session cookie; never the console's).
import { createPortalHandler } from "@/server/adapters/portal";
import { getDb } from "@/server/db";

export const dynamic = "force-dynamic";

const handler = createPortalHandler({ db: getDb });

export { handler as GET, handler as POST };
