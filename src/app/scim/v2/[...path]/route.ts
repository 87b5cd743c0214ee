import { scimRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export { scimRoute as GET, scimRoute as POST, scimRoute as PUT, scimRoute as PATCH, scimRoute as DELETE };
