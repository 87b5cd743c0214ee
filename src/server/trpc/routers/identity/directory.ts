// Console-only: the organization's directory (SCIM) for its Directory page. Admins see it, make
// and rotate the SCIM token and choose the default plan; API keys cannot reach any of it.
import {
  DirectoryOverview,
  DirectoryTokenCreated,
  SetDirectoryDefaultPlanInput,
  DirectoryDefaultPlanOutput,
} from "@/schemas/identity/directory";
import {
  getDirectoryOverview,
  rotateDirectoryToken,
  setDirectoryDefaultPlan,
} from "@/server/services/identity/directory";
import { memberProcedure, router } from "../../init";

export const directoryRouter = router({
  overview: memberProcedure(getDirectoryOverview.requirement)
    .output(DirectoryOverview)
    .query(({ ctx }) => getDirectoryOverview(ctx.db, ctx.actor)),
  rotateToken: memberProcedure(rotateDirectoryToken.requirement)
    .output(DirectoryTokenCreated)
    .mutation(({ ctx }) => rotateDirectoryToken(ctx.db, ctx.actor)),
  setDefaultPlan: memberProcedure(setDirectoryDefaultPlan.requirement)
    .input(SetDirectoryDefaultPlanInput)
    .output(DirectoryDefaultPlanOutput)
    .mutation(({ ctx, input }) => setDirectoryDefaultPlan(ctx.db, ctx.actor, input)),
});
