// The organization's directory over SCIM 2.0 (contract: "Directory sync: SCIM 2.0"). Directory
// users stand for end users by address (provisioned when missing, suspended when no active
// directory user stands for them any more, never deleted); directory groups are user groups whose
// name and members only the directory changes. Every change is one transaction that locks the
// resource it changes, so concurrent PATCHes of one group apply one after another.
import { publicOrigin } from "@/env";
import { MAX_EMAIL_CHARS, MAX_NAME_CHARS } from "@/schemas/limits";
import { SCIM_SCOPE } from "@/schemas/identity/auth";
import { printableText } from "@/schemas/text";
import type { DirectoryOverview } from "@/schemas/identity/directory";
import type { Actor, KeyActor } from "@/server/auth/actor";
import { hashSecret, randomToken } from "@/server/auth/secrets";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { Prisma } from "@/generated/prisma/client";
import { equalityOn, matchesFilter, parseScimFilter } from "@/server/scim/filter";
import { applyPatch, readPatchBody } from "@/server/scim/patch";
import {
  canonicalResource,
  ENTERPRISE_SCHEMA,
  GROUP_SCHEMA,
  LIST_RESPONSE_SCHEMA,
  scimError,
  toBoolean,
  USER_SCHEMA,
  type ScimObject,
} from "@/server/scim/schema";
import { logger } from "@/server/observability/log";
import { subscribe } from "../provisioning/end-user-subscriptions";
import { toEndUser } from "../provisioning/end-users-shared";
import { changesBetween, recordEvent, SECRET_CHANGED } from "../org/events";
import { normalizeEmail } from "./members";
import { samlAcsUrl, samlEntityId } from "./saml";
import { redirectUri } from "./sso";
import { liveTierPlan } from "../provisioning/tier-plans";

type Tx = Prisma.TransactionClient;

/** SCIM lists: `count` defaults to 100 and is at most 1000 (contract). */
export const DEFAULT_SCIM_COUNT = 100;
export const MAX_SCIM_COUNT = 1_000;
/** Long enough for 20 PATCHes of one group queued behind each other's lock. */
const TRANSACTION_OPTIONS = { maxWait: 30_000, timeout: 30_000 } as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function scimBaseUrl(): string {
  return `${publicOrigin()}/scim/v2`;
}

export interface ListQuery {
  filter?: string;
  startIndex?: number;
  count?: number;
  /** Leave group members out (`excludedAttributes=members`): they are not even read. */
  withoutMembers?: boolean;
}

export interface ListResult {
  schemas: string[];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
  Resources: ScimObject[];
}

// ---------------------------------------------------------------------------------------------
// Users

type DirectoryUserRow = {
  id: string;
  userName: string;
  externalId: string | null;
  active: boolean;
  attributes: Prisma.JsonValue;
  endUserId: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
};

function meta(kind: "User" | "Group", id: string, created: Date, lastModified: Date, version: number) {
  return {
    resourceType: kind,
    created: created.toISOString(),
    lastModified: lastModified.toISOString(),
    location: `${scimBaseUrl()}/${kind}s/${id}`,
    version: `W/"${version}"`,
  };
}

export function userResource(row: DirectoryUserRow): ScimObject {
  const attributes = (row.attributes ?? {}) as ScimObject;
  const schemas = attributes[ENTERPRISE_SCHEMA] ? [USER_SCHEMA, ENTERPRISE_SCHEMA] : [USER_SCHEMA];
  return {
    schemas,
    id: row.id,
    ...(row.externalId !== null ? { externalId: row.externalId } : {}),
    ...attributes,
    userName: row.userName,
    active: row.active,
    meta: meta("User", row.id, row.createdAt, row.updatedAt, row.version),
  };
}

/** The end user's address: the primary email, the first work email, the first email, or userName, whichever is first an email address. */
export function addressOf(user: ScimObject): string | null {
  const emails = Array.isArray(user.emails) ? (user.emails as ScimObject[]) : [];
  const candidates = [
    emails.find((email) => email.primary === true),
    emails.find((email) => String(email.type ?? "").toLowerCase() === "work"),
    emails[0],
  ]
    .map((email) => email?.value)
    .concat(user.userName);
  for (const candidate of candidates) {
    if (typeof candidate === "string" && isEmailAddress(candidate.trim())) return normalizeEmail(candidate);
  }
  return null;
}

