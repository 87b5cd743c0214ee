// What a failed run costs is one policy (src/server/runtime/billed-run.ts) at every door. A
// provider failure after a member had answered is billed alike for a conversation turn, a
// transaction and a test case (the turn and the transaction once gave it back); one before
// anything ran is given back (tests/runtime/provider.test.ts), a run stopped by its bounds is
// billed (tests/security/run-bounds.test.ts), a canceled one too (tests/runtime/resume.test.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { AppError } from "@/server/errors";
import { failureIsBilled } from "@/server/runtime/billed-run";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { api, newOrganization, type Tenant } from "../helpers";
import { create, publish } from "../builder-helpers";
import { converse, credits } from "../runtime-helpers";

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI(() => "Refunds take fourteen days, says the provider.");
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_MODELS = "gpt-test";
});

afterAll(() => fake.close());

/** A sequential app whose first member answers on the built-in model and whose second calls the provider. */
async function answerThenProvider(): Promise<{ tenant: Tenant; key: string; appId: string }> {
  const tenant = await newOrganization();
  const key = tenant.orgKey.secret;
  const first = await create(key, "agents", { name: "Greeter", description: "Says hello" });
  const second = await create(key, "agents", {
    name: "Billing agent",
    description: "Invoices and refunds",
    model: "gpt-test",
  });
  await publish(key, "agents", first.id);
  await publish(key, "agents", second.id);
  const app = await create(key, "apps", {
    name: "Helpdesk",
    members: [
      { id: first.id, kind: "agent" },
      { id: second.id, kind: "agent" },
    ],
    orchestrationMode: "sequential",
    api: { transactionEnabled: true },
  });
  await publish(key, "apps", app.id);
  return { tenant, key, appId: app.id };
}

async function lastExecution(tenant: Tenant) {
  return getDb().execution.findFirstOrThrow({
    where: { organizationId: tenant.organization.id },
    orderBy: { createdAt: "desc" },
  });
}

async function whileProviderFails<T>(run: () => Promise<T>): Promise<T> {
  fake.failWith(500);
  try {
    return await run();
  } finally {
    fake.failWith(null);
  }
}

describe("a provider failure after a member answered is billed at every door", () => {
  it("a conversation turn: 502 provider_error, 1 credit taken, the execution failed with 1 credit", async () => {
    const app = await answerThenProvider();
    const before = await credits(app.tenant);
    const response = await whileProviderFails(() =>
      converse(app.key, app.appId, { message: "How long do refunds take?" }),
    );
    expect({ status: response.status, code: response.body.error?.code }).toEqual({
      status: 502,
      code: "provider_error",
    });
    expect(await credits(app.tenant)).toBe(before - 1);
    expect(await lastExecution(app.tenant)).toMatchObject({ kind: "conversation", status: "failed", credits: 1 });
  });

  it("a transaction: the same answer and the same charge", async () => {
    const app = await answerThenProvider();
    const before = await credits(app.tenant);
    const response = await whileProviderFails(() =>
      api("POST", `/apps/${app.appId}/transaction`, { key: app.key, body: { input: { question: "refunds" } } }),
    );
    expect({ status: response.status, code: response.body.error?.code }).toEqual({
      status: 502,
      code: "provider_error",
    });
    expect(await credits(app.tenant)).toBe(before - 1);
    expect(await lastExecution(app.tenant)).toMatchObject({ kind: "transaction", status: "failed", credits: 1 });
  });

  it("a test case: the case's error says so, and the case is billed", async () => {
    const app = await answerThenProvider();
    const before = await credits(app.tenant);
    const response = await whileProviderFails(() =>
      api("POST", `/apps/${app.appId}/tests`, {
        key: app.key,
        body: { cases: [{ input: "How long do refunds take?", expectedBehavior: "14 days" }] },
      }),
    );
    expect(response.status).toBe(200);
    expect(response.body.results[0]).toMatchObject({ passed: false, error: expect.stringMatching(/provider/i) });
    expect(await credits(app.tenant)).toBe(before - 1);
    expect(await lastExecution(app.tenant)).toMatchObject({ kind: "test", status: "failed", credits: 1 });
  });
});

describe("the policy", () => {
  const produced = { canceled: false, produced: true };
  const nothing = { canceled: false, produced: false };

  it("bills what ran: bounds, a cancel, a provider failure after something was produced", () => {
    expect(failureIsBilled(new AppError("run_limit_exceeded", "steps"), nothing)).toBe(true);
    expect(failureIsBilled(new AppError("canceled", "canceled"), { canceled: true, produced: false })).toBe(true);
    expect(failureIsBilled(new AppError("provider_error", "down"), produced)).toBe(true);
  });

  it("gives back the rest: a provider failure before anything was produced, a failure on our side, anything else", () => {
    expect(failureIsBilled(new AppError("provider_error", "down"), nothing)).toBe(false);
    expect(failureIsBilled(new AppError("server_error", "oops"), produced)).toBe(false);
    expect(failureIsBilled(new AppError("not_found", "gone"), produced)).toBe(false);
  });
});
