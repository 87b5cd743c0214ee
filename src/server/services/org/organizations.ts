import { OPERATOR_SETTINGS, type Organization, type OrganizationSettingsUpdate } from "@/schemas/org/organization";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { changesBetween, recorded } from "./events";
import type { Organization as OrganizationRow } from "@/generated/prisma/client";

export function toOrganization(row: OrganizationRow): Organization {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    credits: row.credits,
    reviewAgentWrites: row.reviewAgentWrites,
    accessMode: row.accessMode,
    apiEnabled: row.apiEnabled,
    appsApiEnabled: row.appsApiEnabled,
    mcpEnabled: row.mcpEnabled,
    groupsEnabled: row.groupsEnabled,
    qualityChecker: row.qualityChecker,
    passwordSignIn: row.passwordSignIn,
    requireMfa: row.requireMfa,
    maxKnowledgebases: row.maxKnowledgebases,
    maxSourcesPerKnowledgebase: row.maxSourcesPerKnowledgebase,
    conversationRetentionDays: row.conversationRetentionDays,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Creating an organization is an operator's act (admin CLI, first start); there is no actor yet. */
export async function createOrganization(
  db: Db,
  input: { name: string; plan?: Organization["plan"]; credits?: number },
): Promise<Organization> {
  return toOrganization(
    await db.organization.create({
      data: { ...input, ...(input.credits !== undefined ? { creditsReference: input.credits } : {}) },
    }),
  );
}

export const getOrganization = guarded(
  { may: "read" },
  async function getOrganization(db: Db, actor: Actor): Promise<Organization> {
    const row = await db.organization.findUnique({ where: { id: actor.organizationId } });
    if (!row) throw new AppError("not_found", "No organization with that id.");
    return toOrganization(row);
  },
);

/** The plan, credits, quality checker and caps are the operator's to set (admin CLI); owners and admins change the rest. */
export const updateOrganization = guarded(
  { may: "settings" },
  async function updateOrganization(db: Db, actor: Actor, update: OrganizationSettingsUpdate): Promise<Organization> {
    const operatorSettings = Object.keys(update).filter(
      (field) => Object.hasOwn(OPERATOR_SETTINGS, field) && update[field as keyof typeof update] !== undefined,
    );
    if (actor.kind !== "operator" && operatorSettings.length > 0) {
      throw new AppError(
        "forbidden_role",
        `${operatorSettings.join(", ")}: set by the operator of this installation (admin CLI), not by the organization.`,
      );
    }
    const turningPasswordsOff =
      update.passwordSignIn === false &&
      (await db.organization.findUnique({ where: { id: actor.organizationId }, select: { passwordSignIn: true } }))
        ?.passwordSignIn === true;
    if (turningPasswordsOff) {
      if (actor.kind === "member" && actor.member.role !== "owner")
        throw new AppError("forbidden_role", "Only an owner can turn password sign-in off.");
      const sso = await db.ssoConnection.findUnique({
        where: { organizationId: actor.organizationId },
        select: { id: true },
      });
      if (!sso)
        throw new AppError(
          "conflict",
          "Set up single sign-on before turning password sign-in off, or nobody could sign in.",
        );
    }
    if (update.requireMfa !== undefined && actor.kind === "member" && actor.member.role !== "owner")
      throw new AppError("forbidden_role", "Only an owner can change whether members need a second factor.");
    const before = await db.organization.findUnique({ where: { id: actor.organizationId } });
    if (!before) throw new AppError("not_found", "No organization with that id.");
    const write = (tx: Pick<Db, "organization">) =>
      tx.organization.update({
        where: { id: actor.organizationId },
        // The balance the operator sets is the one credits.low is measured against (src/server/services/provisioning/credit-thresholds.ts).
        data: { ...update, ...(update.credits !== undefined ? { creditsReference: update.credits } : {}) },
      });
    const row = await recorded(db, actor, write, (after) => ({
      action: "organization.update",
      target: { type: "organization", id: after.id, label: after.name },
      changes: changesBetween(before, update, Object.keys(update) as (keyof typeof update & string)[]),
    }));
    return toOrganization(row);
  },
);
