// The events that changes of state produce on their own (not a person's write): the directory
// suspending and reactivating end users and failing to sync, pools and balances running low and
// out, and failed executions. Each is an audit event with its webhook type and its data.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { chargeCredits, chargeEndUserCredit, chargeRunCredit } from "@/server/services/provisioning/credits";
import { provisionEndUser } from "@/server/services/provisioning/end-users";
import { api, newOrganization } from "../helpers";
import { email, newPlan } from "../provisioning-helpers";
import { directoryTenant, PATCH_OP, scim, uniqueUserName } from "../directory/helpers";
import { clientAddress, codeFromOutbox, portalCall, portalScenario, signIn } from "../portal/helpers";

async function eventsOf(organizationId: string, action: string) {
  return getDb().auditEvent.findMany({
    where: { organizationId, action },
    orderBy: [{ occurredAt: "asc" }, { id: "asc" }],
  });
}

describe("the directory's events", () => {
  it("records the end user's creation, suspension and reactivation as the directory, with its request and webhook data", async () => {
    const tenant = await directoryTenant();
    const organizationId = tenant.organization.id;
    const userName = uniqueUserName("carol");
    const created = await scim("POST", "/Users", {
      key: tenant.scimKey,
      body: { userName, displayName: "Carol Danvers" },
      headers: { "x-request-id": "entra-1", "user-agent": "Entra/1.0" },
    });
    expect(created.status).toBe(201);
    const suspended = await scim("PATCH", `/Users/${created.body.id}`, {
      key: tenant.scimKey,
      body: { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "False" }] },
      headers: { "x-request-id": "entra-2" },
    });
    expect(suspended.status).toBe(204);
    await scim("PATCH", `/Users/${created.body.id}`, {
      key: tenant.scimKey,
      body: { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "active", value: true }] },
    });

    const [create] = await eventsOf(organizationId, "end_user.create");
    expect(create).toMatchObject({
      actorType: "directory",
      actorLabel: "Entra ID",
      door: "scim",
      requestId: "entra-1",
      userAgent: "Entra/1.0",
      webhookType: "end_user.created",
    });
    const [suspend] = await eventsOf(organizationId, "end_user.suspend");
    expect(suspend).toMatchObject({
      actorType: "directory",
      door: "scim",
      requestId: "entra-2",
      webhookType: "end_user.suspended",
      targetLabel: userName.toLowerCase(),
    });
    expect((suspend!.data as { suspendedAt: string | null }).suspendedAt).toEqual(expect.any(String));
    const [reactivate] = await eventsOf(organizationId, "end_user.reactivate");
    expect(reactivate).toMatchObject({
      webhookType: "end_user.reactivated",
      data: expect.objectContaining({ suspendedAt: null }),
    });

    // Through the REST API the same person shows as suspended and back, once each.
    const listed = await api("GET", `/audit-events?targetId=${create!.targetId}`, { key: tenant.orgKey.secret });
    expect(listed.body.auditEvents.map((event: { action: string }) => event.action)).toEqual([
      "end_user.reactivate",
      "end_user.suspend",
      "end_user.create",
    ]);
  });

  it("records a refused SCIM request after authentication as directory.sync_failed, and nothing for a bad token", async () => {
    const tenant = await directoryTenant();
    const organizationId = tenant.organization.id;
    const userName = uniqueUserName();
    await scim("POST", "/Users", { key: tenant.scimKey, body: { userName } });
    const clash = await scim("POST", "/Users", { key: tenant.scimKey, body: { userName } });
    expect(clash.status).toBe(409);
    expect((await scim("POST", "/Users", { key: "sk_org_wrong", body: { userName } })).status).toBe(401);

    const failures = await eventsOf(organizationId, "directory.sync_failed");
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      actorType: "directory",
      door: "scim",
      outcome: "failure",
      webhookType: "directory.sync_failed",
      targetLabel: "POST /Users",
    });
    expect(failures[0]!.data).toMatchObject({
      object: "directory_sync_failure",
      request: "POST /Users",
      status: 409,
      scimType: "uniqueness",
    });
  });
});

