// A plan's description, shown price and what it includes, over REST: written on create and
// PATCH, listed, recorded in the audit log, bounded, and out of reach of another organization.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api, expectError, newOrganization } from "../helpers";

describe("tier plan details over REST", () => {
  it("creates a plan with a description, a price and features, lists and changes them", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const created = await api("POST", "/tier-plans", {
      key,
      body: {
        name: "Pro",
        creditAllowance: 500,
        description: "For teams that chat every day.",
        priceAmount: 2900,
        priceCurrency: "EUR",
        priceInterval: "month",
        features: ["500 credits a month", " Every app "],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.tierPlan).toMatchObject({
      name: "Pro",
      description: "For teams that chat every day.",
      priceAmount: 2900,
      priceCurrency: "EUR",
      priceInterval: "month",
      features: ["500 credits a month", "Every app"],
    });
    const id = created.body.tierPlan.id;

    // A plan made without them has none.
    const plain = await api("POST", "/tier-plans", { key, body: { name: "Free" } });
    expect(plain.body.tierPlan).toMatchObject({
      description: "",
      priceAmount: null,
      priceCurrency: "USD",
      features: [],
    });

    const listed = await api("GET", "/tier-plans", { key });
    expect(listed.body.tierPlans.find((plan: { id: string }) => plan.id === id)).toMatchObject({ priceAmount: 2900 });

    const changed = await api("PATCH", `/tier-plans/${id}`, {
      key,
      body: { priceAmount: 29000, priceInterval: "year", features: ["Everything in Free"] },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.tierPlan).toMatchObject({
      priceAmount: 29000,
      priceInterval: "year",
      features: ["Everything in Free"],
      description: "For teams that chat every day.",
    });
    const event = await getDb().auditEvent.findFirstOrThrow({
      where: { organizationId: tenant.organization.id, action: "tier_plan.update", targetId: id },
    });
    expect(event.changes).toEqual({
      priceAmount: [2900, 29000],
      priceInterval: ["month", "year"],
      features: [["500 credits a month", "Every app"], ["Everything in Free"]],
    });

    const removed = await api("PATCH", `/tier-plans/${id}`, { key, body: { priceAmount: null } });
    expect(removed.body.tierPlan.priceAmount).toBeNull();
  });

  it("refuses a bad currency, a negative price and too many features, writing nothing", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const { body } = await api("POST", "/tier-plans", { key, body: { name: "Pro", priceAmount: 100 } });
    const id = body.tierPlan.id;
    expectError(
      await api("PATCH", `/tier-plans/${id}`, { key, body: { priceCurrency: "usd" } }),
      400,
      "invalid_request",
    );
    expectError(await api("PATCH", `/tier-plans/${id}`, { key, body: { priceAmount: -1 } }), 400, "invalid_request");
    expectError(
      await api("PATCH", `/tier-plans/${id}`, {
        key,
        body: { features: Array.from({ length: 21 }, (_, i) => `f${i}`) },
      }),
      400,
      "invalid_request",
    );
    expectError(
      await api("POST", "/tier-plans", { key, body: { name: "Odd", priceInterval: "week" } }),
      400,
      "invalid_request",
    );
    const stored = await getDb().tierPlan.findUniqueOrThrow({ where: { id } });
    expect(stored).toMatchObject({ priceAmount: 100, priceCurrency: "USD", features: [] });

    const other = await newOrganization();
    expectError(
      await api("PATCH", `/tier-plans/${id}`, { key: other.orgKey.secret, body: { description: "Mine now" } }),
      404,
      "not_found",
    );
    expect((await getDb().tierPlan.findUniqueOrThrow({ where: { id } })).description).toBe("");
  });
});
