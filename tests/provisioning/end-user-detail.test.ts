// GET /end-users/{id} is one statement, shared by the reads asked together
// (services/provisioning/end-user-reads.ts): the same detail as the stored rows say, pools due
// for their monthly reset shown reset (and reset in the database), and nothing of another
// organization.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import type { AppError } from "@/server/errors";
import { getEndUser } from "@/server/services/provisioning/end-user-reads";
import { api, newOrganization } from "../helpers";
import { email, newGroup, newPlan } from "../provisioning-helpers";

describe("GET /end-users/{id}", () => {
  it("answers the stored account, subscriptions and grants, with pools past their reset date reset", async () => {
    const tenant = await newOrganization();
    const [basic, gold, group] = await Promise.all([
      newPlan(tenant.operator, { credits: 100 }),
      newPlan(tenant.operator, { credits: 500, withGroup: true }),
      newGroup(tenant.operator),
    ]);
    const app = await api("POST", "/apps", { key: tenant.orgKey.secret, body: { name: "Helpdesk" } });
    const created = await api("POST", "/end-users", {
      key: tenant.orgKey.secret,
      body: {
        email: email(),
        tierPlanIds: [basic.tierPlan.id, gold.tierPlan.id],
        groupIds: [group.id],
        grants: [{ targetKind: "app", targetId: app.body.app.id }],
      },
    });
    expect(created.status).toBe(201);
    const endUserId: string = created.body.endUser.id;
    const db = getDb();
    await db.$executeRaw`update subscriptions set credits_used = 7, credits_reset_at = now() - interval '1 day' where end_user_id = ${endUserId}::uuid and tier_plan_id = ${basic.tierPlan.id}::uuid`;

    const response = await api("GET", `/end-users/${endUserId}`, { key: tenant.orgKey.secret });
    expect(response.status).toBe(200);
    const detail = response.body.endUser;

    const user = await db.endUser.findUniqueOrThrow({ where: { id: endUserId } });
    const subscriptions = await db.subscription.findMany({
      where: { endUserId },
      include: { tierPlan: true },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    const grants = await db.grant.findMany({ where: { endUserId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    expect(detail).toEqual({
      id: user.id,
      email: user.email,
      fullName: user.fullName,
      authMethod: user.authMethod,
      emailVerifiedAt: null,
      revokedAt: null,
      suspendedAt: null,
      lastSeenAt: null,
      createdAt: user.createdAt.toISOString(),
      subscriptions: subscriptions.map((s) => ({
        id: s.id,
        tierPlanId: s.tierPlanId,
        tierPlanName: s.tierPlan.name,
        status: s.status,
        creditAllowance: s.creditAllowance,
        creditsUsed: s.creditsUsed,
        creditsResetAt: s.creditsResetAt.toISOString(),
        provisionedBy: s.provisionedBy,
        isComped: s.isComped,
        bonusCredits: s.bonusCredits,
      })),
      grants: grants.map((g) => ({
        id: g.id,
        targetKind: g.targetKind,
        targetId: g.targetId,
        effect: g.effect,
        deploymentId: g.deploymentId,
        source: g.source,
        expiresAt: null,
      })),
    });
    expect(detail.grants).toHaveLength(1);
    const reset = subscriptions.find((s) => s.tierPlanId === basic.tierPlan.id)!;
    expect(reset.creditsUsed).toBe(0);
    expect(reset.creditsResetAt.getTime()).toBeGreaterThan(Date.now());
  });

  it("read in the same statement as another organization's, each answers only its own end user", async () => {
    const [owner, other] = await Promise.all([newOrganization(), newOrganization()]);
    const created = await api("POST", "/end-users", { key: owner.orgKey.secret, body: { email: email() } });
    const endUserId: string = created.body.endUser.id;
    // Asked together, the reads share one statement (services/support/batched-reads.ts).
    const [own, foreign] = await Promise.all([
      api("GET", `/end-users/${endUserId}`, { key: owner.orgKey.secret }),
      api("GET", `/end-users/${endUserId}`, { key: other.orgKey.secret }),
    ]);
    expect(own.status).toBe(200);
    expect(own.body.endUser.id).toBe(endUserId);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("not_found");
  });

  it("an id that is no UUID finds nothing and fails none of the reads asked with it", async () => {
    // The REST door refuses such an id first (400); the service's own guard keeps it out of the
    // statement the reads share, whatever door asks.
    const tenant = await newOrganization();
    const created = await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email() } });
    const endUserId: string = created.body.endUser.id;
    const [malformed, own] = await Promise.allSettled([
      getEndUser(getDb(), tenant.operator, { endUserId: "not-a-uuid" }),
      getEndUser(getDb(), tenant.operator, { endUserId }),
    ]);
    expect(malformed.status === "rejected" && (malformed.reason as AppError).code).toBe("not_found");
    expect(own.status === "fulfilled" && own.value.id).toBe(endUserId);
    expect((await api("GET", "/end-users/not-a-uuid", { key: tenant.orgKey.secret })).status).toBe(400);
  });

  it("is 404 not_found for another organization's end user and for an unknown id", async () => {
    const [owner, other] = await Promise.all([newOrganization(), newOrganization()]);
    const created = await api("POST", "/end-users", { key: owner.orgKey.secret, body: { email: email() } });
    const endUserId: string = created.body.endUser.id;
    for (const [key, id] of [
      [other.orgKey.secret, endUserId],
      [owner.orgKey.secret, "00000000-0000-4000-8000-000000000000"],
    ] as const) {
      const response = await api("GET", `/end-users/${id}`, { key });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe("not_found");
    }
  });
});
