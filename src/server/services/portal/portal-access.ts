// THE access rule for end users, used by every door
// that acts for an end user: the portal, the API on behalf of an end user, and the console's
// "effective access" view.
//   grants mode: an unexpired grant to the app on the end user or on one of their groups (plan
//     groups included), with no deploymentId or with deploymentId = the portal;
//   groups mode: one of their groups is admitted to the portal and that same group holds an
//     unexpired grant to the app (not limited to another portal); without a portal, no access.
// The end user must be active (not revoked, not suspended by the directory, not deleted): the
// one definition is ACTIVE_END_USER below, used by sessions and sign-in too. Apps must be live.
import type { EffectiveAccessOutput, PortalApp } from "@/schemas/portal/portal";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { creditsLeft } from "../support/credit-pool";
import { getEndUser } from "../provisioning/end-user-reads";

/**
 * An end user who may sign in and use apps: not revoked, not suspended (no active directory user
 * stands for them, services/identity/directory-users.ts) and not deleted. A suspended end user answers exactly
 * as a revoked one everywhere: sessions, sign-in, access, the API on their behalf.
 */
export const ACTIVE_END_USER = { revokedAt: null, suspendedAt: null, deletedAt: null } as const;

/** ACTIVE_END_USER as SQL over the end_users row `alias`. */
export function activeEndUserSql(alias: string): string {
  return `${alias}.revoked_at is null and ${alias}.suspended_at is null and ${alias}.deleted_at is null`;
}

/** One way an end user reaches an app: in one portal, or in every portal (`portalId` null), by one grant. */
interface AccessEntry {
  appId: string;
  portalId: string | null;
  grantId: string;
  /** The group holding the grant; null for the end user's own grant. */
  groupId: string | null;
}

interface GroupOfUser {
  id: string;
  name: string;
  /** The plan the membership comes from, for a plan's group. */
  planName: string | null;
}

/** The end user's groups: memberships, and the groups of the plans they hold. */
async function groupsOf(db: Db, organizationId: string, endUserId: string): Promise<GroupOfUser[]> {
  const [memberships, subscriptions] = await Promise.all([
    db.groupMember.findMany({
      where: { endUserId, group: { organizationId } },
      select: { group: { select: { id: true, name: true, plan: { select: { name: true } } } } },
    }),
    db.subscription.findMany({
      where: { endUserId, status: "active", tierPlan: { organizationId, groupId: { not: null } } },
      select: { tierPlan: { select: { name: true, groupId: true, group: { select: { name: true } } } } },
    }),
  ]);
  const groups = new Map<string, GroupOfUser>();
  for (const { group } of memberships)
    groups.set(group.id, { id: group.id, name: group.name, planName: group.plan?.name ?? null });
  for (const { tierPlan } of subscriptions)
    groups.set(tierPlan.groupId!, {
      id: tierPlan.groupId!,
      name: tierPlan.group?.name ?? tierPlan.name,
      planName: tierPlan.name,
    });
  return [...groups.values()];
}

/** Every way an active end user reaches an app; none for an unknown, revoked, suspended or deleted one. */
async function accessEntries(
  db: Db,
  organizationId: string,
  endUserId: string,
  knownGroups?: GroupOfUser[],
): Promise<AccessEntry[]> {
  const endUser = await db.endUser.findFirst({
    where: { id: endUserId, organizationId, ...ACTIVE_END_USER },
    select: { id: true, organization: { select: { accessMode: true } } },
  });
  if (!endUser) return [];
  const groupIds = (knownGroups ?? (await groupsOf(db, organizationId, endUserId))).map((group) => group.id);
  const groupsMode = endUser.organization.accessMode === "groups";
  const grants = await db.grant.findMany({
    where: {
      organizationId,
      targetKind: "app",
      effect: "allow",
      OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }],
      AND: [{ OR: [...(groupsMode ? [] : [{ endUserId }]), { groupId: { in: groupIds } }] }],
    },
    select: { id: true, targetId: true, groupId: true, deploymentId: true },
  });
  if (!groupsMode) {
    return grants.map((grant) => ({
      appId: grant.targetId,
      portalId: grant.deploymentId,
      grantId: grant.id,
      groupId: grant.groupId,
    }));
  }
  const admissions = await db.portalAdmission.findMany({
    where: { groupId: { in: groupIds }, portal: { organizationId } },
    select: { portalId: true, groupId: true },
  });
  return grants.flatMap((grant) =>
    admissions
      .filter(
        (admission) =>
          admission.groupId === grant.groupId &&
          (grant.deploymentId === null || grant.deploymentId === admission.portalId),
      )
      .map((admission) => ({
        appId: grant.targetId,
        portalId: admission.portalId,
        grantId: grant.id,
        groupId: grant.groupId,
      })),
  );
}

