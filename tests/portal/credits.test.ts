// Credits from the end user's pools: which pool pays, the monthly reset done lazily by the
// charge (and by reads), refunds to the same pool, and no overdraft of either the pool or the
// organization under concurrency.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { chargeEndUserCredit, refundEndUserCredit } from "@/server/services/provisioning/credits";
import { api, newOrganization, uniqueSuffix, type Tenant } from "../helpers";
import { portalScenario } from "./helpers";

const DAY = 86_400_000;

async function endUserWithPools(
  tenant: Tenant,
  pools: {
    allowance: number;
    used?: number;
    bonus?: number;
    resetAt: Date;
    createdAt?: Date;
    status?: "active" | "canceled";
  }[],
) {
  const db = getDb();
  const endUser = await db.endUser.create({
    data: { organizationId: tenant.organization.id, email: `pools-${uniqueSuffix()}@customer.example` },
  });
  const subscriptions = [];
  for (const [i, pool] of pools.entries()) {
    const plan = await db.tierPlan.create({
      data: { organizationId: tenant.organization.id, name: `Plan ${i}`, creditAllowance: pool.allowance },
    });
    subscriptions.push(
      await db.subscription.create({
        data: {
          endUserId: endUser.id,
          tierPlanId: plan.id,
          creditAllowance: pool.allowance,
          creditsUsed: pool.used ?? 0,
          bonusCredits: pool.bonus ?? 0,
          creditsResetAt: pool.resetAt,
          provisionedBy: "api",
          status: pool.status ?? "active",
          ...(pool.createdAt ? { createdAt: pool.createdAt } : {}),
        },
      }),
    );
  }
  return { endUser, subscriptions };
}

async function used(subscriptionId: string) {
  return getDb().subscription.findUniqueOrThrow({ where: { id: subscriptionId } });
}

async function orgCredits(tenant: Tenant) {
  return (await getDb().organization.findUniqueOrThrow({ where: { id: tenant.organization.id } })).credits;
}

