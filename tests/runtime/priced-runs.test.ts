// Prices per model (GET/PUT/DELETE /model-prices) and what runs are charged for them, through the
// REST door against a stand-in OpenAI-compatible provider: exact charges for priced, unpriced and
// mixed runs, tool-calling rounds summed, the same integer from the balance and the end user's
// pool, the minimum checked before anything runs, and the prices' own bounds, scopes and audit.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.MODEL_PROVIDER_MODELS = "tool-model";
  process.env.MODEL_PROVIDER_NAME = "testai";
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

import { randomUUID } from "node:crypto";
import { getDb } from "@/server/db";
import { RUN_LOST, settleLostRun } from "@/server/runtime/run-leases";
import { chargeRunCredit } from "@/server/services/provisioning/credits";
import { settleRunCharge } from "@/server/services/provisioning/credit-settlement";
import { createModelProvider } from "@/server/services/org/model-providers";
import { DEFAULT_FAKE_USAGE, startFakeOpenAI, type ChatMessage, type FakeOpenAI, type FakeReply } from "../fake-openai";
import { create, publish } from "../builder-helpers";
import { addPerson, api, expectError, issueKey, newOrganization, type Tenant } from "../helpers";
import { portalScenario } from "../portal/helpers";
import { converse, credits, orderLookupApp, publishedApp } from "../runtime-helpers";

let openai: FakeOpenAI;

function script(messages: ChatMessage[]): FakeReply {
  const user = messages.filter((m) => m.role === "user").at(-1)!.content;
  if (messages.some((m) => m.role === "tool")) return "The order ships tomorrow.";
  if (user.startsWith("order")) return { toolCalls: [{ name: "flow_Order_lookup", args: { order: "A-42" } }] };
  return "No tools needed.";
}

beforeAll(async () => {
  openai = await startFakeOpenAI(script);
  process.env.MODEL_PROVIDER_BASE_URL = openai.baseURL;
});
afterAll(() => openai.close());

/** 0.3 credits an input token, 0.6 an output token: the stand-in's 10 + 5 tokens cost 6 credits. */
const PRICE = { inputCreditsPerMillion: 300_000, outputCreditsPerMillion: 600_000, minimumCredits: 2 };

function setPrice(key: string, modelId: string, body: Record<string, unknown> = PRICE) {
  return api("PUT", `/model-prices/${encodeURIComponent(modelId)}`, { key, body });
}

async function latestExecution(tenant: Tenant) {
  return getDb().execution.findFirstOrThrow({
    where: { organizationId: tenant.organization.id },
    orderBy: { createdAt: "desc" },
  });
}

async function toolApp(tenant: Tenant) {
  return orderLookupApp(tenant.orgKey.secret, { name: "Tool agent", model: "tool-model" }, "Tool app");
}

