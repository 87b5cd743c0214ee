// The console's view of an end user's access, read from the one rule of portal-access.ts.
import type { z } from "zod";
import type { EffectiveAccessOutput, EffectiveAccessInput } from "@/schemas/portal/portal";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { creditsLeft } from "../support/credit-pool";
import { getEndUser } from "../provisioning/end-user-reads";
import { accessEntries, groupsOf } from "./portal-access";

/** How many portals the effective-access view lists when an app is open in every portal. */
const PORTALS_SHOWN = 200;

const nameOf = (draft: unknown) => String((draft as { name?: unknown } | null)?.name ?? "");

type EndUserView = Awaited<ReturnType<typeof getEndUser>>;
type Groups = Awaited<ReturnType<typeof groupsOf>>;
type Entries = Awaited<ReturnType<typeof accessEntries>>;
type NamedPortal = { id: string; name: string };
/** Who holds a grant: the end user, one of their groups, or their plan's group. */
type HolderOf = (groupId: string | null) => { holder: "user" | "group" | "plan"; name: string };

/** Every grant to an app that could open one for the end user: their own, then their groups' (plans' groups included). */
async function appGrantsOf(db: Db, organizationId: string, user: EndUserView, groups: Groups) {
  const groupGrants = groups.length
    ? await db.grant.findMany({
        where: { organizationId, targetKind: "app", groupId: { in: groups.map((group) => group.id) } },
        select: { id: true, targetId: true, groupId: true, deploymentId: true, expiresAt: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      })
    : [];
  return [
    ...user.grants
      .filter((grant) => grant.targetKind === "app")
      .map((grant) => ({
        id: grant.id,
        targetId: grant.targetId,
        groupId: null,
        deploymentId: grant.deploymentId,
        expiresAt: grant.expiresAt ? new Date(grant.expiresAt) : null,
      })),
    ...groupGrants,
  ];
}

type AppGrant = Awaited<ReturnType<typeof appGrantsOf>>[number];

/**
 * The portals the view names: those its entries and grants name, and (when an app is open in
 * every portal) the organization's first PORTALS_SHOWN by name, as `all`.
 */
async function portalsNamed(
  db: Db,
  organizationId: string,
  entries: Entries,
  grants: AppGrant[],
  everywhere: boolean,
): Promise<{ portals: Map<string, NamedPortal>; all: NamedPortal[] }> {
  const namedPortalIds = [
    ...new Set([...entries, ...grants].flatMap((row) => ("portalId" in row ? row.portalId : row.deploymentId) ?? [])),
  ];
  const [named, all] = await Promise.all([
    namedPortalIds.length
      ? db.portal.findMany({
          where: { organizationId, id: { in: namedPortalIds } },
          select: { id: true, name: true },
        })
      : [],
    everywhere
      ? db.portal.findMany({
          where: { organizationId },
          select: { id: true, name: true },
          orderBy: [{ name: "asc" }, { id: "asc" }],
          take: PORTALS_SHOWN,
        })
      : [],
  ]);
  const portals = new Map([...named, ...all].map((portal) => [portal.id, { id: portal.id, name: portal.name }]));
  return { portals, all };
}

function holderNamer(groups: Groups): HolderOf {
  const groupById = new Map(groups.map((group) => [group.id, group]));
  return (groupId) => {
    const group = groupId ? groupById.get(groupId) : undefined;
    if (!group) return { holder: "user" as const, name: "" };
    return group.planName !== null
      ? { holder: "plan" as const, name: group.planName }
      : { holder: "group" as const, name: group.name };
  };
}

/** Each live app the entries open, by name, with where (every portal, or the ones named) and every reason. */
function usableApps(
  entries: Entries,
  live: (appId: string) => boolean,
  appName: (appId: string) => string,
  portals: Map<string, NamedPortal>,
  holderOf: HolderOf,
) {
  const usable = [...new Set(entries.map((entry) => entry.appId))].filter(live).flatMap((appId) => {
    const mine = entries.filter(
      (entry) => entry.appId === appId && (entry.portalId === null || portals.has(entry.portalId)),
    );
    if (mine.length === 0) return [];
    const where = [...new Set(mine.flatMap((entry) => entry.portalId ?? []))].map((id) => portals.get(id)!);
    const reasons = new Map(
      mine.map((entry) => [
        `${entry.grantId}:${entry.portalId ?? ""}`,
        {
          grantId: entry.grantId,
          ...holderOf(entry.groupId),
          groupId: entry.groupId,
          portal: entry.portalId ? portals.get(entry.portalId)! : null,
        },
      ]),
    );
    return [
      {
        appId,
        appName: appName(appId),
        portals: mine.some((entry) => entry.portalId === null)
          ? ("all" as const)
          : where.sort((a, b) => a.name.localeCompare(b.name)),
        // The end user's own grants first, then their groups' and plans' by name.
        via: [...reasons.values()].sort(
          (a, b) => Number(a.holder !== "user") - Number(b.holder !== "user") || a.name.localeCompare(b.name),
        ),
      },
    ];
  });
  return usable.sort((a, b) => a.appName.localeCompare(b.appName));
}

/** The portals the end user can use, each with the apps they find there, by name. */
function reachablePortals(usable: ReturnType<typeof usableApps>, all: NamedPortal[]) {
  const reachable = new Map<string, { id: string; name: string; apps: string[] }>();
  for (const app of usable) {
    for (const portal of app.portals === "all" ? all : app.portals) {
      const entry = reachable.get(portal.id) ?? { id: portal.id, name: portal.name, apps: [] };
      entry.apps.push(app.appName);
      reachable.set(portal.id, entry);
    }
  }
  return [...reachable.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** The end user's plans with their credits, active ones first, then by name. */
function planRows(user: EndUserView, planGroups: { id: string; groupId: string | null; allowedModels: unknown }[]) {
  const planGroupId = new Map(planGroups.map((plan) => [plan.id, plan.groupId]));
  const planModels = new Map(
    planGroups.map((plan) => [plan.id, Array.isArray(plan.allowedModels) ? (plan.allowedModels as string[]) : null]),
  );
  return user.subscriptions
    .map((subscription) => ({
      subscriptionId: subscription.id,
      tierPlanId: subscription.tierPlanId,
      name: subscription.tierPlanName,
      status: subscription.status,
      creditAllowance: subscription.creditAllowance,
      bonusCredits: subscription.bonusCredits,
      creditsUsed: subscription.creditsUsed,
      creditsLeft: creditsLeft(subscription),
      creditsResetAt: subscription.creditsResetAt,
      groupId: planGroupId.get(subscription.tierPlanId) ?? null,
      allowedModels: planModels.get(subscription.tierPlanId) ?? null,
    }))
    .sort((a, b) => Number(a.status !== "active") - Number(b.status !== "active") || a.name.localeCompare(b.name));
}

/**
 * The console's view of an end user's access on one page: their plans with credits, their groups,
 * every grant that could open an app (their own and their groups', each with whether it does),
 * the portals they can use, and each usable app with every reason, all from the one rule above.
 */
export const effectiveAccess = guarded(
  { scope: "end_users:read" },
  async function effectiveAccess(
    db: Db,
    actor: Actor,
    input: z.infer<typeof EffectiveAccessInput>,
  ): Promise<EffectiveAccessOutput> {
    const organizationId = actor.organizationId;
    const user = await getEndUser(db, actor, input);
    const [organization, groups, planGroups] = await Promise.all([
      db.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { accessMode: true } }),
      groupsOf(db, organizationId, input.endUserId),
      db.tierPlan.findMany({
        where: { organizationId, id: { in: user.subscriptions.map((s) => s.tierPlanId) } },
        select: { id: true, groupId: true, allowedModels: true },
      }),
    ]);
    const entries = await accessEntries(db, organizationId, input.endUserId, groups);
    const grants = await appGrantsOf(db, organizationId, user, groups);
    const apps = grants.length
      ? await db.builderItem.findMany({
          where: { organizationId, kind: "app", id: { in: [...new Set(grants.map((grant) => grant.targetId))] } },
          select: { id: true, draft: true, productionVersionId: true },
        })
      : [];
    const appById = new Map(apps.map((app) => [app.id, app]));
    const live = (appId: string) => !!appById.get(appId)?.productionVersionId;
    const appName = (appId: string) => (appById.has(appId) ? nameOf(appById.get(appId)!.draft) : "");
    const everywhere = entries.some((entry) => entry.portalId === null && live(entry.appId));
    const { portals, all } = await portalsNamed(db, organizationId, entries, grants, everywhere);
    const holderOf = holderNamer(groups);
    const usable = usableApps(entries, live, appName, portals, holderOf);
    const opening = new Set(entries.map((entry) => entry.grantId));
    const now = Date.now();
    return {
      accessMode: organization.accessMode,
      revoked: user.revokedAt !== null,
      suspended: user.suspendedAt !== null,
      plans: planRows(user, planGroups),
      groups: [...groups].sort((a, b) => a.name.localeCompare(b.name)),
      grants: grants.map((grant) => {
        const { holder, name } = holderOf(grant.groupId);
        const expired = grant.expiresAt !== null && grant.expiresAt.getTime() <= now;
        return {
          id: grant.id,
          appId: grant.targetId,
          appName: appName(grant.targetId),
          holder,
          holderName: name,
          groupId: grant.groupId,
          portal: grant.deploymentId ? (portals.get(grant.deploymentId) ?? { id: grant.deploymentId, name: "" }) : null,
          expiresAt: grant.expiresAt?.toISOString() ?? null,
          status: expired
            ? ("expired" as const)
            : !live(grant.targetId)
              ? ("unpublished" as const)
              : opening.has(grant.id)
                ? ("active" as const)
                : ("unused" as const),
        };
      }),
      portals: reachablePortals(usable, all),
      apps: usable,
    };
  },
);