describe("which pool pays", () => {
  it("the pool that resets soonest, then the oldest; full and canceled pools are skipped; bonus credits count", async () => {
    const tenant = await newOrganization({ credits: 100 });
    const now = Date.now();
    const { endUser, subscriptions } = await endUserWithPools(tenant, [
      { allowance: 5, resetAt: new Date(now + 20 * DAY) },
      { allowance: 1, bonus: 1, resetAt: new Date(now + 5 * DAY) },
      { allowance: 5, resetAt: new Date(now + 1 * DAY), status: "canceled" },
      { allowance: 3, used: 3, resetAt: new Date(now + 2 * DAY) },
    ]);
    const [later, sooner, canceled, full] = subscriptions;
    expect((await chargeEndUserCredit(getDb(), tenant.organization.id, endUser.id)).subscriptionId).toBe(sooner!.id);
    expect((await chargeEndUserCredit(getDb(), tenant.organization.id, endUser.id)).subscriptionId).toBe(sooner!.id);
    expect((await used(sooner!.id)).creditsUsed).toBe(2);
    expect((await chargeEndUserCredit(getDb(), tenant.organization.id, endUser.id)).subscriptionId).toBe(later!.id);
    expect((await used(canceled!.id)).creditsUsed).toBe(0);
    expect((await used(full!.id)).creditsUsed).toBe(3);
    expect(await orgCredits(tenant)).toBe(97);
  });

  it("with equal reset times, the oldest subscription pays first", async () => {
    const tenant = await newOrganization({ credits: 100 });
    const resetAt = new Date(Date.now() + 10 * DAY);
    const { endUser, subscriptions } = await endUserWithPools(tenant, [
      { allowance: 5, resetAt, createdAt: new Date(Date.now() - 1 * DAY) },
      { allowance: 5, resetAt, createdAt: new Date(Date.now() - 9 * DAY) },
    ]);
    expect((await chargeEndUserCredit(getDb(), tenant.organization.id, endUser.id)).subscriptionId).toBe(
      subscriptions[1]!.id,
    );
  });

  it("402 insufficient_credits with nothing taken when no pool has room, or the organization has no balance", async () => {
    const tenant = await newOrganization({ credits: 5 });
    const { endUser, subscriptions } = await endUserWithPools(tenant, [
      { allowance: 2, used: 2, resetAt: new Date(Date.now() + DAY) },
    ]);
    await expect(chargeEndUserCredit(getDb(), tenant.organization.id, endUser.id)).rejects.toMatchObject({
      code: "insufficient_credits",
      status: 402,
    });
    expect(await orgCredits(tenant)).toBe(5);

    const broke = await newOrganization({ credits: 0 });
    const pools = await endUserWithPools(broke, [{ allowance: 10, resetAt: new Date(Date.now() + DAY) }]);
    await expect(chargeEndUserCredit(getDb(), broke.organization.id, pools.endUser.id)).rejects.toMatchObject({
      code: "insufficient_credits",
    });
    expect((await used(pools.subscriptions[0]!.id)).creditsUsed).toBe(0);
    expect((await used(subscriptions[0]!.id)).creditsUsed).toBe(2);
    // Another organization's end user is never charged through this one.
    await expect(chargeEndUserCredit(getDb(), tenant.organization.id, pools.endUser.id)).rejects.toMatchObject({
      code: "insufficient_credits",
    });
    expect(await orgCredits(tenant)).toBe(5);
  });

  it("charges and refunds running together neither deadlock nor drift", async () => {
    const tenant = await newOrganization({ credits: 100 });
    const { endUser, subscriptions } = await endUserWithPools(tenant, [
      { allowance: 50, resetAt: new Date(Date.now() + DAY) },
    ]);
    const charges = await Promise.all(
      Array.from({ length: 10 }, () => chargeEndUserCredit(getDb(), tenant.organization.id, endUser.id)),
    );
    await Promise.all([
      ...charges.map((charge) => refundEndUserCredit(getDb(), charge)),
      ...Array.from({ length: 10 }, () => chargeEndUserCredit(getDb(), tenant.organization.id, endUser.id)),
    ]);
    expect((await used(subscriptions[0]!.id)).creditsUsed).toBe(10);
    expect(await orgCredits(tenant)).toBe(90);
  });

  it("a refund goes back to the pool that paid and to the organization", async () => {
    const tenant = await newOrganization({ credits: 10 });
    const { endUser, subscriptions } = await endUserWithPools(tenant, [
      { allowance: 5, resetAt: new Date(Date.now() + 2 * DAY) },
      { allowance: 5, resetAt: new Date(Date.now() + 9 * DAY) },
    ]);
    const charge = await chargeEndUserCredit(getDb(), tenant.organization.id, endUser.id);
    await refundEndUserCredit(getDb(), charge);
    expect((await used(subscriptions[0]!.id)).creditsUsed).toBe(0);
    expect((await used(subscriptions[1]!.id)).creditsUsed).toBe(0);
    expect(await orgCredits(tenant)).toBe(10);
  });
});