describe("credits.low and credits.exhausted", () => {
  it("announce an organization's balance under 10% of what the operator set, and at 0, once per crossing", async () => {
    const tenant = await newOrganization({ credits: 100 });
    const organizationId = tenant.organization.id;
    await chargeCredits(getDb(), organizationId, 85);
    expect(await eventsOf(organizationId, "credits.low")).toHaveLength(0);
    await chargeCredits(getDb(), organizationId, 6);
    await chargeCredits(getDb(), organizationId, 1);
    await chargeRunCredit(getDb(), organizationId, null, 1);
    const [low, ...moreLow] = await eventsOf(organizationId, "credits.low");
    expect(moreLow).toHaveLength(0);
    expect(low).toMatchObject({
      actorType: "system",
      door: "system",
      targetType: "organization",
      webhookType: "credits.low",
    });
    expect(low!.data).toEqual({ object: "organization_credits", organizationId, credits: 9, reference: 100 });

    await chargeRunCredit(getDb(), organizationId, null, 7);
    await expect(chargeCredits(getDb(), organizationId, 1)).rejects.toMatchObject({ code: "insufficient_credits" });
    const exhausted = await eventsOf(organizationId, "credits.exhausted");
    expect(exhausted).toHaveLength(1);
    expect(exhausted[0]).toMatchObject({
      webhookType: "credits.exhausted",
      data: expect.objectContaining({ credits: 0 }),
    });
  });

  it("are announced once each when twenty charges race through both thresholds", async () => {
    const tenant = await newOrganization({ credits: 20 });
    const organizationId = tenant.organization.id;
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, () => chargeCredits(getDb(), organizationId, 1)),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(20);
    expect(await eventsOf(organizationId, "credits.low")).toHaveLength(1);
    expect(await eventsOf(organizationId, "credits.exhausted")).toHaveLength(1);
  });

  it("announce an end user's pool under 10% of its allowance and bonus, and empty, once each", async () => {
    const tenant = await newOrganization();
    const organizationId = tenant.organization.id;
    const { tierPlan: plan } = await newPlan(tenant.operator, { credits: 30 });
    const { endUser } = await provisionEndUser(getDb(), tenant.operator, { email: email(), tierPlanIds: [plan.id] });
    for (let charge = 1; charge <= 27; charge++) await chargeEndUserCredit(getDb(), organizationId, endUser.id);
    expect(await eventsOf(organizationId, "credits.low")).toHaveLength(0);
    await chargeEndUserCredit(getDb(), organizationId, endUser.id);
    await chargeEndUserCredit(getDb(), organizationId, endUser.id);
    const low = await eventsOf(organizationId, "credits.low");
    expect(low).toHaveLength(1);
    expect(low[0]).toMatchObject({
      targetType: "subscription",
      targetLabel: endUser.email,
      webhookType: "credits.low",
    });
    expect(low[0]!.data).toMatchObject({
      object: "credit_pool",
      endUserId: endUser.id,
      tierPlanId: plan.id,
      creditAllowance: 30,
      creditsUsed: 28,
      creditsLeft: 2,
    });

    await chargeEndUserCredit(getDb(), organizationId, endUser.id);
    await expect(chargeEndUserCredit(getDb(), organizationId, endUser.id)).rejects.toMatchObject({
      code: "insufficient_credits",
    });
    const exhausted = await eventsOf(organizationId, "credits.exhausted");
    expect(exhausted).toHaveLength(1);
    expect(exhausted[0]!.data).toMatchObject({ object: "credit_pool", creditsLeft: 0 });
    // The organization's own balance (1,000) never came near its threshold.
    expect(exhausted.every((event) => event.targetType === "subscription")).toBe(true);
  });
});

describe("portal sign-ins", () => {
  it("records an end user's wrong code as a failure and their sign-in as a success, through the portal door", async () => {
    const scenario = await portalScenario();
    const headers = clientAddress();
    const address = scenario.endUser.email;
    await portalCall("mutation", "auth.requestCode", { portal: scenario.portal.slug, email: address }, { headers });
    // The mail is written after the answer: wait for it, so the sign-in below reads its own code.
    expect(await codeFromOutbox(scenario.tenant.organization.id, address, 1)).toMatch(/^\d{6}$/);
    const wrong = await portalCall(
      "mutation",
      "auth.verifyCode",
      { portal: scenario.portal.slug, email: address, code: "000000" },
      { headers },
    );
    expect(wrong.status).toBeGreaterThanOrEqual(400);
    await signIn(scenario, address, headers);
    const events = await eventsOf(scenario.tenant.organization.id, "end_user.sign_in");
    expect(events.map((event) => [event.actorId, event.door, event.outcome])).toEqual([
      [scenario.endUser.id, "portal", "failure"],
      [scenario.endUser.id, "portal", "success"],
    ]);
    expect(events[1]!.ipAddress).toEqual(expect.any(String));
  });
});
