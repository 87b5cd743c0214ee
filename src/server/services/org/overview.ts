// The console's home in one statement: counts per area and credits left; and what waits on the
// organization's members, read by the navigation on every page and so kept to two small counts.
// What was spent is the usage's (src/server/services/runs/usage.ts).
import type { Overview, Waiting } from "@/schemas/org/overview";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import { COUNT_CAP } from "@/lib/digits";
import type { Db } from "@/server/db";

type Counts<T> = { [K in keyof T]: bigint | number | boolean };

/** Counts as numbers (PostgreSQL's count is a bigint), flags as they are. */
function read<T>(row: Counts<T> | undefined): T {
  return Object.fromEntries(
    Object.entries(row ?? {}).map(([key, value]) => [key, typeof value === "boolean" ? value : Number(value ?? 0)]),
  ) as T;
}

/** What the actor's organization has so far; every count is scoped to it in SQL. */
export const getOverview = guarded(
  { may: "read" },
  async function getOverview(db: Db, actor: Actor): Promise<Overview> {
    const org = actor.organizationId;
    const [row] = await db.$queryRaw<Counts<Omit<Overview, "endUsersAtLeast">>[]>`
    select
      (select credits from organizations where id = ${org}::uuid) as "creditsLeft",
      (select count(*) from api_keys where organization_id = ${org}::uuid and revoked_at is null) as "keys",
      (select count(*) from knowledgebases where organization_id = ${org}::uuid and end_user_id is null) as "knowledgebases",
      (select count(*) from builder_items where organization_id = ${org}::uuid and kind = 'agent') as "agents",
      (select count(*) from builder_items where organization_id = ${org}::uuid and kind = 'flow') as "flows",
      (select count(*) from builder_items where organization_id = ${org}::uuid and kind = 'app') as "apps",
      (select count(*) from builder_items where organization_id = ${org}::uuid and kind = 'app' and production_version_id is not null) as "publishedApps",
      exists (select 1 from conversations where organization_id = ${org}::uuid) as "hasConversations",
      (select count(*) from (
        select 1 from end_users where organization_id = ${org}::uuid and deleted_at is null limit ${COUNT_CAP + 1}
      ) counted) as "endUsers",
      (select count(*) from portals where organization_id = ${org}::uuid) as "portals",
      (select count(*) from members where organization_id = ${org}::uuid) as "members"`;
    const counts = read<Omit<Overview, "endUsersAtLeast">>(row);
    return { ...counts, endUsers: Math.min(counts.endUsers, COUNT_CAP), endUsersAtLeast: counts.endUsers > COUNT_CAP };
  },
);

/** The reviews and approvals waiting in the actor's organization. */
export const getWaiting = guarded({ may: "read" }, async function getWaiting(db: Db, actor: Actor): Promise<Waiting> {
  const org = actor.organizationId;
  const [row] = await db.$queryRaw<Counts<Waiting>[]>`
    select
      (select count(*) from reviews where organization_id = ${org}::uuid and status = 'pending') as "pendingReviews",
      (select count(*) from execution_approvals where organization_id = ${org}::uuid and status = 'pending') as "pendingApprovals"`;
  return read<Waiting>(row);
});
