import { mcpRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export {
  mcpRoute as GET,
  mcpRoute as POST,
  mcpRoute as PUT,
  mcpRoute as PATCH,
  mcpRoute as DELETE,
  mcpRoute as HEAD,
  mcpRoute as OPTIONS,
};
