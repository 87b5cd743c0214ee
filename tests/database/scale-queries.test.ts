// The lists the scale bench (scripts/bench-scale.ts) measures, on a seeded organization: each
// filter walked page by page through the REST door gives the same rows, in the same order, as a
// plain filter over the whole table, and nothing of another organization.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api, expectError, newOrganization, uniqueSuffix, type Tenant } from "../helpers";
import { newGroup, newPlan } from "../provisioning-helpers";

const USERS = 240;

/** Every page of a list, following nextCursor. */
async function walk(tenant: Tenant, path: string, field: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const response = await api("GET", `${path}${cursor ? `&cursor=${cursor}` : ""}`, { key: tenant.orgKey.secret });
    expect(response.status).toBe(200);
    ids.push(...(response.body[field] as { id: string }[]).map((row) => row.id));
    cursor = response.body.nextCursor;
    if (!cursor) return ids;
  }
  throw new Error("more than 100 pages");
}

/**
 * End users in fours sharing a creation time (ties the keyset must order by id), on plan A (a
 * third; one in seven of those canceled), plan B (a fifth), in the group (a quarter); one in
 * eleven deleted.
 */
async function seedEndUsers(tenant: Tenant) {
  const db = getDb();
  const planA = (await newPlan(tenant.operator)).tierPlan;
  const planB = (await newPlan(tenant.operator, { withGroup: true })).tierPlan;
  const group = await newGroup(tenant.operator);
  const organizationId = tenant.organization.id;
  await db.pool.query(
    `WITH users AS (
       INSERT INTO end_users (id, organization_id, email, created_at, updated_at, deleted_at)
       SELECT gen_random_uuid(), $1::uuid, 'user' || n || '-' || $6::text || '@example.test',
         timestamp '2026-01-01' + (n / 4) * interval '1 second', now(), CASE WHEN n % 11 = 0 THEN now() END
       FROM generate_series(1, ${USERS}) n
       RETURNING id, (regexp_match(email, '^user(\\d+)-'))[1]::int AS n
     ), subscribed AS (
       INSERT INTO subscriptions (id, end_user_id, tier_plan_id, status, credit_allowance, credits_reset_at, provisioned_by, updated_at)
       SELECT gen_random_uuid(), id, $2::uuid, CASE WHEN n % 7 = 0 THEN 'canceled' ELSE 'active' END::"SubscriptionStatus", 10, now(), 'api'::"ProvisionedBy", now()
       FROM users WHERE n % 3 = 0
       UNION ALL
       SELECT gen_random_uuid(), id, $3::uuid, 'active'::"SubscriptionStatus", 10, now(), 'api'::"ProvisionedBy", now() FROM users WHERE n % 5 = 0
     )
     INSERT INTO group_members (group_id, end_user_id)
     SELECT $4::uuid, id FROM users WHERE n % 4 = 1
     UNION ALL
     SELECT $5::uuid, id FROM users WHERE n % 5 = 0`,
    [organizationId, planA.id, planB.id, group.id, planB.groupId, uniqueSuffix()],
  );
  return { planA, planB, group };
}

async function expected(sql: string, values: unknown[]): Promise<string[]> {
  const { rows } = await getDb().pool.query<{ id: string }>(sql, values);
  return rows.map((row) => row.id);
}

describe("GET /end-users filtered by plan or group", () => {
  it("walks the holders of a plan and the members of a group, page by page, as a plain filter gives them", async () => {
    const tenant = await newOrganization();
    const { planA, planB, group } = await seedEndUsers(tenant);
    const other = await newOrganization();
    await seedEndUsers(other);
    const organizationId = tenant.organization.id;
    const holders = (planId: string) =>
      expected(
        `SELECT id FROM end_users u WHERE organization_id = $1 AND deleted_at IS NULL
           AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.end_user_id = u.id AND s.tier_plan_id = $2 AND s.status = 'active')
         ORDER BY created_at, id`,
        [organizationId, planId],
      );
    const members = (groupId: string) =>
      expected(
        `SELECT id FROM end_users u WHERE organization_id = $1 AND deleted_at IS NULL
           AND EXISTS (SELECT 1 FROM group_members m WHERE m.end_user_id = u.id AND m.group_id = $2)
         ORDER BY created_at, id`,
        [organizationId, groupId],
      );

    const onA = await holders(planA.id);
    expect(onA.length).toBeGreaterThan(50);
    expect(await walk(tenant, `/end-users?tierPlanId=${planA.id}&limit=7`, "endUsers")).toEqual(onA);
    expect(await walk(tenant, `/end-users?tierPlanId=${planB.id}&limit=7`, "endUsers")).toEqual(
      await holders(planB.id),
    );
    const inGroup = await members(group.id);
    expect(inGroup.length).toBeGreaterThan(40);
    expect(await walk(tenant, `/end-users?groupId=${group.id}&limit=7`, "endUsers")).toEqual(inGroup);
    // A plan's group holds its subscribers.
    expect(await walk(tenant, `/end-users?groupId=${planB.groupId}&limit=50`, "endUsers")).toEqual(
      await holders(planB.id),
    );
    // Both filters: those on plan A who are also in the group.
    const both = onA.filter((id) => inGroup.includes(id));
    expect(both.length).toBeGreaterThan(0);
    expect(await walk(tenant, `/end-users?tierPlanId=${planA.id}&groupId=${group.id}&limit=3`, "endUsers")).toEqual(
      both,
    );
  });

  it("finds nobody through another organization's plan or group, and refuses an id that is not one", async () => {
    const tenant = await newOrganization();
    await seedEndUsers(tenant);
    const other = await newOrganization();
    const theirs = await seedEndUsers(other);

    for (const query of [`tierPlanId=${theirs.planA.id}`, `groupId=${theirs.group.id}`]) {
      const response = await api("GET", `/end-users?${query}`, { key: tenant.orgKey.secret });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ endUsers: [], nextCursor: null });
    }
    expectError(await api("GET", "/end-users?tierPlanId=gold", { key: tenant.orgKey.secret }), 400, "invalid_request");
    expectError(
      await api("GET", "/end-users?groupId=1%20OR%201", { key: tenant.orgKey.secret }),
      400,
      "invalid_request",
    );
  });
});

describe("GET /executions filtered by app (the (organization, item, created_at, id) index)", () => {
  it("walks one app's runs in both orders as a plain filter gives them, and none of another organization", async () => {
    const tenant = await newOrganization();
    const other = await newOrganization();
    const items = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    for (const organizationId of [tenant.organization.id, other.organization.id]) {
      // Runs in threes sharing a time, round-robin over the three items.
      await getDb().pool.query(
        `INSERT INTO executions (id, organization_id, kind, item_id, item_kind, status, credits, latency_ms, input, trace, actor, created_at)
         SELECT gen_random_uuid(), $1, 'transaction', ($2::uuid[])[1 + n % 3], 'app', 'succeeded', 1, 5, 'hi', '[]', 'bench',
           timestamp '2026-01-01' + (n / 3) * interval '1 second'
         FROM generate_series(1, 150) n`,
        [organizationId, items],
      );
    }
    for (const order of ["oldest", "newest"] as const) {
      const direction = order === "newest" ? "DESC" : "ASC";
      const runs = await expected(
        `SELECT id FROM executions WHERE organization_id = $1 AND item_id = $2 ORDER BY created_at ${direction}, id ${direction}`,
        [tenant.organization.id, items[1]],
      );
      expect(runs).toHaveLength(50);
      expect(await walk(tenant, `/executions?itemId=${items[1]}&order=${order}&limit=9`, "executions")).toEqual(runs);
    }
  });
});
