// An organization with a large balance (a billion credits, as the scale bench gives its own):
// the low-balance check must not overflow 32-bit arithmetic on the way to charging a turn.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api } from "../helpers";
import { newPlan } from "../provisioning-helpers";
import { publishedApp } from "../runtime-helpers";

describe("a conversation turn in an organization holding a billion credits", () => {
  it("charges the end user's pool and the organization, for the organization and for an end user", async () => {
    const app = await publishedApp({ tenant: { credits: 1_000_000_000 } });
    const { tierPlan } = await newPlan(app.tenant.operator, { credits: 10 });
    const provisioned = await api("POST", "/end-users", {
      key: app.key,
      body: {
        email: `large-${Date.now()}@example.test`,
        tierPlanIds: [tierPlan.id],
        grants: [{ targetKind: "app", targetId: app.appId }],
      },
    });
    const endUserId = provisioned.body.endUser.id as string;

    for (const body of [{ message: "How long do refunds take?" }, { message: "And shipping?", endUserId }]) {
      const turn = await api("POST", `/apps/${app.appId}/conversation`, { key: app.key, body });
      expect(turn.status).toBe(200);
    }
    const organization = await getDb().organization.findUniqueOrThrow({ where: { id: app.tenant.organization.id } });
    expect(organization.credits).toBeLessThan(1_000_000_000);
    const pool = await getDb().subscription.findFirstOrThrow({ where: { endUserId } });
    expect(pool.creditsUsed).toBe(1);
  });
});