function reaches(entry: AccessEntry, portalId: string | null): boolean {
  return entry.portalId === null || entry.portalId === portalId;
}

/** The live apps of the organization among these ids. */
async function liveApps(db: Db, organizationId: string, appIds: string[]) {
  if (appIds.length === 0) return [];
  return db.builderItem.findMany({
    where: { organizationId, kind: "app", id: { in: appIds }, productionVersionId: { not: null } },
    select: { id: true },
  });
}

/**
 * The ids of the live apps an end user can use, in a portal or (portalId null) through the API
 * without one. Empty for an end user who is unknown, of another organization, revoked or deleted.
 */
export async function appsUsableBy(
  db: Db,
  organizationId: string,
  endUserId: string,
  portalId: string | null,
): Promise<string[]> {
  const entries = await accessEntries(db, organizationId, endUserId);
  const appIds = [...new Set(entries.filter((entry) => reaches(entry, portalId)).map((entry) => entry.appId))];
  return (await liveApps(db, organizationId, appIds)).map((app) => app.id);
}

/**
 * Whether the end user can use one live app, in a portal or (portalId null) without one: the rule
 * of accessEntries and appsUsableBy above as one statement, for the check every turn and
 * transaction on behalf of an end user makes (tests/portal/access.test.ts holds both to it).
 */
async function mayUseApp(
  db: Db,
  organizationId: string,
  endUserId: string,
  portalId: string | null,
  appId: string,
): Promise<boolean> {
  const rows = await db.$queryRaw<{ may: boolean }[]>`
    with person as (
      select o.access_mode::text = 'groups' as groups_mode
      from end_users u join organizations o on o.id = u.organization_id
      where u.id = ${endUserId}::uuid and u.organization_id = ${organizationId}::uuid
        and u.revoked_at is null and u.suspended_at is null and u.deleted_at is null
    ),
    their_groups as (
      select m.group_id as id from group_members m join user_groups g on g.id = m.group_id
      where m.end_user_id = ${endUserId}::uuid and g.organization_id = ${organizationId}::uuid
      union
      select p.group_id from subscriptions s join tier_plans p on p.id = s.tier_plan_id
      where s.end_user_id = ${endUserId}::uuid and s.status = 'active' and p.organization_id = ${organizationId}::uuid
        and p.group_id is not null
    ),
    app_grants as (
      select g.group_id, g.deployment_id from grants g, person
      where g.organization_id = ${organizationId}::uuid and g.target_kind = 'app' and g.effect = 'allow'
        and g.target_id = ${appId}::uuid and (g.expires_at is null or g.expires_at > now())
        and ((not person.groups_mode and g.end_user_id = ${endUserId}::uuid) or g.group_id in (select id from their_groups))
    )
    select exists (
      select 1 from person, builder_items b
      where b.id = ${appId}::uuid and b.organization_id = ${organizationId}::uuid and b.kind = 'app'
        and b.production_version_id is not null
        and case when not person.groups_mode
          then exists (select 1 from app_grants g where g.deployment_id is null or g.deployment_id = ${portalId}::uuid)
          else exists (
            select 1 from app_grants g
            join portal_admissions a on a.group_id = g.group_id
            join portals p on p.id = a.portal_id and p.organization_id = ${organizationId}::uuid
            where a.portal_id = ${portalId}::uuid and (g.deployment_id is null or g.deployment_id = a.portal_id))
        end
    ) as may`;
  return rows[0]?.may === true;
}

/** Refuses with not_found (like an unpublished app) unless the end user can use the app there. */
export async function assertCanUse(
  db: Db,
  organizationId: string,
  endUserId: string,
  portalId: string | null,
  appId: string,
): Promise<void> {
  if (!(await mayUseApp(db, organizationId, endUserId, portalId, appId)))
    throw new AppError("not_found", "No app with that id.");
}

/**
 * The end user's active identity in the organization, or not_found: unknown, of another
 * organization, revoked, suspended or deleted all answer alike.
 */
