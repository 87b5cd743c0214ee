import { samlAcsRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export { samlAcsRoute as POST };