/** An address of the form local@domain with no spaces: checked by hand, in one pass, on untrusted text. */
function isEmailAddress(text: string): boolean {
  if (text.length > MAX_EMAIL_CHARS) return false;
  const at = text.indexOf("@");
  if (at <= 0 || at !== text.lastIndexOf("@") || at === text.length - 1) return false;
  for (const char of text)
    if (char <= " " || char === "<" || char === ">" || char === "," || char === ";") return false;
  const domain = text.slice(at + 1);
  return domain.includes(".") && !domain.startsWith(".") && !domain.endsWith(".");
}

/** The end user's name from the directory: displayName, else name.formatted, else given and family names. */
function fullNameOf(user: ScimObject): string {
  const name = (user.name ?? {}) as ScimObject;
  const text =
    (typeof user.displayName === "string" && user.displayName.trim()) ||
    (typeof name.formatted === "string" && name.formatted.trim()) ||
    [name.givenName, name.familyName].filter((part) => typeof part === "string" && part.trim()).join(" ");
  return text.slice(0, MAX_NAME_CHARS);
}

/** The stored form of a canonical user: its columns and the attributes kept as sent. */
function userColumns(user: ScimObject, existingActive: boolean | null) {
  const userName = typeof user.userName === "string" ? user.userName.trim() : "";
  if (!userName) throw scimError(400, "invalidValue", "userName is required.");
  const attributes = { ...user };
  for (const key of ["userName", "externalId", "active", "id", "meta", "schemas"]) delete attributes[key];
  return {
    userName,
    userNameKey: userName.toLowerCase(),
    externalId: typeof user.externalId === "string" ? user.externalId : null,
    active: user.active === undefined ? (existingActive ?? true) : toBoolean(user.active, "active"),
    attributes: attributes as Prisma.InputJsonObject,
  };
}

/**
 * The end user a directory user stands for, by address: made when missing (authMethod
 * `directory`, with the directory default plan), renamed as the directory names them; none for
 * no address or a deleted identity (which stays deleted).
 */
async function endUserFor(tx: Tx, actor: KeyActor, address: string | null, fullName: string): Promise<string | null> {
  if (!address) return null;
  const organizationId = actor.organizationId;
  const before = await tx.endUser.findFirst({
    where: { organizationId, email: address, deletedAt: null },
    select: { fullName: true },
  });
  const rows = await tx.$queryRaw<{ id: string; created: boolean }[]>`
    insert into end_users (id, organization_id, email, full_name, auth_method, created_at, updated_at)
    values (gen_random_uuid(), ${organizationId}::uuid, ${address}, ${fullName}, 'directory', now(), now())
    on conflict (organization_id, email) do update
      set full_name = case when excluded.full_name = '' then end_users.full_name else excluded.full_name end, updated_at = now()
      where end_users.deleted_at is null
    returning id::text, (xmax = 0) as created`;
  const row = rows[0];
  if (!row) return null;
  if (row.created) {
    const plans = await tx.$queryRaw<{ id: string; creditAllowance: number; groupId: string | null }[]>`
      select p.id::text, p.credit_allowance as "creditAllowance", p.group_id::text as "groupId"
      from organizations o join tier_plans p on p.id = o.directory_default_plan_id and p.organization_id = o.id
      where o.id = ${organizationId}::uuid and p.archived_at is null`;
    await subscribe(tx, row.id, plans, "api");
  }
  if (row.created || (before && fullName && before.fullName !== fullName)) {
    const endUser = await tx.endUser.findUniqueOrThrow({ where: { id: row.id, organizationId: actor.organizationId } });
    await recordEvent(tx, actor, {
      action: row.created ? "end_user.create" : "end_user.update",
      target: { type: "end_user", id: endUser.id, label: endUser.email },
      changes: row.created ? {} : { fullName: [before!.fullName, endUser.fullName] },
      data: toEndUser(endUser),
    });
  }
  return row.id;
}

/**
 * Suspends the end users no active directory user stands for any more (their sessions and
 * sign-in codes end at once; nothing else of theirs changes) and restores those one does.
 */
