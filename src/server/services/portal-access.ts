// THE access rule for end users, used by every door
// that acts for an end user: the portal, the API on behalf of an end user, and the console's
// "effective access" view.
//   grants mode: an unexpired grant to the app on the end user or on one of their groups (plan
//     groups included), with no deploymentId or with deploymentId = the portal;
//   groups mode: one of their groups is admitted to the portal and that same group holds an
//     unexpired grant to the app (not limited to another portal); without a portal, no access.
// The end user must be active (not revoked, not deleted). Apps must be live.
import type { EffectiveAccessOutput, PortalApp } from "@/schemas/portal";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import { authorize } from "@/server/auth/authorize";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";

/** One way an end user reaches an app: in one portal, or in every portal (`portalId` null). */
interface AccessEntry {
  appId: string;
  portalId: string | null;
  via: string;
}

interface GroupOfUser {
  id: string;
  label: string;
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
      select: { tierPlan: { select: { name: true, groupId: true } } },
    }),
  ]);
  const groups = new Map<string, string>();
  for (const { group } of memberships) groups.set(group.id, group.plan ? `plan:${group.plan.name}` : `group:${group.name}`);
  for (const { tierPlan } of subscriptions) groups.set(tierPlan.groupId!, `plan:${tierPlan.name}`);
  return [...groups].map(([id, label]) => ({ id, label }));
}

/** Every way an active end user reaches an app; none for an unknown, revoked or deleted one. */
async function accessEntries(db: Db, organizationId: string, endUserId: string): Promise<AccessEntry[]> {
  const endUser = await db.endUser.findFirst({
    where: { id: endUserId, organizationId, revokedAt: null, deletedAt: null },
    select: { id: true, organization: { select: { accessMode: true } } },
  });
  if (!endUser) return [];
  const groups = await groupsOf(db, organizationId, endUserId);
  const groupLabel = new Map(groups.map((group) => [group.id, group.label]));
  const groupsMode = endUser.organization.accessMode === "groups";
  const grants = await db.grant.findMany({
    where: {
      organizationId,
      targetKind: "app",
      effect: "allow",
      OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }],
      AND: [{ OR: [...(groupsMode ? [] : [{ endUserId }]), { groupId: { in: groups.map((group) => group.id) } }] }],
    },
    select: { targetId: true, endUserId: true, groupId: true, deploymentId: true },
  });
  if (!groupsMode) {
    return grants.map((grant) => ({
      appId: grant.targetId,
      portalId: grant.deploymentId,
      via: grant.groupId ? groupLabel.get(grant.groupId)! : "grant",
    }));
  }
  const admissions = await db.portalAdmission.findMany({
    where: { groupId: { in: groups.map((group) => group.id) }, portal: { organizationId } },
    select: { portalId: true, groupId: true },
  });
  return grants.flatMap((grant) =>
    admissions
      .filter((admission) => admission.groupId === grant.groupId && (grant.deploymentId === null || grant.deploymentId === admission.portalId))
      .map((admission) => ({ appId: grant.targetId, portalId: admission.portalId, via: groupLabel.get(admission.groupId)! })),
  );
}

function reaches(entry: AccessEntry, portalId: string | null): boolean {
  return entry.portalId === null || entry.portalId === portalId;
}

/** The live apps of the organization among these ids, with their drafts (for their names). */
async function liveApps(db: Db, organizationId: string, appIds: string[]) {
  if (appIds.length === 0) return [];
  return db.builderItem.findMany({
    where: { organizationId, kind: "app", id: { in: appIds }, productionVersionId: { not: null } },
    select: { id: true, draft: true },
  });
}

/**
 * The ids of the live apps an end user can use, in a portal or (portalId null) through the API
 * without one. Empty for an end user who is unknown, of another organization, revoked or deleted.
 */
export async function appsUsableBy(db: Db, organizationId: string, endUserId: string, portalId: string | null): Promise<string[]> {
  const entries = await accessEntries(db, organizationId, endUserId);
  const appIds = [...new Set(entries.filter((entry) => reaches(entry, portalId)).map((entry) => entry.appId))];
  return (await liveApps(db, organizationId, appIds)).map((app) => app.id);
}

/** Refuses with not_found (like an unpublished app) unless the end user can use the app there. */
export async function assertCanUse(db: Db, organizationId: string, endUserId: string, portalId: string | null, appId: string): Promise<void> {
  const usable = await appsUsableBy(db, organizationId, endUserId, portalId);
  if (!usable.includes(appId)) throw new AppError("not_found", "No app with that id.");
}

/**
 * The end user's active identity in the organization, or not_found: unknown, of another
 * organization, revoked or deleted all answer alike.
 */
