// User groups: members, additive grants, and the plan groups whose membership follows a plan.
import type {
  AddGroupGrantInput,
  AddGroupMemberInput,
  CreateUserGroupInput,
  GrantInput,
  GroupIdInput,
  ListGroupMembersInput,
  ListUserGroupsInput,
  RemoveGroupGrantInput,
  UpdateUserGroupInput,
  UserGroup,
} from "@/schemas/provisioning/provisioning";
import { channelOf, type Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { assertGrantTargets, insertGrants, toGrant } from "../support/grants";
import { changesBetween, recorded, recordEvent } from "../org/events";
import { nameContains } from "../org/name-search";
import type { Prisma } from "@/generated/prisma/client";
import { afterCursor, toPage, oldestFirst } from "../support/pagination";

type GroupRow = {
  id: string;
  name: string;
  description: string;
  directoryManaged: boolean;
  createdAt: Date;
  plan: { id: string } | null;
  _count: { members: number };
};

const groupInclude = { plan: { select: { id: true } }, _count: { select: { members: true } } } as const;

export function toUserGroup(row: GroupRow): UserGroup {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    createdAt: row.createdAt.toISOString(),
    memberCount: row._count.members,
    planId: row.plan?.id ?? null,
    directoryManaged: row.directoryManaged,
  };
}

/** The refusal when the organization's groups switch is off. */
export function groupsDisabled(): AppError {
  return new AppError("groups_disabled", "User groups are not enabled for this organization.");
}

/** Groups, group grants and portal admissions need the organization's groups switch. */
export async function assertGroupsEnabled(
  db: Db,
  organizationId: string,
): Promise<{ accessMode: "grants" | "groups" }> {
  const organization = await db.organization.findUnique({
    where: { id: organizationId },
    select: { groupsEnabled: true, accessMode: true },
  });
  if (!organization?.groupsEnabled) throw groupsDisabled();
  return organization;
}

async function findGroup(db: Db, actor: Actor, groupId: string) {
  const group = await db.userGroup.findFirst({
    where: { id: groupId, organizationId: actor.organizationId },
    include: groupInclude,
  });
  if (!group) throw new AppError("not_found", "No user group with that id.");
  return group;
}

/** The group `groupId`, in an organization whose groups are on: where most group operations start. */
async function findEnabledGroup(db: Db, actor: Actor, groupId: string) {
  await assertGroupsEnabled(db, actor.organizationId);
  return findGroup(db, actor, groupId);
}

/** A directory group's name and members follow the organization's directory (SCIM) alone. */
export function refuseDirectoryGroup(group: { directoryManaged: boolean }, action: "rename" | "members"): void {
  if (!group.directoryManaged) return;
  throw new AppError(
    "directory_managed",
    action === "rename"
      ? "This group comes from the organization's directory: rename it there."
      : "This group comes from the organization's directory: change its members there.",
  );
}

function refusePlanGroup(group: GroupRow, action: "rename" | "delete" | "members"): void {
  if (!group.plan) return;
  if (action === "members") {
    throw new AppError(
      "plan_group",
      "This group belongs to a plan and follows it: assign the plan with tierPlanIds on POST /end-users instead.",
    );
  }
  throw new AppError(
    "plan_group",
    `This group belongs to a plan and follows it: ${action === "rename" ? "rename" : "archive"} the plan instead.`,
    {},
    { status: 409 },
  );
}

function groupTarget(group: { id: string; name: string }) {
  return { type: "user_group", id: group.id, label: group.name };
}

export const createUserGroup = guarded(
  { scope: "end_users:write" },
  async function createUserGroup(db: Db, actor: Actor, input: CreateUserGroupInput): Promise<UserGroup> {
    await assertGroupsEnabled(db, actor.organizationId);
    const create = (tx: Prisma.TransactionClient) =>
      tx.userGroup.create({
        data: { organizationId: actor.organizationId, name: input.name, description: input.description ?? "" },
        include: groupInclude,
      });
    const row = await recorded(db, actor, create, (group) => ({
      action: "user_group.create",
      target: groupTarget(group),
      changes: { name: [null, group.name] },
    }));
    return toUserGroup(row);
  },
);

