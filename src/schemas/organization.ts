import { z } from "zod";
import { nameText, Timestamp, Uuid } from "./common";

export const PLANS = ["free", "pro", "agency"] as const;
export const Plan = z.enum(PLANS);
export const AccessMode = z.enum(["grants", "groups"]);

/** Organization settings an owner or admin can change (console, admin CLI). */
export const OrganizationSettings = z.strictObject({
  name: nameText,
  plan: Plan,
  credits: z.number().int().min(0),
  reviewAgentWrites: z.boolean(),
  accessMode: AccessMode,
  apiEnabled: z.boolean(),
  appsApiEnabled: z.boolean(),
  mcpEnabled: z.boolean(),
  groupsEnabled: z.boolean(),
  qualityChecker: z.boolean(),
  /** Off: members sign in with the organization's single sign-on only (owners only; the admin CLI turns it back on). */
  passwordSignIn: z.boolean(),
  maxKnowledgebases: z.number().int().min(0).nullable(),
  maxSourcesPerKnowledgebase: z.number().int().min(0).nullable(),
});
export const OrganizationSettingsUpdate = OrganizationSettings.partial();
export type OrganizationSettingsUpdate = z.infer<typeof OrganizationSettingsUpdate>;

export const Organization = OrganizationSettings.extend({
  id: Uuid,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Organization = z.infer<typeof Organization>;
