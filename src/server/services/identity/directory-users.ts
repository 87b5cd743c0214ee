// Directory users over SCIM 2.0 (contract: "Directory sync: SCIM 2.0"). A directory user stands
// for an end user by address: provisioned when missing, suspended when no active directory user
// stands for them any more, never deleted. Every change is one transaction that locks the user.
import { MAX_EMAIL_CHARS, MAX_NAME_CHARS } from "@/schemas/limits";
import type { KeyActor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import type { Prisma } from "@/generated/prisma/client";
import { equalityOn, matchesFilter, parseScimFilter } from "@/server/scim/filter";
import { applyPatch, readPatchBody } from "@/server/scim/patch";
import {
  canonicalResource,
  ENTERPRISE_SCHEMA,
  scimError,
  toBoolean,
  USER_SCHEMA,
  type ScimObject,
} from "@/server/scim/schema";
import { subscribe } from "../provisioning/end-user-subscriptions";
import { toEndUser } from "../provisioning/end-users-shared";
import { changesBetween, recordEvent } from "../org/events";
import {
  meta,
  page,
  paging,
  scim,
  syncGroupMemberships,
  TRANSACTION_OPTIONS,
  UUID,
  type ListQuery,
  type ListResult,
} from "./directory-shared";
import { normalizeEmail } from "./members";

type Tx = Prisma.TransactionClient;

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

export function fullNameOf(user: ScimObject): string {
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
