// Fallbacks (the contract's "Pricing: credits that follow cost"): an agent's ordered
// `fallbackModels`; a call failing before any output (429, 5xx) is retried once after the
// provider's Retry-After or 1 s, then the next model answers; every attempt is in `usage.calls`
// with its outcome, and the run is charged once at the price of the model that answered. Through
// the REST door against a stand-in OpenAI-compatible provider answering 429 and 500 on demand.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.MODEL_PROVIDER_MODELS = "tool-model,other-model,third-model,fourth-model";
  process.env.MODEL_PROVIDER_NAME = "testai";
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
});

import { getDb } from "@/server/db";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { create } from "../builder-helpers";
import { api, expectError, newOrganization, signInCookie, trpc, trpcErrorCode, type Tenant } from "../helpers";
import { converse, credits, oneAgentApp } from "../runtime-helpers";

let openai: FakeOpenAI;

beforeAll(async () => {
  openai = await startFakeOpenAI(() => "Answered.");
  process.env.MODEL_PROVIDER_BASE_URL = openai.baseURL;
});
afterAll(() => openai.close());

function agentApp(tenant: Tenant, agent: Record<string, unknown>): Promise<string> {
  return oneAgentApp(
    tenant.orgKey.secret,
    { name: "Answerer", ...agent },
    { name: "Fallback app", orchestrationMode: "sequential" },
  );
}

async function latestUsage(tenant: Tenant) {
  const execution = await getDb().execution.findFirstOrThrow({
    where: { organizationId: tenant.organization.id },
    orderBy: { createdAt: "desc" },
  });
  return {
    credits: execution.credits,
    calls: (execution.usage as { calls: { model: string; outcome: string; credits: number }[] }).calls,
  };
}

