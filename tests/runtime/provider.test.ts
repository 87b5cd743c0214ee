// The real-provider path end to end: an app whose agent runs on an OpenAI-compatible model
// (a local server speaking the protocol), streamed token by token; an upstream failure is a
// provider_error (502) and charges nothing.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { getDb } from "@/server/db";
import { api, restHandler } from "../helpers";
import { converse, credits, publishedApp, readEvents } from "../runtime-helpers";

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI(() => "Refunds take fourteen days, says the provider.");
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_MODELS = "gpt-test";
});

afterAll(() => fake.close());

it("streams a provider model's tokens as delta events", async () => {
  const app = await publishedApp({ billingModel: "gpt-test" });
  const response = await restHandler()(
    new Request(`http://localhost/api/v1/apps/${app.appId}/conversation`, {
      method: "POST",
      headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "How long do refunds take?", stream: true }),
    }),
  );
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  expect(events.at(-1)!.event).toBe("done");
  const deltas = events.filter((e) => e.event === "delta").map((e) => JSON.parse(e.data).text as string);
  // Tokens that arrive faster than they are stored go out merged (services/runs/run-events.ts);
  // a slow provider's tokens go out one by one (tests/runtime/resume.test.ts).
  expect(deltas.length).toBeGreaterThan(0);
  expect(deltas.join("")).toBe("Refunds take fourteen days, says the provider.");
  const upstream = fake.requests.filter((r) => r.stream);
  expect(upstream.length).toBeGreaterThan(0);
  expect(upstream[0]!.messages[0]!.content).toContain("Refunds are paid within 14 days");
});

it("answers 502 provider_error and charges nothing when the provider fails", async () => {
  const app = await publishedApp({ billingModel: "gpt-test", app: { orchestrationMode: "sequential" } });
  const before = await credits(app.tenant);
  fake.failWith(500);
  try {
    const response = await converse(app.key, app.appId, { message: "How long do refunds take?" });
    expect(response.status).toBe(502);
    expect(response.body.error.code).toBe("provider_error");
    expect(JSON.stringify(response.body)).not.toContain("upstream is down");
  } finally {
    fake.failWith(null);
  }
  expect(await credits(app.tenant)).toBe(before);
  const [execution] = await getDb().execution.findMany({ where: { organizationId: app.tenant.organization.id } });
  expect(execution).toMatchObject({ status: "failed", credits: 0 });
  // Announced once, with the execution as GET /executions/{id} shows it.
  const announced = await getDb().auditEvent.findMany({
    where: { organizationId: app.tenant.organization.id, action: "execution.failed" },
  });
  expect(announced).toHaveLength(1);
  expect(announced[0]).toMatchObject({
    targetId: execution!.id,
    webhookType: "execution.failed",
    actorType: "org_key",
    door: "api",
  });
  const shown = await api("GET", `/executions/${execution!.id}`, { key: app.key });
  expect(announced[0]!.data).toEqual(shown.body.execution ?? shown.body);
});

it("streamed: a provider failure is an error event with provider_error, and nothing is charged", async () => {
  const app = await publishedApp({ billingModel: "gpt-test", app: { orchestrationMode: "sequential" } });
  const before = await credits(app.tenant);
  fake.failWith(503);
  try {
    const response = await restHandler()(
      new Request(`http://localhost/api/v1/apps/${app.appId}/conversation`, {
        method: "POST",
        headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
        body: JSON.stringify({ message: "How long do refunds take?", stream: true }),
      }),
    );
    expect(response.status).toBe(200);
    const events = await readEvents(response);
    expect(events.at(-1)!.event).toBe("error");
    expect(JSON.parse(events.at(-1)!.data).error.code).toBe("provider_error");
  } finally {
    fake.failWith(null);
  }
  expect(await credits(app.tenant)).toBe(before);
});

it("a transaction whose provider fails: 502 provider_error, nothing charged", async () => {
  const app = await publishedApp({
    billingModel: "gpt-test",
    app: { orchestrationMode: "sequential", api: { transactionEnabled: true } },
  });
  const before = await credits(app.tenant);
  fake.failWith(500);
  try {
    const response = await api("POST", `/apps/${app.appId}/transaction`, {
      key: app.key,
      body: { input: { question: "refunds" } },
    });
    expect({ status: response.status, code: response.body.error?.code }).toEqual({
      status: 502,
      code: "provider_error",
    });
  } finally {
    fake.failWith(null);
  }
  expect(await credits(app.tenant)).toBe(before);
});

it("a provider that does not answer in time: provider_error, nothing charged", async () => {
  const { RUN_LIMITS } = await import("@/server/runtime/limits");
  const app = await publishedApp({ billingModel: "gpt-test", app: { orchestrationMode: "sequential" } });
  const before = await credits(app.tenant);
  const saved = RUN_LIMITS.providerCallMs;
  RUN_LIMITS.providerCallMs = 300;
  fake.hang(true);
  try {
    const response = await converse(app.key, app.appId, { message: "How long do refunds take?" });
    expect({ status: response.status, code: response.body.error?.code }).toEqual({
      status: 502,
      code: "provider_error",
    });
  } finally {
    fake.hang(false);
    RUN_LIMITS.providerCallMs = saved;
  }
  expect(await credits(app.tenant)).toBe(before);
});

it("a test case whose provider fails: the case's error says so, the run still answers, nothing charged for that case", async () => {
  const app = await publishedApp({ billingModel: "gpt-test" });
  const before = await credits(app.tenant);
  fake.failWith(500);
  try {
    const response = await api("POST", `/agents/${app.billingAgentId}/tests`, {
      key: app.key,
      body: { cases: [{ input: "How long do refunds take?", expectedBehavior: "14 days" }] },
    });
    expect(response.status).toBe(200);
    expect(response.body.results[0]).toMatchObject({ passed: false, error: expect.stringMatching(/provider/i) });
  } finally {
    fake.failWith(null);
  }
  expect(await credits(app.tenant)).toBe(before);
});
