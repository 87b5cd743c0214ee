import { healthRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export { healthRoute as GET };
