// Plans that limit models (the contract's "Pricing: credits that follow cost"): a tier plan's
// `allowedModels` (null = all), set on create and PATCH /tier-plans/{id}; an end user's run whose
// app would call a model none of their active plans allows is refused 403 model_not_in_plan
// before anything runs or is charged, and a run is charged to a pool whose plan allows its models.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.MODEL_PROVIDER_MODELS = "tool-model,other-model";
  process.env.MODEL_PROVIDER_NAME = "testai";
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
});

import { getDb } from "@/server/db";
import { effectiveAccess } from "@/server/services/portal/effective-access";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { api, expectError } from "../helpers";
import { portalScenario } from "../portal/helpers";
import { converse, credits } from "../runtime-helpers";

let openai: FakeOpenAI;

beforeAll(async () => {
  openai = await startFakeOpenAI(() => "An answer.");
  process.env.MODEL_PROVIDER_BASE_URL = openai.baseURL;
});
afterAll(() => openai.close());

describe("tier plans' allowedModels", () => {
  it("are set on create and by PATCH, checked against the organization's models, and listed", async () => {
    const world = await portalScenario();
    const key = world.key;
    const listed = await api("GET", "/tier-plans", { key });
    expect(listed.body.tierPlans[0]).toMatchObject({ id: world.plan.id, allowedModels: null });

    const patched = await api("PATCH", `/tier-plans/${world.plan.id}`, {
      key,
      body: { allowedModels: ["other-model", "atrium-offline"] },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.tierPlan.allowedModels).toEqual(["other-model", "atrium-offline"]);
    const event = await getDb().auditEvent.findFirstOrThrow({
      where: { organizationId: world.tenant.organization.id, action: "tier_plan.update" },
    });
    expect(event.changes).toMatchObject({ allowedModels: [null, ["other-model", "atrium-offline"]] });

    expectError(
      await api("PATCH", `/tier-plans/${world.plan.id}`, { key, body: { allowedModels: ["no-such-model"] } }),
      422,
      "invalid_model",
    );
    expectError(
      await api("POST", "/tier-plans", { key, body: { name: "Bad", allowedModels: ["no-such-model"] } }),
      422,
      "invalid_model",
    );
    const created = await api("POST", "/tier-plans", { key, body: { name: "Cheap", allowedModels: ["other-model"] } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.tierPlan.allowedModels).toEqual(["other-model"]);

    const cleared = await api("PATCH", `/tier-plans/${world.plan.id}`, { key, body: { allowedModels: null } });
    expect(cleared.body.tierPlan.allowedModels).toBeNull();
  });

  it("refuse an end user's run on a model none of their plans allows, before anything runs or is charged", async () => {
    const world = await portalScenario({ billingModel: "tool-model" });
    await api("PATCH", `/tier-plans/${world.plan.id}`, {
      key: world.key,
      body: { allowedModels: ["other-model"] },
    });
    // The end user's effective access shows what their plan allows.
    const access = await effectiveAccess(getDb(), world.tenant.operator, { endUserId: world.endUser.id });
    expect(access.plans.map((plan) => plan.allowedModels)).toEqual([["other-model"]]);
    const before = await credits(world.tenant);
    const calls = openai.requests.length;
    const response = await converse(world.key, world.appId, {
      message: "How long do refunds take?",
      endUserId: world.endUser.id,
      portalId: world.portal.id,
    });
    expectError(response, 403, "model_not_in_plan");
    expect(response.body.error.models).toEqual(["tool-model"]);
    expect(openai.requests.length).toBe(calls);
    expect(await credits(world.tenant)).toBe(before);
    const pool = await getDb().subscription.findFirstOrThrow({ where: { endUserId: world.endUser.id } });
    expect(pool.creditsUsed).toBe(0);
    expect(await getDb().execution.count({ where: { organizationId: world.tenant.organization.id } })).toBe(0);

    // The organization itself (no end user) is not limited by plans.
    expect((await converse(world.key, world.appId, { message: "How long do refunds take?" })).status).toBe(200);
  });

  it("charge the pool of a plan that allows the run's models, not the first one", async () => {
    const world = await portalScenario({ billingModel: "tool-model" });
    const key = world.key;
    await api("PATCH", `/tier-plans/${world.plan.id}`, { key, body: { allowedModels: ["other-model"] } });
    const pro = await api("POST", "/tier-plans", { key, body: { name: "Pro", creditAllowance: 50 } });
    expect(pro.status, pro.text).toBe(201);
    const subscribed = await api("POST", "/end-users", {
      key,
      body: { email: world.endUser.email, tierPlanIds: [pro.body.tierPlan.id] },
    });
    expect(subscribed.status, subscribed.text).toBeLessThan(300);
    const response = await converse(key, world.appId, {
      message: "How long do refunds take?",
      endUserId: world.endUser.id,
      portalId: world.portal.id,
    });
    expect(response.status, response.text).toBe(200);
    const pools = await getDb().subscription.findMany({
      where: { endUserId: world.endUser.id },
      include: { tierPlan: { select: { name: true } } },
    });
    expect(Object.fromEntries(pools.map((pool) => [pool.tierPlan.name, pool.creditsUsed]))).toEqual({
      Starter: 0,
      Pro: 1,
    });
  });
});
