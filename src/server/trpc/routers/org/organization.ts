import { ConsoleSettingsUpdate, Organization } from "@/schemas/org/organization";
import { getOrganization, updateOrganization } from "@/server/services/org/organizations";
import { memberProcedure, router } from "../../init";

export const organizationRouter = router({
  get: memberProcedure(getOrganization.requirement)
    .output(Organization)
    .query(({ ctx }) => getOrganization(ctx.db, ctx.actor)),
  update: memberProcedure(updateOrganization.requirement)
    .input(ConsoleSettingsUpdate)
    .output(Organization)
    .mutation(({ ctx, input }) => updateOrganization(ctx.db, ctx.actor, input)),
});
