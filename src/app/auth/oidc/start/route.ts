import { oidcStartRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export { oidcStartRoute as GET };
