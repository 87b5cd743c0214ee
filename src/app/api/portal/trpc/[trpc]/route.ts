// The portal's tRPC for end users (their own session cookie; never the console's).
import { createPortalHandler } from "@/server/adapters/portal";
import { getDb } from "@/server/db";
import { observed } from "@/server/observability/observe";

export const dynamic = "force-dynamic";

const handler = observed("/api/portal/trpc", createPortalHandler({ db: getDb }));

export { handler as GET, handler as POST };