export async function findActiveEndUser(db: Db, organizationId: string, endUserId: string) {
  const endUser = await db.endUser.findFirst({
    where: { id: endUserId, organizationId, revokedAt: null, deletedAt: null },
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
export async function runFor(db: Db, actor: Actor | EndUserActor, appId: string, onBehalf: { endUserId?: string; portalId?: string }): Promise<RunFor> {
  if (actor.kind === "end_user") {
    await assertCanUse(db, actor.organizationId, actor.endUser.id, actor.portalId, appId);
    return { endUserId: actor.endUser.id, portalId: actor.portalId };
  }
  if (!onBehalf.endUserId) {
    if (onBehalf.portalId) {
      throw new AppError("invalid_request", "Invalid request: portalId needs endUserId.", { problems: [{ path: "portalId", message: "Only with endUserId" }] });
    }
    return { endUserId: null, portalId: null };
  }
  await findActiveEndUser(db, actor.organizationId, onBehalf.endUserId);
  if (onBehalf.portalId) {
    const portal = await db.portal.findFirst({ where: { id: onBehalf.portalId, organizationId: actor.organizationId }, select: { id: true } });
    if (!portal) throw new AppError("not_found", "No portal with that id.");
  }
  await assertCanUse(db, actor.organizationId, onBehalf.endUserId, onBehalf.portalId ?? null, appId);
  return { endUserId: onBehalf.endUserId, portalId: onBehalf.portalId ?? null };
}

/** The console's view of an end user's access: each usable app, where, and why. */
export async function effectiveAccess(db: Db, actor: Actor, input: { endUserId: string }): Promise<EffectiveAccessOutput> {
  authorize(actor, { scope: "end_users:read" });
  const exists = await db.endUser.findFirst({ where: { id: input.endUserId, organizationId: actor.organizationId }, select: { id: true } });
  if (!exists) throw new AppError("not_found", "No end user with that id.");
  const entries = await accessEntries(db, actor.organizationId, input.endUserId);
  const apps = await liveApps(db, actor.organizationId, [...new Set(entries.map((entry) => entry.appId))]);
  const portalIds = [...new Set(entries.flatMap((entry) => (entry.portalId ? [entry.portalId] : [])))];
  const portals = new Map(
    (await db.portal.findMany({ where: { id: { in: portalIds }, organizationId: actor.organizationId }, select: { id: true, name: true } })).map((p) => [p.id, p]),
  );
  const nameOf = (draft: unknown) => String((draft as { name?: unknown } | null)?.name ?? "");
  return {
    apps: apps
      .map((app) => {
        const mine = entries.filter((entry) => entry.appId === app.id);
        const everywhere = mine.some((entry) => entry.portalId === null);
        const where = [...new Set(mine.flatMap((entry) => (entry.portalId && portals.has(entry.portalId) ? [entry.portalId] : [])))];
        return {
          appId: app.id,
          appName: nameOf(app.draft),
          portals: everywhere ? ("all" as const) : where.map((id) => portals.get(id)!),
          via: [...new Set(mine.map((entry) => (entry.portalId && portals.has(entry.portalId) ? `${entry.via} (${portals.get(entry.portalId)!.name})` : entry.via)))],
        };
      })
      .filter((app) => app.portals === "all" || app.portals.length > 0)
      .sort((a, b) => a.appName.localeCompare(b.appName)),
  };
}

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
  return [...(pins?.adviser ? [pins.adviser.versionId] : []), ...(pins?.members ?? []).filter((m) => m.kind === "agent").map((m) => m.versionId)];
}

/**
 * Conversation starters of live app versions, by app id: those of the app's adviser and agents at
 * their pinned versions (the portal and the console chat offer the same).
 */
export async function conversationStarters(db: Db, organizationId: string, versions: { itemId: string; pins: unknown }[]): Promise<Map<string, string[]>> {
  const agentVersionIds = versions.flatMap((version) => pinnedAgentVersions(version.pins as AppPinsDocument | null));
  const agentDocuments = new Map(
    agentVersionIds.length
      ? (await db.builderVersion.findMany({ where: { organizationId, id: { in: agentVersionIds } }, select: { id: true, document: true } })).map((row) => [
          row.id,
          row.document as VersionDocument,
        ])
      : [],
  );
  return new Map(
    versions.map((version) => [
      version.itemId,
      [...new Set(pinnedAgentVersions(version.pins as AppPinsDocument | null).flatMap((id) => agentDocuments.get(id)?.conversationStarters ?? []))].slice(0, STARTERS_SHOWN),
    ]),
  );
}

/**
 * The apps an end user can chat with in this portal, as published: featured apps first in the
 * portal's order, then by name. Conversation starters come from the app's adviser and agents.
 */
export async function listPortalApps(db: Db, actor: EndUserActor, portal: { id: string; featuredAppIds: string[] }): Promise<PortalApp[]> {
  const usable = await appsUsableBy(db, actor.organizationId, actor.endUser.id, portal.id);
  if (usable.length === 0) return [];
  const items = await db.builderItem.findMany({
    where: { organizationId: actor.organizationId, kind: "app", id: { in: usable }, productionVersionId: { not: null } },
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
  return apps.sort((a, b) => featured(a.id) - featured(b.id) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}
