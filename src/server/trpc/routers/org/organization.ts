import { ConsoleSettingsUpdate, Organization } from "@/schemas/org/organization";
import { getOrganization, updateOrganization } from "@/server/services/org/organizations";
import { router } from "../../init";
import { memberCalls } from "../../service-procedures";

export const organizationRouter = router({
  get: memberCalls.query(getOrganization, Organization),
  update: memberCalls.mutationWith(updateOrganization, ConsoleSettingsUpdate, Organization),
});
