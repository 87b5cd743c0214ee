import { metricsRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export { metricsRoute as GET };
