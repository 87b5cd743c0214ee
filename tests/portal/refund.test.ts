// A run for an end user that fails upstream before producing anything gives the credit back
// to the pool that paid and to the organization (the same rule as the organization's own runs).
import { afterAll, beforeAll, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { readEvents } from "../runtime-helpers";
import { portalChat, portalScenario, signIn } from "./helpers";

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI(() => "Refunds take fourteen days.");
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_MODELS = "gpt-test";
});

afterAll(() => fake.close());

it("a provider failure in the portal chat charges neither her pool nor the organization, and is recorded as hers", async () => {
  const scenario = await portalScenario({ credits: 5, billingModel: "gpt-test" });
  const cookie = await signIn(scenario, scenario.endUser.email);
  const db = getDb();
  const orgBefore = (await db.organization.findUniqueOrThrow({ where: { id: scenario.tenant.organization.id } }))
    .credits;
  fake.failWith(500);
  const response = await portalChat(
    scenario.portal.slug,
    scenario.appId,
    { message: "How long do refunds take?" },
    { cookie },
  );
  const failed =
    response.status === 200 ? (await readEvents(response)).find((e) => e.event === "error") : await response.json();
  expect(failed).toBeDefined();
  fake.failWith(null);
  expect((await db.subscription.findFirstOrThrow({ where: { endUserId: scenario.endUser.id } })).creditsUsed).toBe(0);
  expect((await db.organization.findUniqueOrThrow({ where: { id: scenario.tenant.organization.id } })).credits).toBe(
    orgBefore,
  );
  const execution = await db.execution.findFirstOrThrow({ where: { organizationId: scenario.tenant.organization.id } });
  expect(execution).toMatchObject({
    status: "failed",
    credits: 0,
    endUserId: scenario.endUser.id,
    portalId: scenario.portal.id,
  });
});
