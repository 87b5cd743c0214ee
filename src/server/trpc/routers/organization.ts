import { Organization, OrganizationSettings } from "@/schemas/organization";
import { getOrganization, updateOrganization } from "@/server/services/organizations";
import { memberProcedure, router } from "../init";

/** Settings a signed-in admin changes in the console; plan and credits are the operator's. */
export const ConsoleSettingsUpdate = OrganizationSettings.omit({ plan: true, credits: true }).partial();

export const organizationRouter = router({
  get: memberProcedure(getOrganization.requirement)
    .output(Organization)
    .query(({ ctx }) => getOrganization(ctx.db, ctx.actor)),
  update: memberProcedure(updateOrganization.requirement)
    .input(ConsoleSettingsUpdate)
    .output(Organization)
    .mutation(({ ctx, input }) => updateOrganization(ctx.db, ctx.actor, input)),
});