describe("monthly reset", () => {
  it("moves the reset time on by calendar months, clamped to the month's end, in UTC", async () => {
    const at = async (resetAt: string, now: string) =>
      (
        await getDb().$queryRawUnsafe<{ next: Date }[]>(
          `select credits_reset_after($1::timestamptz, $2::timestamptz) as next`,
          resetAt,
          now,
        )
      )[0]!.next.toISOString();
    expect(await at("2026-01-31T10:00:00Z", "2026-01-15T00:00:00Z")).toBe("2026-01-31T10:00:00.000Z");
    expect(await at("2026-01-31T10:00:00Z", "2026-02-15T00:00:00Z")).toBe("2026-02-28T10:00:00.000Z");
    expect(await at("2026-01-31T10:00:00Z", "2026-02-28T10:00:00Z")).toBe("2026-03-31T10:00:00.000Z");
    expect(await at("2026-01-31T10:00:00Z", "2026-03-30T00:00:00Z")).toBe("2026-03-31T10:00:00.000Z");
    expect(await at("2025-06-15T08:30:00Z", "2026-11-23T00:00:00Z")).toBe("2026-12-15T08:30:00.000Z");
    expect(await at("2024-02-29T00:00:00Z", "2025-02-28T12:00:00Z")).toBe("2025-03-29T00:00:00.000Z");
  });

  it("a pool past its reset time is reset by the next charge: creditsUsed back to 0 (then 1), reset time a month on", async () => {
    const tenant = await newOrganization({ credits: 100 });
    const past = new Date(Date.now() - 40 * DAY);
    const { endUser, subscriptions } = await endUserWithPools(tenant, [{ allowance: 3, used: 3, resetAt: past }]);
    const charge = await chargeEndUserCredit(getDb(), tenant.organization.id, endUser.id);
    expect(charge.subscriptionId).toBe(subscriptions[0]!.id);
    const pool = await used(subscriptions[0]!.id);
    expect(pool.creditsUsed).toBe(1);
    expect(pool.creditsResetAt.getTime()).toBeGreaterThan(Date.now());
    expect(pool.creditsResetAt.getTime()).toBeLessThan(Date.now() + 32 * DAY);
    expect(pool.creditsResetAt.toISOString().slice(11)).toBe(past.toISOString().slice(11));
  });

  it("reads show the reset too: GET /end-users/{id}", async () => {
    const scenario = await portalScenario({ credits: 10 });
    await getDb().subscription.updateMany({
      where: { endUserId: scenario.endUser.id },
      data: { creditsUsed: 10, creditsResetAt: new Date(Date.now() - DAY) },
    });
    const detail = await api("GET", `/end-users/${scenario.endUser.id}`, { key: scenario.key });
    expect(detail.body.endUser.subscriptions[0].creditsUsed).toBe(0);
    expect(new Date(detail.body.endUser.subscriptions[0].creditsResetAt).getTime()).toBeGreaterThan(Date.now());
  });
});

describe("no overdraft under concurrency", () => {
  async function twentyTurns(scenario: Awaited<ReturnType<typeof portalScenario>>) {
    return Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api("POST", `/apps/${scenario.appId}/conversation`, {
          key: scenario.key,
          body: { message: `Question ${i}`, endUserId: scenario.endUser.id, portalId: scenario.portal.id },
        }),
      ),
    );
  }

  it("20 concurrent turns on a pool of 10: exactly 10 succeed, the rest 402, neither balance negative", async () => {
    const scenario = await portalScenario({ credits: 10, orgCredits: 1000 });
    const responses = await twentyTurns(scenario);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(10);
    expect(responses.filter((r) => r.status === 402).every((r) => r.body.error.code === "insufficient_credits")).toBe(
      true,
    );
    expect(responses.filter((r) => r.status === 402)).toHaveLength(10);
    const pool = await getDb().subscription.findFirstOrThrow({ where: { endUserId: scenario.endUser.id } });
    expect(pool.creditsUsed).toBe(10);
    expect(await orgCredits(scenario.tenant)).toBe(990);
    expect(await getDb().execution.count({ where: { endUserId: scenario.endUser.id } })).toBe(10);
  });

  it("20 concurrent turns when the organization has only 10: exactly 10 succeed, the organization ends at 0, the pool at 10 used", async () => {
    const scenario = await portalScenario({ credits: 100, orgCredits: 10 });
    const responses = await twentyTurns(scenario);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(10);
    expect(responses.filter((r) => r.status === 402)).toHaveLength(10);
    expect(await orgCredits(scenario.tenant)).toBe(0);
    const pool = await getDb().subscription.findFirstOrThrow({ where: { endUserId: scenario.endUser.id } });
    expect(pool.creditsUsed).toBe(10);
  });
});
