import { SecurityOverview } from "@/schemas/security";
import { getSecurityOverview } from "@/server/services/security";
import { memberProcedure, router } from "../init";

export const securityRouter = router({
  overview: memberProcedure(getSecurityOverview.requirement)
    .output(SecurityOverview)
    .query(({ ctx }) => getSecurityOverview(ctx.db, ctx.actor)),
});
