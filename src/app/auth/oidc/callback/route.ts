import { oidcCallbackRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export { oidcCallbackRoute as GET };
