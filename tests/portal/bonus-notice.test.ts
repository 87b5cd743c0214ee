// The end user told of bonus credits: in the portal on their next visit (until they dismiss the
// notice), and by mail (here the organization's outbox, as no SMTP is configured). Their plan's
// description, shown price and features come with their credits.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api } from "../helpers";
import { clientAddress, portalCall, portalScenario, signIn } from "./helpers";

describe("bonus credits, told to the end user", () => {
  it("shows the bonus in the portal until dismissed, and mails it", async () => {
    const scenario = await portalScenario({ credits: 10 });
    const { key, endUser } = scenario;
    await api("PATCH", `/tier-plans/${scenario.plan.id}`, {
      key,
      body: { description: "For regulars", priceAmount: 900, priceCurrency: "EUR", features: ["10 credits a month"] },
    });
    const cookie = await signIn(scenario, endUser.email, clientAddress());
    const me = () => portalCall("query", "me.get", { portal: scenario.portal.slug }, { cookie });

    const before = await me();
    expect(before.body.result.data.bonuses).toEqual([]);
    expect(before.body.result.data.credits.plans[0]).toMatchObject({
      planDescription: "For regulars",
      priceAmount: 900,
      priceCurrency: "EUR",
      priceInterval: "month",
      planFeatures: ["10 credits a month"],
    });

    const granted = await api("POST", `/end-users/${endUser.id}/tier-plans/${scenario.plan.id}/bonus-credits`, {
      key,
      body: { credits: 15, reason: "Sorry for the outage" },
    });
    expect(granted.status).toBe(200);

    const told = await me();
    expect(told.body.result.data.bonuses).toEqual([
      { credits: 15, planName: "Starter", reason: "Sorry for the outage", at: expect.any(String) },
    ]);
    expect(told.body.result.data.credits.left).toBe(25);

    const mail = await getDb().outboxMessage.findMany({
      where: { organizationId: scenario.tenant.organization.id, to: endUser.email, subject: { contains: "bonus" } },
    });
    expect(mail).toHaveLength(1);
    expect(mail[0]!.subject).toContain("15 bonus credits");
    expect(mail[0]!.text).toContain("Starter");
    expect(mail[0]!.text).toContain("Sorry for the outage");

    // Read: not told again, until the next bonus.
    const dismissed = await portalCall("mutation", "me.dismissBonuses", { portal: scenario.portal.slug }, { cookie });
    expect(dismissed.status).toBe(200);
    expect((await me()).body.result.data.bonuses).toEqual([]);
    await api("POST", `/end-users/${endUser.id}/tier-plans/${scenario.plan.id}/bonus-credits`, {
      key,
      body: { credits: 1 },
    });
    expect((await me()).body.result.data.bonuses).toEqual([
      { credits: 1, planName: "Starter", reason: null, at: expect.any(String) },
    ]);
  });

  it("needs a signed-in end user to dismiss", async () => {
    const scenario = await portalScenario();
    const refused = await portalCall("mutation", "me.dismissBonuses", { portal: scenario.portal.slug });
    expect(refused.status).toBe(401);
  });
});