async function settleEndUsers(tx: Tx, actor: KeyActor, endUserIds: (string | null)[]): Promise<void> {
  const organizationId = actor.organizationId;
  const ids = [...new Set(endUserIds.filter((id): id is string => id !== null))];
  if (ids.length === 0) return;
  const states = await tx.$queryRaw<{ id: string; active: boolean; changed: boolean }[]>`
    with states as (
      select e.id, exists (select 1 from directory_users d where d.organization_id = e.organization_id and d.end_user_id = e.id and d.active) as active
      from end_users e where e.organization_id = ${organizationId}::uuid and e.id = any(${ids}::uuid[]) and e.deleted_at is null
    ),
    changed as (
      update end_users e set suspended_at = case when s.active then null else coalesce(e.suspended_at, now()) end, updated_at = now()
      from states s where e.id = s.id and s.active = (e.suspended_at is not null)
      returning e.id
    )
    select id::text, active, id in (select id from changed) as changed from states`;
  const changed = states.filter((row) => row.changed);
  if (changed.length) {
    const rows = await tx.endUser.findMany({ where: { organizationId, id: { in: changed.map((row) => row.id) } } });
    for (const endUser of rows) {
      await recordEvent(tx, actor, {
        action: endUser.suspendedAt ? "end_user.suspend" : "end_user.reactivate",
        target: { type: "end_user", id: endUser.id, label: endUser.email },
        changes: { suspended: [!endUser.suspendedAt, !!endUser.suspendedAt] },
        data: toEndUser(endUser),
      });
    }
  }
  const gone = states.filter((row) => !row.active).map((row) => row.id);
  if (gone.length === 0) return;
  await tx.endUserSession.deleteMany({ where: { organizationId, endUserId: { in: gone } } });
  await tx.endUserSignInCode.deleteMany({ where: { organizationId, endUserId: { in: gone } } });
}

/**
 * The end user each member of these directory groups stands for: one primary-key lookup per
 * member, so the cost is linear whatever PostgreSQL's statistics say (a join planned from stale
 * ones, after a push of thousands of members, compared every member with every directory user).
 */
function memberEndUsers(organizationId: string, groupIds: string[]): Prisma.Sql {
  return Prisma.sql`
  select group_id, end_user_id from (
    select dm.group_id, (select du.end_user_id from directory_users du
                         where du.id = dm.directory_user_id and du.organization_id = ${organizationId}::uuid) as end_user_id
    from directory_group_members dm where dm.group_id = any(${groupIds}::uuid[])
  ) members where end_user_id is not null`;
}

/**
 * The end users' memberships of these directory groups, from the directory users who are
 * members. The memberships that stay are looked up in a hashed set (`not in` a subquery), not
 * by a correlated `not exists`, which ran as a nested loop: 28 s for a group of 5,000.
 */
async function syncGroupMemberships(tx: Tx, organizationId: string, groupIds: string[]): Promise<void> {
  if (groupIds.length === 0) return;
  await tx.$executeRaw`
    delete from group_members gm using user_groups g
    where g.id = gm.group_id and g.organization_id = ${organizationId}::uuid and g.directory_managed and g.id = any(${groupIds}::uuid[])
      and (gm.group_id, gm.end_user_id) not in (${memberEndUsers(organizationId, groupIds)})`;
  await tx.$executeRaw`
    insert into group_members (group_id, end_user_id, added_at)
    select distinct m.group_id, m.end_user_id, now()
    from (${memberEndUsers(organizationId, groupIds)}) m join user_groups g on g.id = m.group_id
    where g.organization_id = ${organizationId}::uuid and g.directory_managed
    on conflict do nothing`;
}

async function groupsOfUser(tx: Tx, directoryUserId: string): Promise<string[]> {
  const rows = await tx.directoryGroupMember.findMany({ where: { directoryUserId }, select: { groupId: true } });
  return rows.map((row) => row.groupId);
}

function uniquenessError(userName: string) {
  return scimError(409, "uniqueness", `A directory user with userName ${userName} already exists.`);
}

/** Writes a new or changed directory user and everything that follows from it, in the caller's transaction. */
async function saveUser(
  tx: Tx,
  actor: KeyActor,
  existing: DirectoryUserRow | null,
  user: ScimObject,
): Promise<DirectoryUserRow> {
  const organizationId = actor.organizationId;
  const columns = userColumns(user, existing?.active ?? null);
  const clash = await tx.directoryUser.findFirst({
    where: { organizationId, userNameKey: columns.userNameKey, ...(existing ? { id: { not: existing.id } } : {}) },
    select: { id: true },
  });
  if (clash) throw uniquenessError(columns.userName);
  const endUserId = await endUserFor(tx, actor, addressOf({ ...user, userName: columns.userName }), fullNameOf(user));
  let row: DirectoryUserRow;
  if (existing) {
    row = await tx.directoryUser.update({
      where: { id: existing.id, organizationId: actor.organizationId },
      data: { ...columns, endUserId, version: { increment: 1 } },
    });
  } else {
    const inserted = await tx.directoryUser.createManyAndReturn({
      data: [{ organizationId, ...columns, endUserId }],
      skipDuplicates: true,
    });
    if (!inserted[0]) throw uniquenessError(columns.userName);
    row = inserted[0];
  }
  await recordEvent(tx, actor, {
    action: existing ? "directory_user.update" : "directory_user.create",
    target: directoryUserTarget(row),
    changes: existing ? changesBetween(existing, row, ["userName", "externalId", "active", "endUserId"]) : {},
  });
  await settleEndUsers(tx, actor, [endUserId, existing?.endUserId ?? null]);
  if (existing && existing.endUserId !== endUserId)
    await syncGroupMemberships(tx, organizationId, await groupsOfUser(tx, existing.id));
  return row;
}

