import { SecurityOverview } from "@/schemas/identity/security";
import { getSecurityOverview } from "@/server/services/identity/security";
import { memberProcedure, router } from "../../init";

export const securityRouter = router({
  overview: memberProcedure(getSecurityOverview.requirement)
    .output(SecurityOverview)
    .query(({ ctx }) => getSecurityOverview(ctx.db, ctx.actor)),
});
