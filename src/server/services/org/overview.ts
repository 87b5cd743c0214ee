// The console's home in one statement: counts per area, credits, pending reviews.
import type { Overview } from "@/schemas/org/overview";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";

type Counts = { [K in keyof Overview]: bigint | number };

/** What the actor's organization has so far; every count is scoped to it in SQL. */
export const getOverview = guarded(
  { may: "read" },
  async function getOverview(db: Db, actor: Actor): Promise<Overview> {
    const org = actor.organizationId;
    const [row] = await db.$queryRaw<Counts[]>`
    select
      (select credits from organizations where id = ${org}::uuid) as "creditsLeft",
      (select coalesce(sum(credits), 0) from executions where organization_id = ${org}::uuid) as "creditsSpent",
      (select count(*) from api_keys where organization_id = ${org}::uuid and revoked_at is null) as "keys",
      (select count(*) from knowledgebases where organization_id = ${org}::uuid and end_user_id is null) as "knowledgebases",
      (select count(*) from builder_items where organization_id = ${org}::uuid and kind = 'agent') as "agents",
      (select count(*) from builder_items where organization_id = ${org}::uuid and kind = 'flow') as "flows",
      (select count(*) from builder_items where organization_id = ${org}::uuid and kind = 'app') as "apps",
      (select count(*) from builder_items where organization_id = ${org}::uuid and kind = 'app' and production_version_id is not null) as "publishedApps",
      (select count(*) from conversations where organization_id = ${org}::uuid) as "conversations",
      (select count(*) from end_users where organization_id = ${org}::uuid and deleted_at is null) as "endUsers",
      (select count(*) from portals where organization_id = ${org}::uuid) as "portals",
      (select count(*) from members where organization_id = ${org}::uuid) as "members",
      (select count(*) from reviews where organization_id = ${org}::uuid and status = 'pending') as "pendingReviews",
      (select count(*) from execution_approvals where organization_id = ${org}::uuid and status = 'pending') as "pendingApprovals"`;
    return Object.fromEntries(Object.entries(row ?? {}).map(([key, value]) => [key, Number(value ?? 0)])) as Overview;
  },
);
