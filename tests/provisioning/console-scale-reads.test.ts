// The console's two reads that used to take a whole group or organization (issue 36): a group's
// members come in keyset pages, and each plan's subscribers are counted only up to a cap.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { COUNT_CAP } from "@/lib/digits";
import { countPlanSubscribers } from "@/server/services/provisioning/tier-plans";
import { newOrganization, signInCookie, trpc, trpcErrorCode, uniqueSuffix, type Tenant } from "../helpers";
import { newGroup, newPlan } from "../provisioning-helpers";

/** End users of the organization, in threes sharing a creation time; one in nine deleted. */
async function seedEndUsers(tenant: Tenant, count: number): Promise<string[]> {
  const { rows } = await getDb().pool.query<{ id: string }>(
    `INSERT INTO end_users (id, organization_id, email, created_at, updated_at, deleted_at)
     SELECT gen_random_uuid(), $1::uuid, 'user' || n || '-' || $2::text || '@example.test',
       timestamp '2026-01-01' + (n / 3) * interval '1 second', now(), CASE WHEN n % 9 = 0 THEN now() END
     FROM generate_series(1, ${count}) n
     RETURNING id`,
    [tenant.organization.id, uniqueSuffix()],
  );
  return rows.map((row) => row.id);
}

/** Puts the end users in the group, in pairs sharing an addedAt (ties the keyset orders by end user id). */
async function addMembers(groupId: string, endUserIds: string[]) {
  await getDb().pool.query(
    `INSERT INTO group_members (group_id, end_user_id, added_at)
     SELECT $1::uuid, id, timestamp '2026-02-01' + (ord / 2) * interval '1 second'
     FROM unnest($2::uuid[]) WITH ORDINALITY AS member(id, ord)`,
    [groupId, endUserIds],
  );
}

async function consoleOf(tenant: Tenant) {
  return signInCookie(tenant.owner.email, tenant.owner.password);
}

describe("a group's members in the console", () => {
  it("come in pages without gaps or repeats, in (addedAt, endUserId) order, and only the group's", async () => {
    const tenant = await newOrganization();
    const cookie = await consoleOf(tenant);
    const group = await newGroup(tenant.operator);
    const endUsers = await seedEndUsers(tenant, 23);
    await addMembers(group.id, endUsers);
    // Another group of the same organization, and another organization's group, hold others.
    await addMembers((await newGroup(tenant.operator)).id, (await seedEndUsers(tenant, 4)).slice(0, 4));
    const elsewhere = await newOrganization();
    const foreignGroup = await newGroup(elsewhere.operator);
    await addMembers(foreignGroup.id, await seedEndUsers(elsewhere, 5));

    const seen: { endUserId: string; addedAt: string; groupId: string }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await trpc(
        "query",
        "userGroups.members",
        { groupId: group.id, limit: 5, ...(cursor ? { cursor } : {}) },
        { cookie },
      );
      expect(response.status).toBe(200);
      const page = response.body.result.data;
      expect(page.members.length).toBeLessThanOrEqual(5);
      seen.push(...page.members);
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 20);

    expect(pages).toBe(5);
    const expected = await getDb().groupMember.findMany({
      where: { groupId: group.id },
      orderBy: [{ addedAt: "asc" }, { endUserId: "asc" }],
    });
    expect(expected).toHaveLength(23);
    expect(seen.map((member) => member.endUserId)).toEqual(expected.map((member) => member.endUserId));
    expect(new Set(seen.map((member) => member.groupId))).toEqual(new Set([group.id]));
    expect(seen[0]).toMatchObject({ email: expect.stringMatching(/@example\.test$/), addedAt: expect.any(String) });

    // The default page is 50: the whole group here, with no next page.
    const whole = await trpc("query", "userGroups.members", { groupId: group.id }, { cookie });
    expect(whole.body.result.data.members).toHaveLength(23);
    expect(whole.body.result.data.nextCursor).toBeNull();
  });

  it("never shows another organization's group, even with a cursor of one's own", async () => {
    const tenant = await newOrganization();
    const cookie = await consoleOf(tenant);
    const group = await newGroup(tenant.operator);
    await addMembers(group.id, await seedEndUsers(tenant, 3));
    const elsewhere = await newOrganization();
    const foreignGroup = await newGroup(elsewhere.operator);
    await addMembers(foreignGroup.id, await seedEndUsers(elsewhere, 3));

    const first = await trpc("query", "userGroups.members", { groupId: group.id, limit: 1 }, { cookie });
    expect(first.status).toBe(200);
    const cursor = first.body.result.data.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    for (const input of [{ groupId: foreignGroup.id }, { groupId: foreignGroup.id, limit: 1, cursor }]) {
      const response = await trpc("query", "userGroups.members", input, { cookie });
      expect(response.status).toBe(404);
      expect(trpcErrorCode(response)).toBe("not_found");
      expect(response.text).not.toContain("@example.test");
    }
  });

  it("refuses a cursor it did not hand out and a page size out of bounds with 400", async () => {
    const tenant = await newOrganization();
    const cookie = await consoleOf(tenant);
    const group = await newGroup(tenant.operator);
    await addMembers(group.id, await seedEndUsers(tenant, 2));
    const forged = Buffer.from(JSON.stringify(["not a date", "x"])).toString("base64url");
    for (const input of [
      { groupId: group.id, cursor: "not-a-cursor" },
      { groupId: group.id, cursor: forged },
      { groupId: group.id, limit: 0 },
      { groupId: group.id, limit: 201 },
    ]) {
      const response = await trpc("query", "userGroups.members", input, { cookie });
      expect(response.status, JSON.stringify(input)).toBe(400);
      expect(trpcErrorCode(response)).toBe("invalid_request");
    }
  });
});