describe("/model-prices", () => {
  it("sets, lists and removes a model's price, recording each change", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    expect((await api("GET", "/model-prices", { key })).body).toEqual({ modelPrices: [] });
    const set = await setPrice(key, "tool-model", { inputCreditsPerMillion: 5, outputCreditsPerMillion: 7 });
    expect(set.status).toBe(200);
    expect(set.body.modelPrice).toMatchObject({
      modelId: "tool-model",
      inputCreditsPerMillion: 5,
      outputCreditsPerMillion: 7,
      minimumCredits: 1,
    });
    expect((await setPrice(key, "tool-model")).body.modelPrice).toMatchObject(PRICE);
    expect((await setPrice(key, "atrium-offline")).status).toBe(200);
    const list = await api("GET", "/model-prices", { key });
    expect(list.body.modelPrices.map((price: { modelId: string }) => price.modelId)).toEqual([
      "atrium-offline",
      "tool-model",
    ]);
    const removed = await api("DELETE", "/model-prices/tool-model", { key });
    expect(removed.status).toBe(204);
    expect(removed.text).toBe("");
    expectError(await api("DELETE", "/model-prices/tool-model", { key }), 404, "not_found");
    const events = await getDb().auditEvent.findMany({
      where: { organizationId: tenant.organization.id, targetType: "model_price" },
      orderBy: { occurredAt: "asc" },
    });
    expect(events.map((event) => [event.action, event.targetId])).toEqual([
      ["model_price.create", "tool-model"],
      ["model_price.update", "tool-model"],
      ["model_price.create", "atrium-offline"],
      ["model_price.delete", "tool-model"],
    ]);
    expect(events[1]!.changes).toMatchObject({ inputCreditsPerMillion: [5, 300_000], minimumCredits: [1, 2] });
  });

  it("prices an organization provider's model by its URL-encoded id", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    await createModelProvider(getDb(), tenant.operator, {
      slug: "acme",
      kind: "openai-compatible",
      name: "Acme",
      baseUrl: openai.baseURL,
      models: [{ id: "gpt-test", kind: "chat" }],
    });
    const set = await setPrice(key, "acme/gpt-test");
    expect(set.status, set.text).toBe(200);
    expect(set.body.modelPrice.modelId).toBe("acme/gpt-test");
  });

  it("refuses unknown models and out-of-bounds prices, writing nothing", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    expectError(await setPrice(key, "no-such-model"), 422, "invalid_model");
    for (const body of [
      { ...PRICE, inputCreditsPerMillion: -1 },
      { ...PRICE, outputCreditsPerMillion: 1_000_000_001 },
      { ...PRICE, minimumCredits: 1.5 },
      { inputCreditsPerMillion: 1 },
      { ...PRICE, currency: "usd" },
    ])
      expectError(await setPrice(key, "tool-model", body), 400, "invalid_request");
    expect(await getDb().modelPrice.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
    expect(
      await getDb().auditEvent.count({ where: { organizationId: tenant.organization.id, targetType: "model_price" } }),
    ).toBe(0);
    expect((await setPrice(key, "tool-model", { ...PRICE, inputCreditsPerMillion: 1_000_000_000 })).status).toBe(200);
  });

  it("needs the tier plans' scopes, and an admin behind a personal key", async () => {
    const tenant = await newOrganization();
    const reader = await issueKey(tenant.operator, { kind: "organization", scopes: ["end_users:read"] });
    expect((await api("GET", "/model-prices", { key: reader.secret })).status).toBe(200);
    expectError(await setPrice(reader.secret, "tool-model"), 403, "insufficient_scope");
    const apps = await issueKey(tenant.operator, { kind: "organization", scopes: ["apps:read"] });
    expectError(await api("GET", "/model-prices", { key: apps.secret }), 403, "insufficient_scope");
    const member = await addPerson(tenant.operator, "member");
    const personal = await issueKey(tenant.operator, { kind: "personal", memberId: member.member.id });
    expectError(await setPrice(personal.secret, "tool-model"), 403, "forbidden_role");
    expectError(await api("GET", "/model-prices", { key: personal.secret }), 403, "forbidden_role");
    expect((await setPrice(tenant.personalKey.secret, "tool-model")).status).toBe(200);
    expect(await getDb().modelPrice.count({ where: { organizationId: tenant.organization.id } })).toBe(1);
  });

  it("keeps each organization's prices to itself", async () => {
    const mine = await newOrganization();
    const theirs = await newOrganization();
    await setPrice(mine.orgKey.secret, "tool-model");
    expect((await api("GET", "/model-prices", { key: theirs.orgKey.secret })).body.modelPrices).toEqual([]);
    expectError(await api("DELETE", "/model-prices/tool-model", { key: theirs.orgKey.secret }), 404, "not_found");
  });
});