export async function findActiveEndUser(db: Db, organizationId: string, endUserId: string) {
  const endUser = await db.endUser.findFirst({
    where: { id: endUserId, organizationId, ...ACTIVE_END_USER },
    select: { id: true, email: true, fullName: true },
  });
  if (!endUser) throw new AppError("not_found", "No end user with that id.");
  return endUser;
}

/** Who a run is for: the organization itself, or one of its end users (in a portal or not). */
export interface RunFor {
  endUserId: string | null;
  portalId: string | null;
}

/**
 * The actor's authority to run apps and whom the run is for, checked in the contract's order
 * after the app: an end user who is unknown, of another organization, inactive or without
 * access to the app answers not_found, as does a portal of another organization.
 */
export async function runFor(
  db: Db,
  actor: Actor | EndUserActor,
  appId: string,
  onBehalf: { endUserId?: string; portalId?: string },
): Promise<RunFor> {
  if (actor.kind === "end_user") {
    await assertCanUse(db, actor.organizationId, actor.endUser.id, actor.portalId, appId);
    return { endUserId: actor.endUser.id, portalId: actor.portalId };
  }
  if (!onBehalf.endUserId) {
    if (onBehalf.portalId) {
      throw new AppError("invalid_request", "Invalid request: portalId needs endUserId.", {
        problems: [{ path: "portalId", message: "Only with endUserId" }],
      });
    }
    return { endUserId: null, portalId: null };
  }
  await findActiveEndUser(db, actor.organizationId, onBehalf.endUserId);
  if (onBehalf.portalId) {
    const portal = await db.portal.findFirst({
      where: { id: onBehalf.portalId, organizationId: actor.organizationId },
      select: { id: true },
    });
    if (!portal) throw new AppError("not_found", "No portal with that id.");
  }
  await assertCanUse(db, actor.organizationId, onBehalf.endUserId, onBehalf.portalId ?? null, appId);
  return { endUserId: onBehalf.endUserId, portalId: onBehalf.portalId ?? null };
}

/** How many portals the effective-access view lists when an app is open in every portal. */
const PORTALS_SHOWN = 200;

const nameOf = (draft: unknown) => String((draft as { name?: unknown } | null)?.name ?? "");

/**
 * The console's view of an end user's access on one page: their plans with credits, their groups,
 * every grant that could open an app (their own and their groups', each with whether it does),
 * the portals they can use, and each usable app with every reason, all from the one rule above.
 */
