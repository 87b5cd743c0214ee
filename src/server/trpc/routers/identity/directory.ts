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
import { router } from "../../init";
import { memberCalls } from "../../service-procedures";

export const directoryRouter = router({
  overview: memberCalls.query(getDirectoryOverview, DirectoryOverview),
  rotateToken: memberCalls.mutation(rotateDirectoryToken, DirectoryTokenCreated),
  setDefaultPlan: memberCalls.mutationWith(
    setDirectoryDefaultPlan,
    SetDirectoryDefaultPlanInput,
    DirectoryDefaultPlanOutput,
  ),
});
