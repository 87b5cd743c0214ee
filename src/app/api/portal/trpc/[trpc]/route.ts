// The portal's tRPC for end users (their own session cookie; never the console's).
import { portalTrpcRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export { portalTrpcRoute as GET, portalTrpcRoute as POST };
