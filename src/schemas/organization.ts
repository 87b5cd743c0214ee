import { z } from "zod";
import { boundedInt, nameText, Timestamp, Uuid } from "./common";
import { MAX_CREDITS, MAX_PLAN_CAP } from "./limits";

export const PLANS = ["free", "pro", "agency"] as const;
export const Plan = z.enum(PLANS);
export const AccessMode = z.enum(["grants", "groups"]);

/** Organization settings an owner or admin can change (console, admin CLI). */
export const OrganizationSettings = z.strictObject({
  name: nameText,
  plan: Plan,
  credits: boundedInt(0, MAX_CREDITS),
  reviewAgentWrites: z.boolean(),
  accessMode: AccessMode,
  apiEnabled: z.boolean(),
  appsApiEnabled: z.boolean(),
  mcpEnabled: z.boolean(),
  groupsEnabled: z.boolean(),
  qualityChecker: z.boolean(),
  /** Off: members sign in with the organization's single sign-on only (owners only; the admin CLI turns it back on). */
  passwordSignIn: z.boolean(),
  maxKnowledgebases: boundedInt(0, MAX_PLAN_CAP).nullable(),
  maxSourcesPerKnowledgebase: boundedInt(0, MAX_PLAN_CAP).nullable(),
});
export const OrganizationSettingsUpdate = OrganizationSettings.partial();
export type OrganizationSettingsUpdate = z.infer<typeof OrganizationSettingsUpdate>;

export const Organization = OrganizationSettings.extend({
  id: Uuid,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Organization = z.infer<typeof Organization>;