describe("fallback models", () => {
  it("retry once after Retry-After, then the next model answers; charged once at its price", async () => {
    const tenant = await newOrganization({ credits: 10_000 });
    const key = tenant.orgKey.secret;
    const appId = await agentApp(tenant, { model: "tool-model", fallbackModels: ["other-model"] });
    // The first model costs far more, with a larger minimum: none of it is charged.
    await api("PUT", "/model-prices/tool-model", {
      key,
      body: { inputCreditsPerMillion: 5_000_000, outputCreditsPerMillion: 5_000_000, minimumCredits: 50 },
    });
    await api("PUT", "/model-prices/other-model", {
      key,
      body: { inputCreditsPerMillion: 1_000_000, outputCreditsPerMillion: 1_000_000, minimumCredits: 1 },
    });
    const before = await credits(tenant);
    const from = openai.requests.length;
    openai.failNext([{ status: 429, retryAfter: "0" }, { status: 500 }]);
    const response = await converse(key, appId, { message: "Hello" });
    expect(response.status, response.text).toBe(200);
    expect(response.body.reply).toContain("Answered.");
    expect(openai.requests.slice(from).map((request) => request.model)).toEqual([
      "tool-model",
      "tool-model",
      "other-model",
    ]);
    // The stand-in's 10 + 5 tokens at 1 credit each, once.
    expect(await credits(tenant)).toBe(before - 15);
    const usage = await latestUsage(tenant);
    expect(usage.credits).toBe(15);
    expect(usage.calls.filter((call) => call.model !== "atrium-offline")).toEqual([
      expect.objectContaining({ model: "tool-model", outcome: "failed", credits: 0 }),
      expect.objectContaining({ model: "tool-model", outcome: "failed", credits: 0 }),
      expect.objectContaining({ model: "other-model", outcome: "succeeded", credits: 15 }),
    ]);
  });

  it("retry a model that failed once (1 s without Retry-After) before falling back", async () => {
    const tenant = await newOrganization();
    const appId = await agentApp(tenant, { model: "tool-model", fallbackModels: ["other-model"] });
    const from = openai.requests.length;
    openai.failNext([{ status: 503 }]);
    const started = Date.now();
    const response = await converse(tenant.orgKey.secret, appId, { message: "Hello" });
    expect(response.status, response.text).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(openai.requests.slice(from).map((request) => request.model)).toEqual(["tool-model", "tool-model"]);
    const usage = await latestUsage(tenant);
    expect(usage.calls.filter((call) => call.model !== "atrium-offline").map((call) => call.outcome)).toEqual([
      "failed",
      "succeeded",
    ]);
  });

  it("fail the run when every model failed, charging nothing", async () => {
    const tenant = await newOrganization();
    const appId = await agentApp(tenant, { model: "tool-model", fallbackModels: ["other-model"] });
    const before = await credits(tenant);
    openai.failNext([
      { status: 500, retryAfter: "0" },
      { status: 500, retryAfter: "0" },
      { status: 500, retryAfter: "0" },
      { status: 500, retryAfter: "0" },
    ]);
    expectError(await converse(tenant.orgKey.secret, appId, { message: "Hello" }), 502, "provider_error");
    expect(await credits(tenant)).toBe(before);
  });

  it("skip a model that failed 5 times in the last minute, going straight to the fallback", async () => {
    const tenant = await newOrganization();
    const appId = await agentApp(tenant, { model: "tool-model", fallbackModels: ["other-model"] });
    const turn = async () => {
      const from = openai.requests.length;
      const response = await converse(tenant.orgKey.secret, appId, { message: "Hello" });
      expect(response.status, response.text).toBe(200);
      return openai.requests.slice(from).map((request) => request.model);
    };
    const down = { status: 503, retryAfter: "0" };
    for (let round = 0; round < 3; round++) {
      openai.failNext([down, down]);
      expect(await turn()).toEqual(["tool-model", "tool-model", "other-model"]);
    }
    // Six failures within the minute: the next turn does not call the dead model at all.
    expect(await turn()).toEqual(["other-model"]);
    // Another organization's runs on the same model are not affected.
    const other = await newOrganization();
    const otherApp = await agentApp(other, { model: "tool-model", fallbackModels: ["other-model"] });
    const from = openai.requests.length;
    expect((await converse(other.orgKey.secret, otherApp, { message: "Hello" })).status).toBe(200);
    expect(openai.requests.slice(from).map((request) => request.model)).toEqual(["tool-model"]);
  });

  it("are at most 3 models from GET /models", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    expectError(
      await api("POST", "/agents", { key, body: { name: "Bad", fallbackModels: ["no-such-model"] } }),
      422,
      "invalid_model",
    );
    expectError(
      await api("POST", "/agents", {
        key,
        body: {
          name: "Too many",
          fallbackModels: ["other-model", "third-model", "fourth-model", "atrium-offline"],
        },
      }),
      400,
      "invalid_request",
    );
    const agent = await create(key, "agents", { name: "Good", fallbackModels: ["other-model"] });
    expect(agent.fallbackModels).toEqual(["other-model"]);
    const patched = await api("PATCH", `/agents/${agent.id}/draft`, {
      key,
      body: { fallbackModels: ["no-such-model"] },
    });
    expectError(patched, 422, "invalid_model");
  });

  it("are picked in the console's agent editor: saved in the order chosen, and shown on the live agent", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const created = await trpc("mutation", "agents.create", { name: "Picked", model: "tool-model" }, { cookie });
    const agentId = created.body.result.data.agent.id as string;
    const patch = (fallbackModels: string[]) =>
      trpc("mutation", "agents.patchDraft", { agentId, fallbackModels }, { cookie });

    // Added one after another, then the last moved up: the draft keeps the order as written.
    expect((await patch(["third-model", "other-model"])).status).toBe(200);
    const reordered = await patch(["other-model", "third-model"]);
    expect(reordered.status, reordered.text).toBe(200);
    expect(reordered.body.result.data.agent.fallbackModels).toEqual(["other-model", "third-model"]);

    // A model the organization does not have is refused, and the draft keeps what it had.
    const refused = await patch(["other-model", "no-such-model"]);
    expect(trpcErrorCode(refused)).toBe("invalid_model");
    expect(trpcErrorCode(await patch(["other-model", "third-model", "fourth-model", "atrium-offline"]))).toBe(
      "invalid_request",
    );
    expect((await trpc("mutation", "agents.publish", { agentId }, { cookie })).status).toBe(200);
    const live = await api("GET", `/agents/${agentId}`, { key: tenant.orgKey.secret });
    expect(live.body.agent.fallbackModels).toEqual(["other-model", "third-model"]);
  });
});
