// More credits: an end user out of credits asks from the portal (admins are mailed, at most 3 open
// requests), an admin grants bonus credits over REST (atomic, bounded, idempotent with a key,
// tenant-scoped), the requests close, and the end user goes on; bonus credits end with the pool.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { runNotificationEmailsOnce } from "@/server/jobs/notification-emails";
import { api, expectError, newOrganization } from "../helpers";
import { clientAddress, errorCode, portalCall, portalScenario, signIn, type PortalScenario } from "./helpers";

function turn(scenario: PortalScenario, message = "Hello") {
  return api("POST", `/apps/${scenario.appId}/conversation`, {
    key: scenario.key,
    body: { message, endUserId: scenario.endUser.id, portalId: scenario.portal.id },
  });
}

function bonus(
  scenario: PortalScenario,
  body: Record<string, unknown>,
  options: { key?: string; tierPlanId?: string; headers?: Record<string, string> } = {},
) {
  return api(
    "POST",
    `/end-users/${scenario.endUser.id}/tier-plans/${options.tierPlanId ?? scenario.plan.id}/bonus-credits`,
    {
      key: options.key ?? scenario.key,
      body,
      headers: options.headers,
    },
  );
}

async function pool(scenario: PortalScenario) {
  return getDb().subscription.findFirstOrThrow({
    where: { endUserId: scenario.endUser.id, tierPlanId: scenario.plan.id },
  });
}

describe("asking for more credits and getting them", () => {
  it("out of credits → ask from the portal → admins mailed → bonus granted → the end user goes on", async () => {
    const scenario = await portalScenario({ credits: 1 });
    expect((await turn(scenario)).status).toBe(200);
    expectError(await turn(scenario), 402, "insufficient_credits");

    const cookie = await signIn(scenario, scenario.endUser.email, clientAddress());
    const asked = await portalCall(
      "mutation",
      "credits.request",
      { portal: scenario.portal.slug, message: "I have an exam tomorrow" },
      { cookie },
    );
    expect(asked.status).toBe(200);
    expect(asked.body.result.data.creditRequest).toMatchObject({
      status: "open",
      message: "I have an exam tomorrow",
      endUserId: scenario.endUser.id,
    });

    // The notification email worker mails the admins (src/server/jobs/notification-emails.ts).
    await runNotificationEmailsOnce(getDb());
    const mail = await getDb().outboxMessage.findFirst({
      where: { organizationId: scenario.tenant.organization.id, to: scenario.tenant.owner.email },
    });
    expect(mail?.subject).toContain(scenario.endUser.email);
    expect(mail?.text).toContain("I have an exam tomorrow");

    const listed = await api("GET", `/end-users/${scenario.endUser.id}/credit-requests`, { key: scenario.key });
    expect(listed.status).toBe(200);
    expect(listed.body.creditRequests).toHaveLength(1);

    const granted = await bonus(scenario, { credits: 5, reason: "Exam week" });
    expect(granted.status).toBe(200);
    expect(granted.body.subscription).toMatchObject({
      tierPlanId: scenario.plan.id,
      bonusCredits: 5,
      creditsUsed: 1,
      status: "active",
    });
    const after = await api("GET", `/end-users/${scenario.endUser.id}/credit-requests`, { key: scenario.key });
    expect(after.body.creditRequests[0]).toMatchObject({ status: "granted" });
    expect(after.body.creditRequests[0].resolvedAt).not.toBeNull();

    expect((await turn(scenario)).status).toBe(200);
    const me = await portalCall("query", "me.get", { portal: scenario.portal.slug }, { cookie });
    expect(me.body.result.data.credits.left).toBe(4);
  });

  it("at most 3 open requests per end user, also when asked at once; a dismissed one makes room", async () => {
    const scenario = await portalScenario({ credits: 1 });
    const cookie = await signIn(scenario, scenario.endUser.email, clientAddress());
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        portalCall("mutation", "credits.request", { portal: scenario.portal.slug }, { cookie }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 409).every((a) => errorCode(a) === "conflict")).toBe(true);
    expect(await getDb().creditRequest.count({ where: { endUserId: scenario.endUser.id } })).toBe(3);

    const first = answers.find((a) => a.status === 200)!.body.result.data.creditRequest.id as string;
    const dismissed = await api("POST", `/end-users/${scenario.endUser.id}/credit-requests/${first}/dismiss`, {
      key: scenario.key,
    });
    expect(dismissed.status).toBe(200);
    expect(dismissed.body.creditRequest.status).toBe("dismissed");
    expect((await portalCall("mutation", "credits.request", { portal: scenario.portal.slug }, { cookie })).status).toBe(
      200,
    );
  });

  it("a request needs a signed-in end user, and its message a bound", async () => {
    const scenario = await portalScenario();
    expect((await portalCall("mutation", "credits.request", { portal: scenario.portal.slug })).status).toBe(401);
    const cookie = await signIn(scenario, scenario.endUser.email, clientAddress());
    const long = await portalCall(
      "mutation",
      "credits.request",
      { portal: scenario.portal.slug, message: "x".repeat(501) },
      { cookie },
    );
    expect(long.status).toBe(400);
    expect(await getDb().creditRequest.count({ where: { endUserId: scenario.endUser.id } })).toBe(0);
  });
});

