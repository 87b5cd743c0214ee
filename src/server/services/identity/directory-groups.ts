// Directory groups over SCIM 2.0 (contract: "Directory sync: SCIM 2.0"): user groups whose name
// and members only the directory changes. Every change is one transaction that locks the group,
// so concurrent PATCHes of one group apply one after another.
import { MAX_NAME_CHARS } from "@/schemas/limits";
import type { KeyActor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import type { Prisma } from "@/generated/prisma/client";
import { equalityOn, matchesFilter, parseScimFilter } from "@/server/scim/filter";
import { applyPatch, readPatchBody } from "@/server/scim/patch";
import { canonicalResource, GROUP_SCHEMA, scimError, type ScimObject } from "@/server/scim/schema";
import { changesBetween, recordEvent } from "../org/events";
import {
  meta,
  page,
  paging,
  scim,
  scimBaseUrl,
  syncGroupMemberships,
  TRANSACTION_OPTIONS,
  UUID,
  type ListQuery,
  type ListResult,
} from "./directory-shared";

type Tx = Prisma.TransactionClient;

type GroupRow = {
  id: string;
  name: string;
  externalId: string | null;
  directoryVersion: number;
  createdAt: Date;
  updatedAt: Date;
};

const groupSelect = {
  id: true,
  name: true,
  externalId: true,
  directoryVersion: true,
  createdAt: true,
  updatedAt: true,
} as const;

function groupResource(row: GroupRow, members: { value: string; display: string }[] | null): ScimObject {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(row.externalId !== null ? { externalId: row.externalId } : {}),
    displayName: row.name,
    ...(members
      ? { members: members.map((member) => ({ ...member, $ref: `${scimBaseUrl()}/Users/${member.value}` })) }
      : {}),
    meta: meta("Group", row.id, row.createdAt, row.updatedAt, row.directoryVersion + 1),
  };
}

async function membersOf(db: Db | Tx, groupIds: string[]): Promise<Map<string, { value: string; display: string }[]>> {
  const rows = await db.directoryGroupMember.findMany({
    where: { groupId: { in: groupIds } },
    select: { groupId: true, directoryUser: { select: { id: true, userName: true } } },
    orderBy: [{ addedAt: "asc" }, { directoryUserId: "asc" }],
  });
  const byGroup = new Map<string, { value: string; display: string }[]>(groupIds.map((id) => [id, []]));
  for (const row of rows)
    byGroup.get(row.groupId)!.push({ value: row.directoryUser.id, display: row.directoryUser.userName });
  return byGroup;
}

function groupColumns(group: ScimObject) {
  const name = typeof group.displayName === "string" ? group.displayName.trim() : "";
  if (!name) throw scimError(400, "invalidValue", "displayName is required.");
  if (name.length > MAX_NAME_CHARS)
    throw scimError(400, "invalidValue", `displayName is longer than ${MAX_NAME_CHARS} characters.`);
  return { name, externalId: typeof group.externalId === "string" ? group.externalId : null };
}

function memberIdsOf(group: ScimObject): string[] {
  const members = Array.isArray(group.members) ? (group.members as ScimObject[]) : [];
  return [
    ...new Set(
      members
        .map((member) => member.value)
        .filter((value): value is string => typeof value === "string" && UUID.test(value)),
    ),
  ];
}

/**
 * Sets the group's members to these directory users (ids that name none of the organization's
 * are ignored). The members that stay are looked up in a hashed set (`not in` a subquery), not
 * by `= any(array)` per member, which costs members × wanted.
 */
async function setGroupMembers(tx: Tx, organizationId: string, groupId: string, wanted: string[]): Promise<void> {
  await tx.$executeRaw`
    delete from directory_group_members dm using user_groups g
    where dm.group_id = ${groupId}::uuid and g.id = dm.group_id and g.organization_id = ${organizationId}::uuid
      and dm.directory_user_id not in (select unnest(${wanted}::uuid[]))`;
  await tx.$executeRaw`
    insert into directory_group_members (group_id, directory_user_id, added_at)
    select ${groupId}::uuid, d.id, now() from directory_users d where d.organization_id = ${organizationId}::uuid and d.id = any(${wanted}::uuid[])
    on conflict do nothing`;
  await syncGroupMemberships(tx, organizationId, [groupId]);
}

async function lockedGroup(tx: Tx, organizationId: string, id: string): Promise<GroupRow> {
  if (!UUID.test(id)) throw scimError(404, null, `No group ${id}.`);
  const locked = await tx.$queryRaw<{ id: string }[]>`
    select id::text from user_groups where id = ${id}::uuid and organization_id = ${organizationId}::uuid and directory_managed for update`;
  if (!locked[0]) throw scimError(404, null, `No group ${id}.`);
  return tx.userGroup.findUniqueOrThrow({ where: { id, organizationId }, select: groupSelect });
}

async function saveGroup(tx: Tx, actor: KeyActor, existing: GroupRow, group: ScimObject): Promise<GroupRow> {
  const membersBefore = await memberCount(tx, existing.id);
  await setGroupMembers(tx, actor.organizationId, existing.id, memberIdsOf(group));
  const row = await tx.userGroup.update({
    where: { id: existing.id, organizationId: actor.organizationId },
    data: { ...groupColumns(group), directoryVersion: { increment: 1 } },
    select: groupSelect,
  });
  const changes: Record<string, [unknown, unknown]> = changesBetween(existing, row, ["name", "externalId"]);
  const membersAfter = await memberCount(tx, existing.id);
  if (membersAfter !== membersBefore) changes.memberCount = [membersBefore, membersAfter];
  await recordEvent(tx, actor, { action: "user_group.update", target: groupTarget(row), changes });
  return row;
}