/** The count the plans page showed before the cap: every active subscription of a live end user. */
async function uncappedCounts(organizationId: string) {
  const rows = await getDb().subscription.groupBy({
    by: ["tierPlanId"],
    where: { status: "active", tierPlan: { organizationId }, endUser: { deletedAt: null } },
    _count: { _all: true },
  });
  return new Map(rows.map((row) => [row.tierPlanId, row._count._all]));
}

/** Subscribes the end users to the plan; one in four canceled. */
async function subscribe(tierPlanId: string, endUserIds: string[]) {
  await getDb().pool.query(
    `INSERT INTO subscriptions (id, end_user_id, tier_plan_id, status, credit_allowance, credits_reset_at, provisioned_by, updated_at)
     SELECT gen_random_uuid(), id, $1::uuid,
       CASE WHEN ord % 4 = 0 THEN 'canceled' ELSE 'active' END::"SubscriptionStatus", 10, now(), 'api'::"ProvisionedBy", now()
     FROM unnest($2::uuid[]) WITH ORDINALITY AS holder(id, ord)`,
    [tierPlanId, endUserIds],
  );
}

describe("subscriber counts on the plans page", () => {
  it("are exact under the cap, the same as the uncapped count, and never another organization's", async () => {
    const tenant = await newOrganization();
    const cookie = await consoleOf(tenant);
    const endUsers = await seedEndUsers(tenant, 40);
    const small = (await newPlan(tenant.operator)).tierPlan;
    const large = (await newPlan(tenant.operator, { withGroup: true })).tierPlan;
    const empty = (await newPlan(tenant.operator)).tierPlan;
    await subscribe(small.id, endUsers.slice(0, 7));
    await subscribe(large.id, endUsers.slice(3));
    const elsewhere = await newOrganization();
    await subscribe((await newPlan(elsewhere.operator)).tierPlan.id, await seedEndUsers(elsewhere, 6));

    const response = await trpc("query", "tierPlans.subscribers", undefined, { cookie });
    expect(response.status).toBe(200);
    const counts: { tierPlanId: string; subscribers: number; atLeast: boolean }[] = response.body.result.data.counts;
    const before = await uncappedCounts(tenant.organization.id);
    expect(before.size).toBe(2);
    expect(new Map(counts.map((row) => [row.tierPlanId, row.subscribers]))).toEqual(before);
    expect(counts.every((row) => !row.atLeast)).toBe(true);
    expect(counts.map((row) => row.tierPlanId)).not.toContain(empty.id);
    expect(COUNT_CAP).toBe(10_000);
  });

  it("stop at the cap and say so, exact for the plans under it", async () => {
    const tenant = await newOrganization();
    const endUsers = await seedEndUsers(tenant, 30);
    const live = (
      await getDb().endUser.findMany({ where: { id: { in: endUsers }, deletedAt: null }, orderBy: { id: "asc" } })
    ).map((endUser) => endUser.id);
    const large = (await newPlan(tenant.operator)).tierPlan;
    const atCap = (await newPlan(tenant.operator)).tierPlan;
    const small = (await newPlan(tenant.operator)).tierPlan;
    const cap = 5;
    await subscribe(large.id, endUsers);
    await subscribe(small.id, live.slice(0, 3));
    // Exactly `cap` active subscribers who are not deleted: counted, not capped.
    await getDb().pool.query(
      `INSERT INTO subscriptions (id, end_user_id, tier_plan_id, status, credit_allowance, credits_reset_at, provisioned_by, updated_at)
       SELECT gen_random_uuid(), id, $1::uuid, 'active', 10, now(), 'api', now() FROM unnest($2::uuid[]) AS holder(id)`,
      [atCap.id, live.slice(0, cap)],
    );
    const before = await uncappedCounts(tenant.organization.id);
    expect(before.get(large.id)).toBeGreaterThan(cap);
    expect(before.get(atCap.id)).toBe(cap);

    const counts = await countPlanSubscribers(getDb(), tenant.organization.id, cap);
    expect(new Map(counts.map((row) => [row.tierPlanId, row]))).toEqual(
      new Map([
        [large.id, { tierPlanId: large.id, subscribers: cap, atLeast: true }],
        [atCap.id, { tierPlanId: atCap.id, subscribers: cap, atLeast: false }],
        [small.id, { tierPlanId: small.id, subscribers: before.get(small.id), atLeast: false }],
      ]),
    );
  });
});
