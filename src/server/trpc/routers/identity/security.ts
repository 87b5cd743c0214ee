import { SecurityOverview } from "@/schemas/identity/security";
import { getSecurityOverview } from "@/server/services/identity/security";
import { router } from "../../init";
import { memberCalls } from "../../service-procedures";

export const securityRouter = router({
  overview: memberCalls.query(getSecurityOverview, SecurityOverview),
});