describe("a run's charge", () => {
  it("costs 1 credit on unpriced models, whatever their tokens", async () => {
    openai.reportUsage(() => ({ input: 90_000, output: 90_000 }));
    const tenant = await newOrganization();
    const appId = await toolApp(tenant);
    const before = await credits(tenant);
    expect((await converse(tenant.orgKey.secret, appId, { message: "Hello" })).status).toBe(200);
    expect(await credits(tenant)).toBe(before - 1);
    expect((await latestExecution(tenant)).credits).toBe(1);
    openai.reportUsage(DEFAULT_FAKE_USAGE);
  });

  it("costs its metered tokens on a priced model, and its minimum when they cost less", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const appId = await toolApp(tenant);
    await setPrice(key, "tool-model");
    let before = await credits(tenant);
    expect((await converse(key, appId, { message: "Hello" })).status).toBe(200);
    // 10 × 0.3 + 5 × 0.6 = 6.
    expect(await credits(tenant)).toBe(before - 6);
    const execution = await latestExecution(tenant);
    expect(execution.credits).toBe(6);
    expect(execution.usage).toMatchObject({ calls: [{ model: "tool-model", credits: 6 }] });

    openai.reportUsage(() => ({ input: 1, output: 1 }));
    before = await credits(tenant);
    expect((await converse(key, appId, { message: "Hello" })).status).toBe(200);
    expect(await credits(tenant)).toBe(before - 2);
    openai.reportUsage(DEFAULT_FAKE_USAGE);
  });

  it("sums a tool-calling answer's rounds", async () => {
    openai.reportUsage((_request, reply) =>
      typeof reply === "string" ? { input: 200, output: 50 } : { input: 100, output: 20 },
    );
    // Each round reserves its ceiling (1,024 output tokens at 0.6) before it is made.
    const tenant = await newOrganization({ credits: 5_000 });
    const appId = await toolApp(tenant);
    await setPrice(tenant.orgKey.secret, "tool-model");
    const before = await credits(tenant);
    const response = await converse(tenant.orgKey.secret, appId, { message: "order: where is it?" });
    expect(response.body.reply).toBe("The order ships tomorrow.");
    // (100 + 200) × 0.3 + (20 + 50) × 0.6 = 90 + 42.
    expect(await credits(tenant)).toBe(before - 132);
    openai.reportUsage(DEFAULT_FAKE_USAGE);
  });

  it("adds nothing for unpriced calls in a priced run (a mixed app)", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const priced = await create(key, "agents", { name: "Priced", model: "tool-model" });
    const offline = await create(key, "agents", { name: "Offline" });
    await publish(key, "agents", priced.id);
    await publish(key, "agents", offline.id);
    const app = await create(key, "apps", {
      name: "Mixed",
      members: [
        { id: priced.id, kind: "agent" },
        { id: offline.id, kind: "agent" },
      ],
      orchestrationMode: "sequential",
    });
    await publish(key, "apps", app.id);
    await setPrice(key, "tool-model");
    const before = await credits(tenant);
    expect((await converse(key, app.id, { message: "Hello" })).status).toBe(200);
    expect(await credits(tenant)).toBe(before - 6);
    const execution = await latestExecution(tenant);
    const calls = (execution.usage as { calls: { model: string; credits: number }[] }).calls;
    // The two members, then the built-in supervisor combining their replies.
    expect(calls.map((call) => [call.model, call.credits])).toEqual([
      ["tool-model", 6],
      ["atrium-offline", 0],
      ["atrium-offline", 0],
    ]);

    // The built-in model priced too: its estimated tokens count, and the larger minimum.
    await setPrice(key, "atrium-offline", { inputCreditsPerMillion: 0, outputCreditsPerMillion: 0, minimumCredits: 9 });
    const again = await credits(tenant);
    expect((await converse(key, app.id, { message: "Hello" })).status).toBe(200);
    expect(await credits(tenant)).toBe(again - 9);
  });

  it("gives back the minimum taken before the run when the priced model was not called", async () => {
    // The billing agent is priced (minimum 50); the question goes to the unpriced support agent.
    const world = await publishedApp({ billingModel: "tool-model" });
    await setPrice(world.key, "tool-model", { ...PRICE, minimumCredits: 50 });
    const before = await credits(world.tenant);
    const calls = openai.requests.length;
    const response = await converse(world.key, world.appId, { message: "The app shows an error during an outage" });
    expect(response.status).toBe(200);
    expect(openai.requests.length).toBe(calls);
    expect(await credits(world.tenant)).toBe(before - 1);
    expect((await latestExecution(world.tenant)).credits).toBe(1);
  });

  it("takes the same integer from the end user's pool and the balance", async () => {
    // The pool holds the call's ceiling (about 620 credits), reserved before it is made.
    const world = await portalScenario({ credits: 1_000, billingModel: "tool-model" });
    await setPrice(world.key, "tool-model");
    const before = await credits(world.tenant);
    const response = await converse(world.key, world.appId, {
      message: "How long do refunds take?",
      endUserId: world.endUser.id,
      portalId: world.portal.id,
    });
    expect(response.status).toBe(200);
    expect(await credits(world.tenant)).toBe(before - 6);
    const pool = await getDb().subscription.findFirstOrThrow({ where: { endUserId: world.endUser.id } });
    expect(pool.creditsUsed).toBe(6);
  });

  it("refuses before running when the pool or the balance is below the run's minimum, charging nothing", async () => {
    const world = await portalScenario({ credits: 4, billingModel: "tool-model" });
    await setPrice(world.key, "tool-model", { ...PRICE, minimumCredits: 5 });
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

    const poor = await newOrganization({ credits: 4 });
    const appId = await toolApp(poor);
    await setPrice(poor.orgKey.secret, "tool-model", { ...PRICE, minimumCredits: 5 });
    expectError(await converse(poor.orgKey.secret, appId, { message: "Hello" }), 402, "insufficient_credits");
    expect(await credits(poor)).toBe(4);
  });

  it("gives back everything when the provider fails before producing anything", async () => {
    const tenant = await newOrganization();
    const appId = await toolApp(tenant);
    await setPrice(tenant.orgKey.secret, "tool-model", { ...PRICE, minimumCredits: 5 });
    const before = await credits(tenant);
    openai.failWith(500);
    try {
      expectError(await converse(tenant.orgKey.secret, appId, { message: "Hello" }), 502, "provider_error");
    } finally {
      openai.failWith(null);
    }
    expect(await credits(tenant)).toBe(before);
  });

  it("prices a test case by the models it calls, its grading included", async () => {
    openai.reportUsage((request) => (request.stream ? { input: 10, output: 5 } : { input: 20, output: 0 }));
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const agent = await create(key, "agents", { name: "Graded", model: "tool-model" });
    await setPrice(key, "tool-model");
    const before = await credits(tenant);
    const response = await api("POST", `/agents/${agent.id}/tests`, {
      key,
      body: { cases: [{ input: "Hello", expectedBehavior: "Says no tools are needed" }] },
    });
    expect(response.status).toBe(200);
    // Answer 6, grading 20 × 0.3 = 6.
    expect(await credits(tenant)).toBe(before - 12);
    openai.reportUsage(DEFAULT_FAKE_USAGE);
  });
});