function directoryUserTarget(row: { id: string; userName: string }) {
  return { type: "directory_user", id: row.id, label: row.userName };
}

/** The directory user, locked until the transaction ends; 404 when it is not this organization's. */
async function lockedUser(tx: Tx, organizationId: string, id: string): Promise<DirectoryUserRow> {
  if (!UUID.test(id)) throw scimError(404, null, `No user ${id}.`);
  const locked = await tx.$queryRaw<
    { id: string }[]
  >`select id::text from directory_users where id = ${id}::uuid and organization_id = ${organizationId}::uuid for update`;
  if (!locked[0]) throw scimError(404, null, `No user ${id}.`);
  return tx.directoryUser.findUniqueOrThrow({ where: { id, organizationId } });
}

const scim = { scope: "scim" } as const;

export const createDirectoryUser = guarded(
  scim,
  async function createDirectoryUser(db: Db, actor: KeyActor, body: unknown): Promise<ScimObject> {
    const user = canonicalResource("User", body);
    const row = await db.$transaction((tx) => saveUser(tx, actor, null, user), TRANSACTION_OPTIONS);
    return userResource(row);
  },
);

export const getDirectoryUser = guarded(
  scim,
  async function getDirectoryUser(db: Db, actor: KeyActor, id: string): Promise<ScimObject> {
    const row = UUID.test(id)
      ? await db.directoryUser.findFirst({ where: { id, organizationId: actor.organizationId } })
      : null;
    if (!row) throw scimError(404, null, `No user ${id}.`);
    return userResource(row);
  },
);

export const replaceDirectoryUser = guarded(
  scim,
  async function replaceDirectoryUser(db: Db, actor: KeyActor, id: string, body: unknown): Promise<ScimObject> {
    const user = canonicalResource("User", body);
    const row = await db.$transaction(
      async (tx) => saveUser(tx, actor, await lockedUser(tx, actor.organizationId, id), user),
      TRANSACTION_OPTIONS,
    );
    return userResource(row);
  },
);

export const patchDirectoryUser = guarded(
  scim,
  async function patchDirectoryUser(db: Db, actor: KeyActor, id: string, body: unknown): Promise<ScimObject> {
    const operations = readPatchBody(body);
    const row = await db.$transaction(async (tx) => {
      const existing = await lockedUser(tx, actor.organizationId, id);
      const patched = applyPatch("User", userResource(existing), operations);
      return saveUser(tx, actor, existing, canonicalResource("User", patched));
    }, TRANSACTION_OPTIONS);
    return userResource(row);
  },
);

/** The directory user goes; its end user is suspended unless another active directory user stands for it. */
export const deleteDirectoryUser = guarded(
  scim,
  async function deleteDirectoryUser(db: Db, actor: KeyActor, id: string): Promise<void> {
    await db.$transaction(async (tx) => {
      const existing = await lockedUser(tx, actor.organizationId, id);
      const groups = await groupsOfUser(tx, existing.id);
      await tx.directoryUser.delete({ where: { id: existing.id, organizationId: actor.organizationId } });
      await recordEvent(tx, actor, { action: "directory_user.delete", target: directoryUserTarget(existing) });
      await syncGroupMemberships(tx, actor.organizationId, groups);
      await settleEndUsers(tx, actor, [existing.endUserId]);
    }, TRANSACTION_OPTIONS);
  },
);