export const listUserGroups = guarded(
  { scope: "end_users:read" },
  async function listUserGroups(db: Db, actor: Actor, input: ListUserGroupsInput) {
    await assertGroupsEnabled(db, actor.organizationId);
    const page = await oldestFirst(input, (after, window) =>
      db.userGroup.findMany({
        where: { organizationId: actor.organizationId, ...nameContains(input.q), ...after },
        include: groupInclude,
        ...window,
      }),
    );
    return { userGroups: page.items.map(toUserGroup), nextCursor: page.nextCursor };
  },
);

export const getUserGroup = guarded(
  { scope: "end_users:read" },
  async function getUserGroup(db: Db, actor: Actor, input: GroupIdInput): Promise<UserGroup> {
    return toUserGroup(await findEnabledGroup(db, actor, input.groupId));
  },
);

export const updateUserGroup = guarded(
  { scope: "end_users:write" },
  async function updateUserGroup(db: Db, actor: Actor, input: UpdateUserGroupInput): Promise<UserGroup> {
    const group = await findEnabledGroup(db, actor, input.groupId);
    if (input.name !== undefined && input.name !== group.name) {
      refusePlanGroup(group, "rename");
      refuseDirectoryGroup(group, "rename");
    }
    return db.$transaction(async (tx) => {
      // The group as it is now, locked: the event's "before"; nothing differs, nothing recorded.
      await tx.$queryRaw`select 1 from user_groups where id = ${group.id}::uuid and organization_id = ${actor.organizationId}::uuid
        for no key update`;
      const current = await tx.userGroup.findFirstOrThrow({
        where: { id: group.id, organizationId: actor.organizationId },
        include: groupInclude,
      });
      const changes = changesBetween(current, input, ["name", "description"]);
      if (Object.keys(changes).length === 0) return toUserGroup(current);
      const row = await tx.userGroup.update({
        where: { id: group.id, organizationId: actor.organizationId },
        data: { name: input.name, description: input.description },
        include: groupInclude,
      });
      await recordEvent(tx, actor, { action: "user_group.update", target: groupTarget(row), changes });
      return toUserGroup(row);
    });
  },
);

export const deleteUserGroup = guarded(
  { scope: "end_users:write", may: "delete" },
  async function deleteUserGroup(db: Db, actor: Actor, input: GroupIdInput): Promise<void> {
    const group = await findEnabledGroup(db, actor, input.groupId);
    refusePlanGroup(group, "delete");
    await db.$transaction([
      db.userGroup.delete({ where: { id: group.id, organizationId: actor.organizationId } }),
      recordEvent(db, actor, { action: "user_group.delete", target: groupTarget(group) }),
    ]);
  },
);

/** Adds an end user to a group; adding a member again answers the existing membership. */
export const addGroupMember = guarded(
  { scope: "end_users:write" },
  async function addGroupMember(db: Db, actor: Actor, input: AddGroupMemberInput) {
    const group = await findEnabledGroup(db, actor, input.groupId);
    const endUser = await db.endUser.findFirst({
      where: { id: input.endUserId, organizationId: actor.organizationId, deletedAt: null },
      select: { id: true },
    });
    if (!endUser) throw new AppError("end_user_not_found", `No end user ${input.endUserId} in this organization.`);
    refusePlanGroup(group, "members");
    refuseDirectoryGroup(group, "members");
    const add = (tx: Prisma.TransactionClient) =>
      tx.groupMember.createManyAndReturn({
        data: [{ groupId: group.id, endUserId: endUser.id }],
        skipDuplicates: true,
      });
    const inserted = await recorded(db, actor, add, (rows) =>
      rows.length
        ? { action: "user_group.member_add", target: groupTarget(group), changes: { members: [null, endUser.id] } }
        : null,
    );
    const member =
      inserted[0] ??
      (await db.groupMember.findUniqueOrThrow({
        where: { groupId_endUserId: { groupId: group.id, endUserId: endUser.id } },
      }));
    return {
      created: inserted.length > 0,
      member: { groupId: member.groupId, endUserId: member.endUserId, addedAt: member.addedAt.toISOString() },
    };
  },
);

export const removeGroupMember = guarded(
  { scope: "end_users:write", may: "delete" },
  async function removeGroupMember(db: Db, actor: Actor, input: AddGroupMemberInput): Promise<void> {
    const group = await findEnabledGroup(db, actor, input.groupId);
    refusePlanGroup(group, "members");
    refuseDirectoryGroup(group, "members");
    const remove = (tx: Prisma.TransactionClient) =>
      tx.groupMember.deleteMany({ where: { groupId: group.id, endUserId: input.endUserId } });
    const { count } = await recorded(db, actor, remove, ({ count }) =>
      count
        ? {
            action: "user_group.member_remove",
            target: groupTarget(group),
            changes: { members: [input.endUserId, null] },
          }
        : null,
    );
    if (count === 0) throw new AppError("not_found", "That end user is not a member of this group.");
  },
);

