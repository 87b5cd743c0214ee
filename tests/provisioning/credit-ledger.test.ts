// An end user's credit ledger over REST: a run's charge with its execution, a bonus with who gave
// it and why, and the pool's monthly resets; newest first, and none of another organization's.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api, expectError, newOrganization, uniqueSuffix } from "../helpers";
import { portalScenario } from "../portal/helpers";

const DAY = 86_400_000;

describe("GET /end-users/{id}/credit-ledger", () => {
  it("lists a run's charge with its execution and a bonus with its reason, newest first", async () => {
    const scenario = await portalScenario();
    const { key, endUser } = scenario;
    const turn = await api("POST", `/apps/${scenario.appId}/conversation`, {
      key,
      body: { message: "How long do refunds take?", endUserId: endUser.id, portalId: scenario.portal.id },
    });
    expect(turn.status).toBe(200);
    const bonus = await api("POST", `/end-users/${endUser.id}/tier-plans/${scenario.plan.id}/bonus-credits`, {
      key,
      body: { credits: 25, reason: "Thanks for the report" },
    });
    expect(bonus.status).toBe(200);

    const ledger = await api("GET", `/end-users/${endUser.id}/credit-ledger`, { key });
    expect(ledger.status).toBe(200);
    const execution = await getDb().execution.findFirstOrThrow({ where: { endUserId: endUser.id } });
    expect(ledger.body.entries).toEqual([
      {
        kind: "bonus",
        at: expect.any(String),
        credits: 25,
        planName: "Starter",
        executionId: null,
        itemName: null,
        status: null,
        reason: "Thanks for the report",
        by: expect.any(String),
      },
      {
        kind: "charge",
        at: execution.createdAt.toISOString(),
        credits: -execution.credits,
        planName: null,
        executionId: execution.id,
        itemName: expect.any(String),
        status: "succeeded",
        reason: null,
        by: null,
      },
    ]);
    expect(execution.credits).toBeGreaterThan(0);

    // Another organization's key sees no such end user.
    const other = await newOrganization();
    expectError(
      await api("GET", `/end-users/${endUser.id}/credit-ledger`, { key: other.orgKey.secret }),
      404,
      "not_found",
    );
  });

  it("shows each monthly reset of a pool since its subscription started, and none after it was canceled", async () => {
    const tenant = await newOrganization();
    const db = getDb();
    const endUser = await db.endUser.create({
      data: { organizationId: tenant.organization.id, email: `ledger-${uniqueSuffix()}@customer.example` },
    });
    const plan = await db.tierPlan.create({
      data: { organizationId: tenant.organization.id, name: "Monthly", creditAllowance: 10 },
    });
    const now = Date.now();
    // Started 70 days ago; its next reset is in 20 days, so it reset about 10 and 40 days ago.
    await db.subscription.create({
      data: {
        endUserId: endUser.id,
        tierPlanId: plan.id,
        creditAllowance: 10,
        creditsResetAt: new Date(now + 20 * DAY),
        provisionedBy: "api",
        createdAt: new Date(now - 70 * DAY),
      },
    });
    const ledger = await api("GET", `/end-users/${endUser.id}/credit-ledger`, { key: tenant.orgKey.secret });
    const resets = ledger.body.entries.filter((entry: { kind: string }) => entry.kind === "reset");
    expect(resets).toHaveLength(2);
    expect(resets[0]).toMatchObject({ planName: "Monthly", credits: null });
    const ago = (entry: { at: string }) => Math.round((now - Date.parse(entry.at)) / DAY);
    expect(resets.map(ago).map((days: number) => days >= 9 && days <= 41)).toEqual([true, true]);
    expect(ago(resets[0])).toBeLessThan(ago(resets[1]));

    // Canceled: no resets after it ended (its last change, with no cancel event here).
    await db.subscription.updateMany({ where: { endUserId: endUser.id }, data: { status: "canceled" } });
    await db.$executeRaw`update subscriptions set updated_at = now() - interval '20 days' where end_user_id = ${endUser.id}::uuid`;
    const after = await api("GET", `/end-users/${endUser.id}/credit-ledger`, { key: tenant.orgKey.secret });
    expect(after.body.entries.filter((entry: { kind: string }) => entry.kind === "reset")).toHaveLength(1);
  });
});