export const effectiveAccess = guarded(
  { scope: "end_users:read" },
  async function effectiveAccess(db: Db, actor: Actor, input: { endUserId: string }): Promise<EffectiveAccessOutput> {
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
    const planGroupId = new Map(planGroups.map((plan) => [plan.id, plan.groupId]));
    const planModels = new Map(
      planGroups.map((plan) => [plan.id, Array.isArray(plan.allowedModels) ? (plan.allowedModels as string[]) : null]),
    );
    const entries = await accessEntries(db, organizationId, input.endUserId, groups);
    const groupGrants = groups.length
      ? await db.grant.findMany({
          where: { organizationId, targetKind: "app", groupId: { in: groups.map((group) => group.id) } },
          select: { id: true, targetId: true, groupId: true, deploymentId: true, expiresAt: true },
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        })
      : [];
    const grants = [
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
    const apps = grants.length
      ? await db.builderItem.findMany({
          where: { organizationId, kind: "app", id: { in: [...new Set(grants.map((grant) => grant.targetId))] } },
          select: { id: true, draft: true, productionVersionId: true },
        })
      : [];
    const appById = new Map(apps.map((app) => [app.id, app]));
    const live = (appId: string) => !!appById.get(appId)?.productionVersionId;
    const everywhere = entries.some((entry) => entry.portalId === null && live(entry.appId));
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
    const groupById = new Map(groups.map((group) => [group.id, group]));
    const holderOf = (groupId: string | null) => {
      const group = groupId ? groupById.get(groupId) : undefined;
      if (!group) return { holder: "user" as const, name: "" };
      return group.planName !== null
        ? { holder: "plan" as const, name: group.planName }
        : { holder: "group" as const, name: group.name };
    };

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
          appName: nameOf(appById.get(appId)!.draft),
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
    usable.sort((a, b) => a.appName.localeCompare(b.appName));

    const reachable = new Map<string, { id: string; name: string; apps: string[] }>();
    for (const app of usable) {
      for (const portal of app.portals === "all" ? all : app.portals) {
        const entry = reachable.get(portal.id) ?? { id: portal.id, name: portal.name, apps: [] };
        entry.apps.push(app.appName);
        reachable.set(portal.id, entry);
      }
    }
    const opening = new Set(entries.map((entry) => entry.grantId));
    const now = Date.now();
    return {
      accessMode: organization.accessMode,
      revoked: user.revokedAt !== null,
      suspended: user.suspendedAt !== null,
      plans: user.subscriptions
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
        .sort((a, b) => Number(a.status !== "active") - Number(b.status !== "active") || a.name.localeCompare(b.name)),
      groups: [...groups].sort((a, b) => a.name.localeCompare(b.name)),
      grants: grants.map((grant) => {
        const { holder, name } = holderOf(grant.groupId);
        const expired = grant.expiresAt !== null && grant.expiresAt.getTime() <= now;
        return {
          id: grant.id,
          appId: grant.targetId,
          appName: appById.has(grant.targetId) ? nameOf(appById.get(grant.targetId)!.draft) : "",
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
      portals: [...reachable.values()].sort((a, b) => a.name.localeCompare(b.name)),
      apps: usable,
    };
  },
);

const STARTERS_SHOWN = 4;

interface VersionDocument {
  name?: string;
  description?: string;
  api?: { greeting?: string; conversationEnabled?: boolean };
  conversationStarters?: string[];
}

interface AppPinsDocument {
  adviser?: { versionId: string } | null;
  members?: { kind: string; versionId: string }[];
}

/** The agent versions an app version pins: its adviser's and its agent members'. */
function pinnedAgentVersions(pins: AppPinsDocument | null): string[] {
  return [
    ...(pins?.adviser ? [pins.adviser.versionId] : []),
    ...(pins?.members ?? []).filter((m) => m.kind === "agent").map((m) => m.versionId),
  ];
}

/**
 * Conversation starters of live app versions, by app id: those of the app's adviser and agents at
 * their pinned versions (the portal and the console chat offer the same).
 */
export async function conversationStarters(
  db: Db,
  organizationId: string,
  versions: { itemId: string; pins: unknown }[],
): Promise<Map<string, string[]>> {
  const agentVersionIds = versions.flatMap((version) => pinnedAgentVersions(version.pins as AppPinsDocument | null));
  const agentDocuments = new Map(
    agentVersionIds.length
      ? (
          await db.builderVersion.findMany({
            where: { organizationId, id: { in: agentVersionIds } },
            select: { id: true, document: true },
          })
        ).map((row) => [row.id, row.document as VersionDocument])
      : [],
  );
  return new Map(
    versions.map((version) => [
      version.itemId,
      [
        ...new Set(
          pinnedAgentVersions(version.pins as AppPinsDocument | null).flatMap(
            (id) => agentDocuments.get(id)?.conversationStarters ?? [],
          ),
        ),
      ].slice(0, STARTERS_SHOWN),
    ]),
  );
}

/**
 * The apps an end user can chat with in this portal, as published: featured apps first in the
 * portal's order, then by name. Conversation starters come from the app's adviser and agents.
 */
export async function listPortalApps(
  db: Db,
  actor: EndUserActor,
  portal: { id: string; featuredAppIds: string[] },
): Promise<PortalApp[]> {
  const usable = await appsUsableBy(db, actor.organizationId, actor.endUser.id, portal.id);
  if (usable.length === 0) return [];
  const items = await db.builderItem.findMany({
    where: {
      organizationId: actor.organizationId,
      kind: "app",
      id: { in: usable },
      productionVersionId: { not: null },
    },
    select: { id: true, productionVersionId: true },
  });
  const versions = await db.builderVersion.findMany({
    where: { organizationId: actor.organizationId, id: { in: items.map((item) => item.productionVersionId!) } },
    select: { itemId: true, document: true, pins: true },
  });
  const starters = await conversationStarters(db, actor.organizationId, versions);
  const apps = versions.flatMap((version): PortalApp[] => {
    const document = version.document as VersionDocument;
    if (document.api?.conversationEnabled === false) return [];
    return [
      {
        id: version.itemId,
        name: document.name ?? "",
        description: document.description ?? "",
        greeting: document.api?.greeting ?? "",
        conversationStarters: starters.get(version.itemId) ?? [],
      },
    ];
  });
  const featured = (id: string) => {
    const position = portal.featuredAppIds.indexOf(id);
    return position === -1 ? Number.MAX_SAFE_INTEGER : position;
  };
  return apps.sort(
    (a, b) => featured(a.id) - featured(b.id) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
  );
}