/**
 * A page of the group's members in (addedAt, endUserId) order: a plan group may hold most of
 * the organization, so the console reads it a page at a time (the index on group_members
 * (group_id, added_at, end_user_id) serves every page).
 */
export const listGroupMembers = guarded(
  { scope: "end_users:read" },
  async function listGroupMembers(db: Db, actor: Actor, input: ListGroupMembersInput) {
    // Not findGroup: its member count would read the whole group on every page.
    const group = await db.userGroup.findFirst({
      where: { id: input.groupId, organizationId: actor.organizationId },
      select: { id: true },
    });
    if (!group) throw new AppError("not_found", "No user group with that id.");
    const rows = await db.groupMember.findMany({
      where: {
        groupId: group.id,
        ...afterCursor(input.cursor, { time: "addedAt", id: "endUserId" }),
      },
      include: { endUser: { select: { email: true, fullName: true } } },
      orderBy: [{ addedAt: "asc" }, { endUserId: "asc" }],
      take: input.limit + 1,
    });
    const page = toPage(
      rows.map((row) => ({ ...row, createdAt: row.addedAt, id: row.endUserId })),
      input.limit,
    );
    return {
      members: page.items.map((row) => ({
        groupId: row.groupId,
        endUserId: row.endUserId,
        addedAt: row.addedAt.toISOString(),
        email: row.endUser.email,
        fullName: row.endUser.fullName,
      })),
      nextCursor: page.nextCursor,
    };
  },
);

/**
 * Grants everyone in the group access (additive: always allow). A duplicate answers the
 * existing grant. Groups-managed organizations scope portals with admissions, not grants.
 */
export const addGroupGrant = guarded(
  { scope: "end_users:write" },
  async function addGroupGrant(db: Db, actor: Actor, input: AddGroupGrantInput) {
    const organization = await assertGroupsEnabled(db, actor.organizationId);
    const group = await findGroup(db, actor, input.groupId);
    if (input.deploymentId && organization.accessMode === "groups") {
      throw new AppError(
        "portal_scope_unsupported",
        "This organization manages access with groups: omit deploymentId and admit the group to the portal instead.",
      );
    }
    const grant: GrantInput = { ...input, effect: "allow" };
    await assertGrantTargets(db, actor.organizationId, [grant]);
    const insert = (tx: Prisma.TransactionClient) =>
      insertGrants(tx, { organizationId: actor.organizationId, groupId: group.id }, [grant], channelOf(actor));
    const created = await recorded(db, actor, insert, (count) =>
      count ? { action: "grant.create", target: groupTarget(group), changes: { grants: [null, grant] } } : null,
    );
    const row = await db.grant.findFirstOrThrow({
      where: {
        groupId: group.id,
        targetKind: grant.targetKind,
        targetId: grant.targetId,
        effect: "allow",
        deploymentId: grant.deploymentId ?? null,
      },
    });
    return { created: created > 0, grant: toGrant(row) };
  },
);

export const removeGroupGrant = guarded(
  { scope: "end_users:write", may: "delete" },
  async function removeGroupGrant(db: Db, actor: Actor, input: RemoveGroupGrantInput): Promise<void> {
    const group = await findEnabledGroup(db, actor, input.groupId);
    const remove = (tx: Prisma.TransactionClient) =>
      tx.grant.deleteMany({ where: { id: input.grantId, organizationId: actor.organizationId, groupId: group.id } });
    const { count } = await recorded(db, actor, remove, ({ count }) =>
      count ? { action: "grant.delete", target: { type: "grant", id: input.grantId, label: group.name } } : null,
    );
    if (count === 0) throw new AppError("not_found", "No grant with that id on this group.");
  },
);

export const listGroupGrants = guarded(
  { scope: "end_users:read" },
  async function listGroupGrants(db: Db, actor: Actor, input: GroupIdInput) {
    const group = await findGroup(db, actor, input.groupId);
    const rows = await db.grant.findMany({
      where: { groupId: group.id },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return rows.map(toGrant);
  },
);
