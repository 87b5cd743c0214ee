import { samlStartRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export { samlStartRoute as GET };