function groupTarget(row: { id: string; name: string }) {
  return { type: "user_group", id: row.id, label: row.name };
}

function memberCount(tx: Tx, groupId: string): Promise<number> {
  return tx.groupMember.count({ where: { groupId } });
}

export const createDirectoryGroup = guarded(
  scim,
  async function createDirectoryGroup(db: Db, actor: KeyActor, body: unknown): Promise<ScimObject> {
    const group = canonicalResource("Group", body);
    const columns = groupColumns(group);
    const row = await db.$transaction(async (tx) => {
      const created = await tx.userGroup.create({
        data: { organizationId: actor.organizationId, directoryManaged: true, ...columns },
        select: groupSelect,
      });
      await setGroupMembers(tx, actor.organizationId, created.id, memberIdsOf(group));
      await recordEvent(tx, actor, {
        action: "user_group.create",
        target: groupTarget(created),
        changes: { memberCount: [0, await memberCount(tx, created.id)] },
      });
      return created;
    }, TRANSACTION_OPTIONS);
    return groupResource(row, (await membersOf(db, [row.id])).get(row.id)!);
  },
);

async function findGroupRow(db: Db, organizationId: string, id: string): Promise<GroupRow> {
  const row = UUID.test(id)
    ? await db.userGroup.findFirst({ where: { id, organizationId, directoryManaged: true }, select: groupSelect })
    : null;
  if (!row) throw scimError(404, null, `No group ${id}.`);
  return row;
}

export const getDirectoryGroup = guarded(
  scim,
  async function getDirectoryGroup(
    db: Db,
    actor: KeyActor,
    id: string,
    options: { withoutMembers?: boolean } = {},
  ): Promise<ScimObject> {
    const row = await findGroupRow(db, actor.organizationId, id);
    return groupResource(row, options.withoutMembers ? null : (await membersOf(db, [row.id])).get(row.id)!);
  },
);

export const replaceDirectoryGroup = guarded(
  scim,
  async function replaceDirectoryGroup(db: Db, actor: KeyActor, id: string, body: unknown): Promise<ScimObject> {
    const group = canonicalResource("Group", body);
    const row = await db.$transaction(
      async (tx) => saveGroup(tx, actor, await lockedGroup(tx, actor.organizationId, id), group),
      TRANSACTION_OPTIONS,
    );
    return groupResource(row, (await membersOf(db, [row.id])).get(row.id)!);
  },
);

export const patchDirectoryGroup = guarded(
  scim,
  async function patchDirectoryGroup(db: Db, actor: KeyActor, id: string, body: unknown): Promise<ScimObject> {
    const operations = readPatchBody(body);
    const row = await db.$transaction(async (tx) => {
      const existing = await lockedGroup(tx, actor.organizationId, id);
      const current = groupResource(existing, (await membersOf(tx, [existing.id])).get(existing.id)!);
      return saveGroup(tx, actor, existing, canonicalResource("Group", applyPatch("Group", current, operations)));
    }, TRANSACTION_OPTIONS);
    return groupResource(row, (await membersOf(db, [row.id])).get(row.id)!);
  },
);

/** The group and its memberships go; its end users stay. */
export const deleteDirectoryGroup = guarded(
  scim,
  async function deleteDirectoryGroup(db: Db, actor: KeyActor, id: string): Promise<void> {
    await db.$transaction(async (tx) => {
      const existing = await lockedGroup(tx, actor.organizationId, id);
      await tx.userGroup.delete({ where: { id: existing.id, organizationId: actor.organizationId } });
      await recordEvent(tx, actor, { action: "user_group.delete", target: groupTarget(existing) });
    }, TRANSACTION_OPTIONS);
  },
);

export const listDirectoryGroups = guarded(
  scim,
  async function listDirectoryGroups(db: Db, actor: KeyActor, query: ListQuery): Promise<ListResult> {
    const { startIndex, count } = paging(query);
    const filter = query.filter ? parseScimFilter(query.filter) : null;
    const where: Prisma.UserGroupWhereInput = { organizationId: actor.organizationId, directoryManaged: true };
    const displayName = filter ? equalityOn(filter, "displayName") : null;
    const externalId = filter ? equalityOn(filter, "externalId") : null;
    if (displayName !== null) where.name = { equals: displayName, mode: "insensitive" };
    else if (externalId !== null) where.externalId = externalId;
    const orderBy = [{ createdAt: "asc" as const }, { id: "asc" as const }];
    const withMembers = async (rows: GroupRow[]) => {
      if (query.withoutMembers) return rows.map((row) => groupResource(row, null));
      const members = await membersOf(
        db,
        rows.map((row) => row.id),
      );
      return rows.map((row) => groupResource(row, members.get(row.id)!));
    };
    if (!filter || displayName !== null || externalId !== null) {
      const [total, rows] = await Promise.all([
        db.userGroup.count({ where }),
        db.userGroup.findMany({ where, orderBy, skip: startIndex - 1, take: count, select: groupSelect }),
      ]);
      return page(await withMembers(rows), total, startIndex);
    }
    const all = await db.userGroup.findMany({ where, orderBy, select: groupSelect });
    // Filters that name members need them; others are decided on the group alone.
    const needsMembers = (query.filter ?? "").toLowerCase().includes("members");
    const members = needsMembers
      ? await membersOf(
          db,
          all.map((row) => row.id),
        )
      : null;
    const matching = all.filter((row) => matchesFilter(groupResource(row, members?.get(row.id) ?? []), filter));
    return page(await withMembers(matching.slice(startIndex - 1, startIndex - 1 + count)), matching.length, startIndex);
  },
);
