// Access grants, on end users and (additively) on user groups: the shapes, the checks of what
// they point at, and the idempotent insert both holders share.
import type { Grant, GrantInput } from "@/schemas/provisioning/provisioning";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";

type Tx = Prisma.TransactionClient | Db;

type GrantRow = {
  id: string;
  targetKind: string;
  targetId: string;
  effect: string;
  deploymentId: string | null;
  source: string;
  expiresAt: Date | null;
};

export function toGrant(row: GrantRow): Grant {
  return {
    id: row.id,
    targetKind: row.targetKind,
    targetId: row.targetId,
    effect: row.effect,
    deploymentId: row.deploymentId,
    source: row.source,
    expiresAt: row.expiresAt?.toISOString() ?? null,
  };
}

/**
 * Refuses grants whose target or portal does not exist in the organization
 * (grant_target_not_found), before anything is written.
 */
export async function assertGrantTargets(
  db: Tx,
  organizationId: string,
  grants: readonly GrantTarget[],
): Promise<void> {
  if (grants.length === 0) return;
  const appIds = [...new Set(grants.filter((g) => g.targetKind === "app").map((g) => g.targetId))];
  const portalIds = [...new Set(grants.flatMap((g) => (g.deploymentId ? [g.deploymentId] : [])))];
  const [apps, portals] = await Promise.all([
    appIds.length
      ? db.builderItem.findMany({ where: { organizationId, kind: "app", id: { in: appIds } }, select: { id: true } })
      : [],
    portalIds.length
      ? db.portal.findMany({ where: { organizationId, id: { in: portalIds } }, select: { id: true } })
      : [],
  ]);
  refuseMissingGrantTargets(
    grants,
    apps.map((a) => a.id),
    portals.map((p) => p.id),
  );
}

type GrantTarget = Pick<GrantInput, "targetKind" | "targetId" | "deploymentId">;

/** grant_target_not_found for the first grant whose app or portal is not among those found. */
export function refuseMissingGrantTargets(
  grants: readonly GrantTarget[],
  foundApps: readonly string[],
  foundPortals: readonly string[],
): void {
  for (const grant of grants) {
    if (!foundApps.includes(grant.targetId)) {
      throw new AppError("grant_target_not_found", `No ${grant.targetKind} ${grant.targetId} in this organization.`);
    }
    if (grant.deploymentId && !foundPortals.includes(grant.deploymentId)) {
      throw new AppError(
        "grant_target_not_found",
        `No portal ${grant.deploymentId} in this organization (deploymentId).`,
      );
    }
  }
}

/** Inserts the grants that are not held yet; returns how many were new. */
export async function insertGrants(
  tx: Tx,
  holder: { organizationId: string; endUserId?: string; groupId?: string },
  grants: readonly GrantInput[],
  source: string,
): Promise<number> {
  if (grants.length === 0) return 0;
  const { count } = await tx.grant.createMany({
    data: grants.map((grant) => ({
      organizationId: holder.organizationId,
      endUserId: holder.endUserId ?? null,
      groupId: holder.groupId ?? null,
      targetKind: grant.targetKind,
      targetId: grant.targetId,
      effect: grant.effect ?? "allow",
      deploymentId: grant.deploymentId ?? null,
      expiresAt: grant.expiresAt ? new Date(grant.expiresAt) : null,
      source,
    })),
    skipDuplicates: true,
  });
  return count;
}