function page(resources: ScimObject[], total: number, startIndex: number): ListResult {
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

export const listDirectoryUsers = guarded(
  scim,
  async function listDirectoryUsers(db: Db, actor: KeyActor, query: ListQuery): Promise<ListResult> {
    const { startIndex, count } = paging(query);
    const filter = query.filter ? parseScimFilter(query.filter) : null;
    const where: Prisma.DirectoryUserWhereInput = { organizationId: actor.organizationId };
    // The filters identity providers send on every sync are answered from the index.
    const userName = filter ? equalityOn(filter, "userName") : null;
    const externalId = filter ? equalityOn(filter, "externalId") : null;
    if (userName !== null) where.userNameKey = userName.toLowerCase();
    else if (externalId !== null) where.externalId = externalId;
    const orderBy = [{ createdAt: "asc" as const }, { id: "asc" as const }];
    if (!filter || userName !== null || externalId !== null) {
      const [total, rows] = await Promise.all([
        db.directoryUser.count({ where }),
        db.directoryUser.findMany({ where, orderBy, skip: startIndex - 1, take: count }),
      ]);
      return page(rows.map(userResource), total, startIndex);
    }
    const matching = (await db.directoryUser.findMany({ where, orderBy }))
      .map(userResource)
      .filter((resource) => matchesFilter(resource, filter));
    return page(matching.slice(startIndex - 1, startIndex - 1 + count), matching.length, startIndex);
  },
);

function paging(query: ListQuery): { startIndex: number; count: number } {
  // RFC 7644 §3.4.2.4: a startIndex below 1 is read as 1, a negative count as 0.
  const startIndex = Math.max(1, Math.floor(query.startIndex ?? 1));
  const count = Math.min(MAX_SCIM_COUNT, Math.max(0, Math.floor(query.count ?? DEFAULT_SCIM_COUNT)));
  return { startIndex, count };
}

// ---------------------------------------------------------------------------------------------
// Groups

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

// ---------------------------------------------------------------------------------------------
// Sync activity

const EVENT_DAYS_KEPT = 30;
const MAX_EVENT_TEXT_CHARS = 1_000;

/**
 * Records what the directory did or was refused (the console's sync activity); 30 days are kept.
 * A refusal is also the audit event `directory.sync_failed` (a webhook), with what was sent and
 * why it failed. Never fails the request.
 */
export async function recordDirectoryEvent(
  db: Db,
  actor: KeyActor,
  action: string,
  status: number,
  detail: string,
  scimType: string | null = null,
): Promise<void> {
  const { organizationId } = actor;
  // A refusal's detail may quote what was sent, U+0000 included, which PostgreSQL cannot store.
  const request = printableText(action).slice(0, MAX_EVENT_TEXT_CHARS);
  const reason = printableText(detail).slice(0, MAX_EVENT_TEXT_CHARS);
  try {
    await db.$transaction([
      db.directoryEvent.create({ data: { organizationId, action: request, status, detail: reason } }),
      db.directoryEvent.deleteMany({
        where: { organizationId, createdAt: { lt: new Date(Date.now() - EVENT_DAYS_KEPT * 86_400_000) } },
      }),
      ...(status >= 400
        ? [
            recordEvent(db, actor, {
              action: "directory.sync_failed",
              target: { type: "directory", id: null, label: request },
              outcome: "failure",
              data: { object: "directory_sync_failure", request, status, scimType, detail: reason },
            }),
          ]
        : []),
    ]);
  } catch (error) {
    logger().error({ err: error }, "Could not record a directory event");
  }
}

// ---------------------------------------------------------------------------------------------
// The console's Directory page (admins; no API key reaches it)

/** Rows the Directory page lists at most: the newest directory users, all groups up to this, the latest events. */
const CONSOLE_ROWS = 200;
const CONSOLE_EVENTS = 50;
const TOKEN_NAME = "Directory (SCIM)";

const tokenSelect = { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true } as const;

function toToken(row: { id: string; name: string; prefix: string; createdAt: Date; lastUsedAt: Date | null }) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}

