// Reservations (the contract's "Pricing: credits that follow cost"): before a priced model is
// called its ceiling (estimated input, plus the call's maximum output, priced) is taken from the
// balance and the end user's pool; the call's output is capped at that maximum; the run settles
// what its calls cost and releases the rest. Through the REST door against a stand-in
// OpenAI-compatible provider whose answers stream slowly enough for runs to overlap.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.MODEL_PROVIDER_MODELS = "tool-model,other-model";
  process.env.MODEL_PROVIDER_NAME = "testai";
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

import { getDb } from "@/server/db";
import { RUN_LIMITS } from "@/server/runtime/limits";
import { BUILTIN_MODEL_ID } from "@/server/runtime/model-types";
import { RUN_LOST, settleLostRun } from "@/server/runtime/run-leases";
import { create, publish } from "../builder-helpers";
import { DEFAULT_FAKE_USAGE, startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { api, expectError, newOrganization, type Tenant } from "../helpers";
import { portalScenario } from "../portal/helpers";
import { converse, credits, oneAgentApp, orderLookupApp } from "../runtime-helpers";

let openai: FakeOpenAI;
/** When set, the call after the next one hangs (a run whose process is about to be lost). */
let stallAfterNext = false;

beforeAll(async () => {
  openai = await startFakeOpenAI(
    () => {
      if (stallAfterNext) openai.hang(true);
      return "Five tokens of answer here.";
    },
    { tokenDelayMs: 60 },
  );
  process.env.MODEL_PROVIDER_BASE_URL = openai.baseURL;
});
afterAll(() => openai.close());

/** One credit an output token, input free: a call's ceiling is exactly its maximum output tokens. */
const PER_OUTPUT_TOKEN = { inputCreditsPerMillion: 0, outputCreditsPerMillion: 1_000_000, minimumCredits: 1 };

function setPrice(key: string, modelId: string, body: Record<string, unknown> = PER_OUTPUT_TOKEN) {
  return api("PUT", `/model-prices/${encodeURIComponent(modelId)}`, { key, body });
}

function toolApp(tenant: Tenant, model = "tool-model") {
  return orderLookupApp(tenant.orgKey.secret, { name: "Priced agent", model }, "Priced app");
}

async function executions(tenant: Tenant) {
  return getDb().execution.findMany({ where: { organizationId: tenant.organization.id } });
}

describe("reservations", () => {
  it("refuses a run whose call ceiling the pool or the balance cannot hold, before anything runs", async () => {
    const ceiling = RUN_LIMITS.callOutputTokens;
    // The pool holds the minimum (1) many times over, but not one call's ceiling.
    const world = await portalScenario({ credits: ceiling - 1, billingModel: "tool-model" });
    await setPrice(world.key, "tool-model");
    const calls = openai.requests.length;
    const before = await credits(world.tenant);
    expectError(
      await converse(world.key, world.appId, {
        message: "How long do refunds take?",
        endUserId: world.endUser.id,
        portalId: world.portal.id,
      }),
      402,
      "insufficient_credits",
    );
    expect(openai.requests.length).toBe(calls);
    expect(await credits(world.tenant)).toBe(before);
    const pool = await getDb().subscription.findFirstOrThrow({ where: { endUserId: world.endUser.id } });
    expect(pool.creditsUsed).toBe(0);
    expect(await executions(world.tenant)).toEqual([]);

    const poor = await newOrganization({ credits: ceiling - 1 });
    const appId = await toolApp(poor);
    await setPrice(poor.orgKey.secret, "tool-model");
    expectError(await converse(poor.orgKey.secret, appId, { message: "Hello" }), 402, "insufficient_credits");
    expect(await credits(poor)).toBe(ceiling - 1);
    expect(openai.requests.length).toBe(calls);
  });

  it("refuses a routed turn before the route when the balance holds the answer's ceiling but not the route's too", async () => {
    const ceiling = RUN_LIMITS.callOutputTokens;
    const routedApp = async (tenant: Tenant) => {
      const key = tenant.orgKey.secret;
      const members = [];
      for (const name of ["Refunds helper", "Orders helper"]) {
        const agent = await create(key, "agents", { name, model: "tool-model" });
        await publish(key, "agents", agent.id);
        members.push({ id: agent.id, kind: "agent" });
      }
      const app = await create(key, "apps", { name: "Routed app", members, orchestrationMode: "supervisor" });
      await publish(key, "apps", app.id);
      await setPrice(key, "tool-model");
      await setPrice(key, BUILTIN_MODEL_ID);
      return app.id as string;
    };
    const short = await newOrganization({ credits: 2 * ceiling - 1 });
    const shortApp = await routedApp(short);
    const calls = openai.requests.length;
    expectError(
      await converse(short.orgKey.secret, shortApp, { message: "Where is my order?" }),
      402,
      "insufficient_credits",
    );
    expect(openai.requests.length).toBe(calls);
    expect(await credits(short)).toBe(2 * ceiling - 1);
    expect(await executions(short)).toEqual([]);
    expect(await getDb().runLease.count({ where: { organizationId: short.organization.id } })).toBe(0);

    // One credit more holds both ceilings: the same turn is routed, answered and settled.
    const enough = await newOrganization({ credits: 2 * ceiling });
    const enoughApp = await routedApp(enough);
    const response = await converse(enough.orgKey.secret, enoughApp, { message: "Where is my order?" });
    expect(response.status, response.text).toBe(200);
    expect(openai.requests.length).toBe(calls + 1);
    const [execution] = await executions(enough);
    expect(execution!.credits).toBeGreaterThan(0);
    expect(await credits(enough)).toBe(2 * ceiling - execution!.credits);
  });

  it("caps the priced call's output at the reserved maximum, then settles its actual cost and releases the rest", async () => {
    const tenant = await newOrganization({ credits: 5_000 });
    const appId = await toolApp(tenant);
    await setPrice(tenant.orgKey.secret, "tool-model");
    const response = await converse(tenant.orgKey.secret, appId, { message: "Hello" });
    expect(response.status, response.text).toBe(200);
    expect(openai.requests.at(-1)!.maxTokens).toBe(RUN_LIMITS.callOutputTokens);
    // The stand-in reports 5 output tokens: 5 credits kept, the rest of the ceiling released.
    expect(await credits(tenant)).toBe(5_000 - 5);
    expect((await executions(tenant))[0]!.credits).toBe(5);
    expect(await getDb().runLease.count({ where: { organizationId: tenant.organization.id } })).toBe(0);

    // An unpriced model's call is not capped.
    const unpriced = await newOrganization();
    const other = await toolApp(unpriced, "other-model");
    expect((await converse(unpriced.orgKey.secret, other, { message: "Hello" })).status).toBe(200);
    expect(openai.requests.at(-1)!.maxTokens).toBeUndefined();
  });

  it("never charges more than it reserved, whatever the provider reports", async () => {
    openai.reportUsage(() => ({ input: 10, output: 50_000 }));
    try {
      const tenant = await newOrganization({ credits: 100_000 });
      const appId = await toolApp(tenant);
      await setPrice(tenant.orgKey.secret, "tool-model");
      expect((await converse(tenant.orgKey.secret, appId, { message: "Hello" })).status).toBe(200);
      expect(await credits(tenant)).toBe(100_000 - RUN_LIMITS.callOutputTokens);
      expect((await executions(tenant))[0]!.credits).toBe(RUN_LIMITS.callOutputTokens);
    } finally {
      openai.reportUsage(DEFAULT_FAKE_USAGE);
    }
  });

  it("never overdraws under concurrent runs: those whose ceiling cannot be reserved are refused, the others settle", async () => {
    const ceiling = RUN_LIMITS.callOutputTokens;
    // Room for two ceilings at once, not three.
    const balance = 2 * ceiling + ceiling / 2;
    const tenant = await newOrganization({ credits: balance });
    const appId = await toolApp(tenant);
    await setPrice(tenant.orgKey.secret, "tool-model");
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => converse(tenant.orgKey.secret, appId, { message: "Hello" })),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(2);
    expect(statuses.filter((status) => status === 402).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((status) => status === 200 || status === 402)).toBe(true);
    const charged = (await executions(tenant)).reduce((sum, execution) => sum + execution.credits, 0);
    expect(charged).toBe(5 * statuses.filter((status) => status === 200).length);
    expect(await credits(tenant)).toBe(balance - charged);
  });
});