describe("a priced run's lease", () => {
  it("records what its settlement took or gave back, so a run lost after it is given back exactly its charge", async () => {
    const world = await portalScenario({ credits: 20 });
    const db = getDb();
    const organizationId = world.tenant.organization.id;
    const before = await credits(world.tenant);
    const pool = async () =>
      (await db.subscription.findFirstOrThrow({ where: { endUserId: world.endUser.id } })).creditsUsed;
    const leased = async () => (await db.runLease.findUniqueOrThrow({ where: { id } })).charge;
    const id = randomUUID();
    const execution = {
      id,
      kind: "conversation" as const,
      itemId: world.appId,
      itemKind: "app" as const,
      versionId: null,
      conversationId: null,
      input: "How long do refunds take?",
      endUserId: world.endUser.id,
      portalId: world.portal.id,
      actor: "test",
    };
    const charge = await chargeRunCredit(db, organizationId, world.endUser.id, 3, undefined, { id, execution });
    expect(await leased()).toMatchObject({ kind: "end_user", amount: 3 });

    // It cost more: the extra is taken, and the lease says so in the same statement.
    const more = await settleRunCharge(db, charge, 7, id);
    expect(more).toMatchObject({ amount: 7 });
    expect(await leased()).toMatchObject({ amount: 7 });
    expect(await credits(world.tenant)).toBe(before - 7);
    expect(await pool()).toBe(7);
    // Then less: the difference is given back, and the lease says so.
    const less = await settleRunCharge(db, more!, 5, id);
    expect(less).toMatchObject({ amount: 5 });
    expect(await leased()).toMatchObject({ amount: 5 });
    expect(await credits(world.tenant)).toBe(before - 5);

    // Lost now (before its execution is recorded): given back exactly the 5 it was charged.
    expect(await settleLostRun(db, id, RUN_LOST, null)).toBe(true);
    expect(await credits(world.tenant)).toBe(before);
    expect(await pool()).toBe(0);
    // A settlement arriving after that takes and gives nothing.
    expect(await settleRunCharge(db, less!, 9, id)).toBeNull();
    expect(await settleRunCharge(db, less!, 1, id)).toBeNull();
    expect(await credits(world.tenant)).toBe(before);
    expect(await pool()).toBe(0);
  });
});