export const getDirectoryOverview = guarded(
  { may: "settings" },
  async function getDirectoryOverview(db: Db, actor: Actor): Promise<DirectoryOverview> {
    const organizationId = actor.organizationId;
    const [organization, tokens, users, userCount, groups, events] = await Promise.all([
      db.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { directoryDefaultPlanId: true } }),
      db.apiKey.findMany({
        where: { organizationId, revokedAt: null, scopes: { has: SCIM_SCOPE } },
        select: tokenSelect,
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      }),
      db.directoryUser.findMany({
        where: { organizationId },
        select: {
          id: true,
          userName: true,
          active: true,
          attributes: true,
          updatedAt: true,
          endUser: { select: { id: true, email: true, suspendedAt: true } },
        },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: CONSOLE_ROWS,
      }),
      db.directoryUser.count({ where: { organizationId } }),
      db.userGroup.findMany({
        where: { organizationId, directoryManaged: true },
        select: { id: true, name: true, updatedAt: true, _count: { select: { members: true } } },
        orderBy: [{ name: "asc" }, { id: "asc" }],
        take: CONSOLE_ROWS,
      }),
      db.directoryEvent.findMany({
        where: { organizationId },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: CONSOLE_EVENTS,
      }),
    ]);
    return {
      scimUrl: scimBaseUrl(),
      oidcRedirectUri: redirectUri(),
      samlServiceProvider: {
        entityId: samlEntityId(organizationId),
        acsUrl: samlAcsUrl(),
        metadataUrl: samlEntityId(organizationId),
      },
      tokens: tokens.map(toToken),
      defaultPlanId: organization.directoryDefaultPlanId,
      userCount,
      users: users.map((user) => ({
        id: user.id,
        userName: user.userName,
        displayName: fullNameOf((user.attributes ?? {}) as ScimObject),
        active: user.active,
        endUser: user.endUser
          ? {
              id: user.endUser.id,
              email: user.endUser.email,
              suspendedAt: user.endUser.suspendedAt?.toISOString() ?? null,
            }
          : null,
        updatedAt: user.updatedAt.toISOString(),
      })),
      groups: groups.map((group) => ({
        id: group.id,
        name: group.name,
        memberCount: group._count.members,
        updatedAt: group.updatedAt.toISOString(),
      })),
      events: events.map((event) => ({
        id: event.id,
        action: event.action,
        status: event.status,
        detail: event.detail,
        createdAt: event.createdAt.toISOString(),
      })),
    };
  },
);

/**
 * A new SCIM token, shown once; the organization's other SCIM tokens are revoked with it, so
 * rotating is one step (paste the new one into the identity provider at once).
 */
export const rotateDirectoryToken = guarded(
  { may: "settings" },
  async function rotateDirectoryToken(db: Db, actor: Actor) {
    const secret = randomToken("sk_org_");
    const row = await db.$transaction(async (tx) => {
      const revoked = await tx.apiKey.updateManyAndReturn({
        where: { organizationId: actor.organizationId, revokedAt: null, scopes: { has: SCIM_SCOPE } },
        data: { revokedAt: new Date() },
        select: { id: true, name: true },
      });
      for (const key of revoked)
        await recordEvent(tx, actor, {
          action: "api_key.revoke",
          target: { type: "api_key", id: key.id, label: key.name },
        });
      const created = await tx.apiKey.create({
        data: {
          organizationId: actor.organizationId,
          kind: "organization",
          name: TOKEN_NAME,
          scopes: [SCIM_SCOPE],
          prefix: secret.slice(0, 12),
          secretHash: hashSecret(secret),
        },
        select: tokenSelect,
      });
      await recordEvent(tx, actor, {
        action: "api_key.create",
        target: { type: "api_key", id: created.id, label: created.name },
        changes: { scopes: [null, [SCIM_SCOPE]], secret: [null, SECRET_CHANGED] },
      });
      return created;
    });
    return { ...toToken(row), secret };
  },
);

/** The plan new directory end users are subscribed to; null for none. */
export const setDirectoryDefaultPlan = guarded(
  { may: "settings" },
  async function setDirectoryDefaultPlan(
    db: Db,
    actor: Actor,
    input: { tierPlanId: string | null },
  ): Promise<{
    defaultPlanId: string | null;
  }> {
    if (input.tierPlanId) {
      await liveTierPlan(db, actor.organizationId, input.tierPlanId);
    }
    await db.$transaction(async (tx) => {
      const before = await tx.organization.findUniqueOrThrow({
        where: { id: actor.organizationId },
        select: { name: true, directoryDefaultPlanId: true },
      });
      await tx.organization.update({
        where: { id: actor.organizationId },
        data: { directoryDefaultPlanId: input.tierPlanId },
      });
      await recordEvent(tx, actor, {
        action: "organization.update",
        target: { type: "organization", id: actor.organizationId, label: before.name },
        changes: changesBetween(before, { directoryDefaultPlanId: input.tierPlanId }, ["directoryDefaultPlanId"]),
      });
    });
    return { defaultPlanId: input.tierPlanId };
  },
);