describe("a graded test case on a priced model", () => {
  const CASE = { input: "How long do refunds take?", expectedBehavior: "Says fourteen days" };

  it("reserves before each call, its grader's included (capped at a verdict's length), and settles what both cost", async () => {
    const tenant = await newOrganization({ credits: 5_000 });
    const key = tenant.orgKey.secret;
    const agent = await create(key, "agents", { name: "Priced helper", model: "tool-model" });
    await setPrice(key, "tool-model");
    const calls = openai.requests.length;
    const response = await api("POST", `/agents/${agent.id}/tests`, { key, body: { cases: [CASE] } });
    expect(response.status, response.text).toBe(200);
    // The answer and the grading, each capped at its reserved maximum.
    expect(openai.requests.slice(calls).map((request) => request.maxTokens)).toEqual([
      RUN_LIMITS.callOutputTokens,
      RUN_LIMITS.gradeOutputTokens,
    ]);
    // 5 output tokens each: 10 credits kept, the rest of both ceilings released.
    expect(await credits(tenant)).toBe(5_000 - 10);
    const [execution] = await executions(tenant);
    expect(execution).toMatchObject({ kind: "test", status: "succeeded", credits: 10 });
    expect(await getDb().runLease.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  });

  it("does not grade a case whose grader's ceiling the balance cannot hold: the answer is charged what it cost", async () => {
    const balance = RUN_LIMITS.callOutputTokens + RUN_LIMITS.gradeOutputTokens / 2;
    // Room for the answer's ceiling, not for the grader's on top of it.
    const tenant = await newOrganization({ credits: balance });
    const key = tenant.orgKey.secret;
    const agent = await create(key, "agents", { name: "Priced helper", model: "tool-model" });
    await setPrice(key, "tool-model");
    const calls = openai.requests.length;
    const response = await api("POST", `/agents/${agent.id}/tests`, { key, body: { cases: [CASE] } });
    expect(response.status, response.text).toBe(200);
    expect(openai.requests.length).toBe(calls + 1);
    const [result] = response.body.results;
    expect(result).toMatchObject({ passed: false, output: "Five tokens of answer here." });
    expect(result.failures[0].reason).toMatch(/credits/i);
    expect(await credits(tenant)).toBe(balance - 5);
    expect((await executions(tenant))[0]).toMatchObject({ kind: "test", credits: 5 });
  });
});

describe("credits.low on reservations", () => {
  it("fires when a later call's reservation takes the end user's pool under its threshold", async () => {
    const ceiling = RUN_LIMITS.callOutputTokens;
    // Two priced members, one after the other: the run's charge reserves the first call's
    // ceiling, the second call's reservation takes the pool under 10% of its allowance.
    const allowance = Math.ceil((2 * ceiling) / 0.95);
    const world = await portalScenario({
      credits: allowance,
      orgCredits: 100_000,
      app: { orchestrationMode: "sequential" },
      billingModel: "tool-model",
      supportModel: "tool-model",
    });
    await setPrice(world.key, "tool-model");
    const organizationId = world.tenant.organization.id;
    const lowEvents = () =>
      getDb().auditEvent.findMany({ where: { organizationId, action: "credits.low", targetType: "subscription" } });
    expect(await lowEvents()).toHaveLength(0);
    const response = await converse(world.key, world.appId, {
      message: "How long do refunds take?",
      endUserId: world.endUser.id,
      portalId: world.portal.id,
    });
    expect(response.status, response.text).toBe(200);
    const [low, ...more] = await lowEvents();
    expect(more).toHaveLength(0);
    expect(low).toMatchObject({ webhookType: "credits.low", targetId: expect.any(String) });
    expect(low!.data).toMatchObject({ object: "credit_pool", endUserId: world.endUser.id, creditAllowance: allowance });
    // Settled: the two calls' 5 output tokens each, the rest released.
    const pool = await getDb().subscription.findFirstOrThrow({ where: { endUserId: world.endUser.id } });
    expect(pool.creditsUsed).toBe(10);
  });
});

describe("a reserved run lost with its process", () => {
  it("is charged what its recorded calls cost, the rest released to the balance and the pool", async () => {
    // A sequential app of two priced agents: the first answers, the second's call never does.
    const world = await portalScenario({
      credits: 10_000,
      orgCredits: 10_000,
      app: { orchestrationMode: "sequential" },
      billingModel: "tool-model",
      supportModel: "tool-model",
    });
    const db = getDb();
    const organizationId = world.tenant.organization.id;
    await setPrice(world.key, "tool-model");
    const before = await credits(world.tenant);
    const calls = openai.requests.length;
    stallAfterNext = true;
    try {
      const running = converse(world.key, world.appId, {
        message: "How long do refunds take?",
        endUserId: world.endUser.id,
        portalId: world.portal.id,
      });
      // Wait until the second member's call is made (and hangs): the first call is recorded.
      while (openai.requests.length < calls + 2) await new Promise((resolve) => setTimeout(resolve, 20));
      const lease = await db.runLease.findFirstOrThrow({ where: { organizationId } });
      expect(await settleLostRun(db, lease.id, RUN_LOST, null)).toBe(true);

      // The first call's 5 output tokens are charged; the rest of both ceilings released.
      expect(await credits(world.tenant)).toBe(before - 5);
      const pool = await db.subscription.findFirstOrThrow({ where: { endUserId: world.endUser.id } });
      expect(pool.creditsUsed).toBe(5);
      const execution = await db.execution.findUniqueOrThrow({ where: { id: lease.id } });
      expect(execution).toMatchObject({ status: "failed", credits: 5 });

      // The run's own end, once its call fails, finds it settled and changes nothing.
      stallAfterNext = false;
      openai.hang(false);
      await running;
      expect(await credits(world.tenant)).toBe(before - 5);
      expect((await db.subscription.findFirstOrThrow({ where: { endUserId: world.endUser.id } })).creditsUsed).toBe(5);
    } finally {
      stallAfterNext = false;
      openai.hang(false);
    }
  });

  it("is charged its routing call when lost during the answer its charge reserved: the route's cost reached the lease on its own", async () => {
    // The built-in supervisor routes to one priced agent: the charge reserves both calls' ceilings,
    // so no reservation follows the routing call to carry its cost to the lease.
    const tenant = await newOrganization({ credits: 10_000 });
    const key = tenant.orgKey.secret;
    const appId = await oneAgentApp(
      key,
      { name: "Priced helper", model: "tool-model" },
      { name: "Routed app", orchestrationMode: "supervisor" },
    );
    await setPrice(key, "tool-model");
    await setPrice(key, BUILTIN_MODEL_ID);
    const db = getDb();
    const organizationId = tenant.organization.id;
    const calls = openai.requests.length;
    openai.hang(true);
    try {
      const running = converse(key, appId, { message: "How long do refunds take?" });
      while (openai.requests.length < calls + 1) await new Promise((resolve) => setTimeout(resolve, 20));
      let lease = await db.runLease.findFirstOrThrow({ where: { organizationId } });
      expect((lease.charge as { amount: number }).amount).toBe(2 * RUN_LIMITS.callOutputTokens);
      const cost = async () => (lease.charge as { cost?: number }).cost ?? 0;
      for (let waited = 0; (await cost()) === 0 && waited < 5_000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        lease = await db.runLease.findFirstOrThrow({ where: { organizationId } });
      }
      const routing = await cost();
      expect(routing).toBeGreaterThan(0);
      expect(await settleLostRun(db, lease.id, RUN_LOST, null)).toBe(true);
      expect(await credits(tenant)).toBe(10_000 - routing);
      expect(await db.execution.findUniqueOrThrow({ where: { id: lease.id } })).toMatchObject({
        status: "failed",
        credits: routing,
      });
      openai.hang(false);
      await running;
      expect(await credits(tenant)).toBe(10_000 - routing);
    } finally {
      openai.hang(false);
    }
  });
});