describe("POST /end-users/{id}/tier-plans/{tierPlanId}/bonus-credits", () => {
  it("credits must be an integer from 1 to 1,000,000; nothing is written otherwise", async () => {
    const scenario = await portalScenario();
    for (const credits of [0, -5, 1.5, 1_000_001, null]) {
      const refused = await bonus(scenario, { credits });
      expectError(refused, 400, "invalid_request");
    }
    expect((await pool(scenario)).bonusCredits).toBe(0);
  });

  it("concurrent grants all count; a canceled subscription is a conflict; unknown plan or end user is not_found", async () => {
    const scenario = await portalScenario();
    const grants = await Promise.all(Array.from({ length: 10 }, () => bonus(scenario, { credits: 3 })));
    expect(grants.every((g) => g.status === 200)).toBe(true);
    expect((await pool(scenario)).bonusCredits).toBe(30);

    expectError(
      await bonus(scenario, { credits: 1 }, { tierPlanId: "00000000-0000-4000-8000-000000000000" }),
      404,
      "not_found",
    );
    expect(
      (await api("DELETE", `/end-users/${scenario.endUser.id}/tier-plans/${scenario.plan.id}`, { key: scenario.key }))
        .status,
    ).toBe(204);
    expectError(await bonus(scenario, { credits: 1 }), 409, "conflict");
  });

  it("the same Idempotency-Key gives the credits once", async () => {
    const scenario = await portalScenario();
    const headers = { "idempotency-key": "bonus-once-1" };
    const first = await bonus(scenario, { credits: 7 }, { headers });
    const again = await bonus(scenario, { credits: 7 }, { headers });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await pool(scenario)).bonusCredits).toBe(7);
  });

  it("another organization's key cannot see or grant: not_found, nothing written", async () => {
    const scenario = await portalScenario();
    const other = await newOrganization();
    expectError(await bonus(scenario, { credits: 5 }, { key: other.orgKey.secret }), 404, "not_found");
    expectError(
      await api("GET", `/end-users/${scenario.endUser.id}/credit-requests`, { key: other.orgKey.secret }),
      404,
      "not_found",
    );
    expect((await pool(scenario)).bonusCredits).toBe(0);
  });

  it("bonus credits last until the pool resets", async () => {
    const scenario = await portalScenario({ credits: 2 });
    await bonus(scenario, { credits: 5 });
    await getDb().subscription.update({
      where: { id: (await pool(scenario)).id },
      data: { creditsResetAt: new Date(Date.now() - 1000), creditsUsed: 2 },
    });
    const detail = await api("GET", `/end-users/${scenario.endUser.id}`, { key: scenario.key });
    expect(detail.body.endUser.subscriptions[0]).toMatchObject({ bonusCredits: 0, creditsUsed: 0 });
    expect((await pool(scenario)).bonusCredits).toBe(0);
  });
});
