// What the directory's users and groups share over SCIM 2.0: the base URL, list paging, a
// resource's meta, and the end users' memberships of directory groups, which both change.
import { publicOrigin } from "@/env";
import { Prisma } from "@/generated/prisma/client";
import { LIST_RESPONSE_SCHEMA, type ScimObject } from "@/server/scim/schema";

type Tx = Prisma.TransactionClient;

/** SCIM lists: `count` defaults to 100 and is at most 1000 (contract). */
export const DEFAULT_SCIM_COUNT = 100;
export const MAX_SCIM_COUNT = 1_000;
/** Long enough for 20 PATCHes of one group queued behind each other's lock. */
export const TRANSACTION_OPTIONS = { maxWait: 30_000, timeout: 30_000 } as const;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

export function meta(kind: "User" | "Group", id: string, created: Date, lastModified: Date, version: number) {
  return {
    resourceType: kind,
    created: created.toISOString(),
    lastModified: lastModified.toISOString(),
    location: `${scimBaseUrl()}/${kind}s/${id}`,
    version: `W/"${version}"`,
  };
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
export async function syncGroupMemberships(tx: Tx, organizationId: string, groupIds: string[]): Promise<void> {
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

export const scim = { scope: "scim" } as const;

export function page(resources: ScimObject[], total: number, startIndex: number): ListResult {
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

export function paging(query: ListQuery): { startIndex: number; count: number } {
  // RFC 7644 §3.4.2.4: a startIndex below 1 is read as 1, a negative count as 0.
  const startIndex = Math.max(1, Math.floor(query.startIndex ?? 1));
  const count = Math.min(MAX_SCIM_COUNT, Math.max(0, Math.floor(query.count ?? DEFAULT_SCIM_COUNT)));
  return { startIndex, count };
}
