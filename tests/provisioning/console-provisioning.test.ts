// The console's provisioning views: tier plans edited (rename and credits; the plan's group and
// its active subscriptions follow) with subscriber counts, and the portals a group is admitted to.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { addPerson, api, newOrganization, signInCookie, trpc, trpcErrorCode, type Tenant } from "../helpers";
import { email, newPlan } from "../provisioning-helpers";

async function subscriber(tenant: Tenant, tierPlanIds: string[]): Promise<string> {
  const created = await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email(), tierPlanIds } });
  expect(created.status).toBe(201);
  return created.body.endUser.id;
}

const planRows = (organizationId: string) =>
  Promise.all([
    getDb().tierPlan.findMany({ where: { organizationId }, orderBy: { id: "asc" } }),
    getDb().subscription.findMany({ where: { tierPlan: { organizationId } }, orderBy: { id: "asc" } }),
    getDb().userGroup.findMany({ where: { organizationId }, orderBy: { id: "asc" } }),
  ]);

describe("editing tier plans in the console", () => {
  it("renames a plan with its group and gives active subscribers the new credits at once; counts only active subscribers", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const { tierPlan: plan } = await newPlan(tenant.operator, { name: "Starter", credits: 100, withGroup: true });
    const { tierPlan: other } = await newPlan(tenant.operator, { name: "Other" });
    const active = await subscriber(tenant, [plan.id]);
    await subscriber(tenant, [plan.id, other.id]);
    const leaving = await subscriber(tenant, [plan.id]);
    expect(
      (await api("DELETE", `/end-users/${leaving}/tier-plans/${plan.id}`, { key: tenant.orgKey.secret })).status,
    ).toBe(204);
    // Another organization's subscribers never count here.
    const elsewhere = await newOrganization();
    await subscriber(elsewhere, [(await newPlan(elsewhere.operator)).tierPlan.id]);

    const counts = await trpc("query", "tierPlans.subscribers", undefined, { cookie });
    expect(counts.status).toBe(200);
    expect(
      new Map(
        counts.body.result.data.counts.map((c: { tierPlanId: string; subscribers: number }) => [
          c.tierPlanId,
          c.subscribers,
        ]),
      ),
    ).toEqual(
      new Map([
        [plan.id, 2],
        [other.id, 1],
      ]),
    );

    const updated = await trpc(
      "mutation",
      "tierPlans.update",
      { tierPlanId: plan.id, name: "Starter Plus", creditAllowance: 250 },
      { cookie },
    );
    expect(updated.status).toBe(200);
    expect(updated.body.result.data.tierPlan).toMatchObject({
      id: plan.id,
      name: "Starter Plus",
      creditAllowance: 250,
      groupId: plan.groupId,
    });
    expect((await api("GET", `/user-groups/${plan.groupId}`, { key: tenant.orgKey.secret })).body.userGroup.name).toBe(
      "Starter Plus",
    );
    const detail = await api("GET", `/end-users/${active}`, { key: tenant.orgKey.secret });
    expect(detail.body.endUser.subscriptions).toMatchObject([
      { tierPlanName: "Starter Plus", creditAllowance: 250, status: "active" },
    ]);
    const canceled = await getDb().subscription.findFirstOrThrow({ where: { endUserId: leaving } });
    expect(canceled.creditAllowance).toBe(100);
    // A new subscriber gets the new allowance.
    const newcomer = await subscriber(tenant, [plan.id]);
    expect((await getDb().subscription.findFirstOrThrow({ where: { endUserId: newcomer } })).creditAllowance).toBe(250);
  });

  it("refuses bad values, members and another organization's plan, writing nothing", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const { tierPlan: plan } = await newPlan(tenant.operator, { name: "Starter", credits: 100, withGroup: true });
    await subscriber(tenant, [plan.id]);
    const before = await planRows(tenant.organization.id);

    for (const input of [
      { tierPlanId: plan.id, creditAllowance: -1 },
      { tierPlanId: plan.id, creditAllowance: 1_000_000_001 },
      { tierPlanId: plan.id, creditAllowance: 1.5 },
      { tierPlanId: plan.id, name: "   " },
      { tierPlanId: plan.id, name: "x".repeat(10_000) },
      { tierPlanId: plan.id, name: "bad\u0000name" },
      { tierPlanId: plan.id, groupId: plan.groupId },
    ]) {
      const refused = await trpc("mutation", "tierPlans.update", input, { cookie });
      expect(refused.status, JSON.stringify(input).slice(0, 80)).toBe(400);
    }
    expect(
      (await trpc("mutation", "tierPlans.create", { name: "Huge", creditAllowance: 2 ** 40 }, { cookie })).status,
    ).toBe(400);

    const member = await addPerson(tenant.operator, "member");
    const memberCookie = await signInCookie(member.email, member.password);
    expect(
      trpcErrorCode(
        await trpc("mutation", "tierPlans.update", { tierPlanId: plan.id, name: "Mine" }, { cookie: memberCookie }),
      ),
    ).toBe("forbidden_role");

    const elsewhere = await newOrganization();
    const outsiderCookie = await signInCookie(elsewhere.owner.email, elsewhere.owner.password);
    const foreign = await trpc(
      "mutation",
      "tierPlans.update",
      { tierPlanId: plan.id, name: "Taken over", creditAllowance: 0 },
      { cookie: outsiderCookie },
    );
    expect(foreign.status).toBe(404);
    expect(trpcErrorCode(foreign)).toBe("not_found");

    expect(await planRows(tenant.organization.id)).toEqual(before);
  });
});

describe("a group's portals", () => {
  it("lists the portals the group is admitted to, by name; another organization's group is not found", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const groupId = (await api("POST", "/user-groups", { key, body: { name: "Partners" } })).body.userGroup.id;
    const portal = async (name: string) =>
      (await api("POST", "/portals", { key, body: { name } })).body.portal.id as string;
    const zeta = await portal("Zeta desk");
    const alpha = await portal("Alpha desk");
    await portal("Not admitted");
    expect((await trpc("query", "portals.admissionsOfGroup", { groupId }, { cookie })).body.result.data).toEqual([]);
    for (const portalId of [zeta, alpha])
      expect((await api("POST", `/portals/${portalId}/admissions`, { key, body: { groupId } })).status).toBe(201);
    const listed = await trpc("query", "portals.admissionsOfGroup", { groupId }, { cookie });
    expect(
      listed.body.result.data.map((row: { portalId: string; portalName: string }) => [row.portalId, row.portalName]),
    ).toEqual([
      [alpha, "Alpha desk"],
      [zeta, "Zeta desk"],
    ]);
    const elsewhere = await newOrganization();
    const outsiderCookie = await signInCookie(elsewhere.owner.email, elsewhere.owner.password);
    const refused = await trpc("query", "portals.admissionsOfGroup", { groupId }, { cookie: outsiderCookie });
    expect(refused.status).toBe(404);
    expect(trpcErrorCode(refused)).toBe("not_found");
  });
});
