// THE access rule for end users, used by every door
// that acts for an end user: the portal, the API on behalf of an end user, and the console's
// "effective access" view (effective-access.ts).
//   grants mode: an unexpired grant to the app on the end user or on one of their groups (plan
//     groups included), with no deploymentId or with deploymentId = the portal;
//   groups mode: one of their groups is admitted to the portal and that same group holds an
//     unexpired grant to the app (not limited to another portal); without a portal, no access.
// The end user must be active (not revoked, not suspended by the directory, not deleted): the
// one definition is ACTIVE_END_USER below, used by sessions and sign-in too. Apps must be live.
import type { Actor, EndUserActor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";

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
export async function groupsOf(db: Db, organizationId: string, endUserId: string): Promise<GroupOfUser[]> {
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
export async function accessEntries(
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
 * Whether the end user ($2) can use one live app ($4) of the organization ($1), in a portal ($3)
 * or (null) without one: the rule of accessEntries and appsUsableBy above as one statement, for
 * the check every turn and transaction on behalf of an end user makes (tests/portal/access.test.ts
 * holds both to it). The end user's own grants and their groups' are two reads, not one with an
 * OR: each then starts from its own index of grants, where one OR read the organization's every
 * grant (one per end user: 30–70 ms a turn at a million, BENCHMARKS.md).
 */
export const MAY_USE_APP_SQL = `
    with person as (
      select o.access_mode::text = 'groups' as groups_mode
      from end_users u join organizations o on o.id = u.organization_id
      where u.id = $2::uuid and u.organization_id = $1::uuid
        and u.revoked_at is null and u.suspended_at is null and u.deleted_at is null
    ),
    their_groups as (
      select m.group_id as id from group_members m join user_groups g on g.id = m.group_id
      where m.end_user_id = $2::uuid and g.organization_id = $1::uuid
      union
      select p.group_id from subscriptions s join tier_plans p on p.id = s.tier_plan_id
      where s.end_user_id = $2::uuid and s.status = 'active' and p.organization_id = $1::uuid
        and p.group_id is not null
    ),
    app_grants as (
      select g.group_id, g.deployment_id from grants g, person
      where not person.groups_mode and g.end_user_id = $2::uuid
        and g.organization_id = $1::uuid and g.target_kind = 'app' and g.effect = 'allow'
        and g.target_id = $4::uuid and (g.expires_at is null or g.expires_at > now())
      union all
      select g.group_id, g.deployment_id from grants g
      where g.group_id in (select id from their_groups)
        and g.organization_id = $1::uuid and g.target_kind = 'app' and g.effect = 'allow'
        and g.target_id = $4::uuid and (g.expires_at is null or g.expires_at > now())
    )
    select exists (
      select 1 from person, builder_items b
      where b.id = $4::uuid and b.organization_id = $1::uuid and b.kind = 'app'
        and b.production_version_id is not null
        and case when not person.groups_mode
          then exists (select 1 from app_grants g where g.deployment_id is null or g.deployment_id = $3::uuid)
          else exists (
            select 1 from app_grants g
            join portal_admissions a on a.group_id = g.group_id
            join portals p on p.id = a.portal_id and p.organization_id = $1::uuid
            where a.portal_id = $3::uuid and (g.deployment_id is null or g.deployment_id = a.portal_id))
        end
    ) as may`;

async function mayUseApp(
  db: Db,
  organizationId: string,
  endUserId: string,
  portalId: string | null,
  appId: string,
): Promise<boolean> {
  // Named, so that each connection parses and plans it once.
  const { rows } = await db.pool.query<{ may: boolean }>({
    name: "atrium_may_use_app",
    text: MAY_USE_APP_SQL,
    values: [organizationId, endUserId, portalId, appId],
  });
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
