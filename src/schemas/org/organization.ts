import { z } from "zod";
import { boundedInt, nameText, Timestamp, Uuid } from "../common";
import { MAX_CREDITS, MAX_PLAN_CAP, MAX_RETENTION_DAYS } from "../limits";

export const PLANS = ["free", "pro", "agency"] as const;
export const Plan = z.enum(PLANS);
export const AccessMode = z.enum(["grants", "groups"]);

/** Organization settings: the operator sets all of them (admin CLI), owners and admins those outside OPERATOR_SETTINGS (console). */
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
  /** On: members without a second factor enroll one at their next password sign-in (owners only). */
  requireMfa: z.boolean(),
  maxKnowledgebases: boundedInt(0, MAX_PLAN_CAP).nullable(),
  maxSourcesPerKnowledgebase: boundedInt(0, MAX_PLAN_CAP).nullable(),
  /** Conversations untouched this many days are deleted by a daily sweep (services/org/retention.ts); null keeps them. */
  conversationRetentionDays: boundedInt(1, MAX_RETENTION_DAYS).nullable(),
});
export const OrganizationSettingsUpdate = OrganizationSettings.partial();
export type OrganizationSettingsUpdate = z.infer<typeof OrganizationSettingsUpdate>;

/**
 * What the operator of the installation sets (admin CLI): the plan, the balance, the plan's
 * quality checker and its caps. Not the organization's to change, not even an owner's.
 */
export const OPERATOR_SETTINGS = {
  plan: true,
  credits: true,
  qualityChecker: true,
  maxKnowledgebases: true,
  maxSourcesPerKnowledgebase: true,
} as const;

/** The settings an organization's admins and owners change in the console; the rest are the operator's. */
export const ConsoleSettingsUpdate = OrganizationSettings.omit(OPERATOR_SETTINGS).partial();

export const Organization = OrganizationSettings.extend({
  id: Uuid,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Organization = z.infer<typeof Organization>;
