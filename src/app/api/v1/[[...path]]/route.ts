import { restRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export {
  restRoute as GET,
  restRoute as POST,
  restRoute as PUT,
  restRoute as PATCH,
  restRoute as DELETE,
  restRoute as HEAD,
  restRoute as OPTIONS,
};
