// Tokens recorded from every model call, through the REST door: an OpenAI-compatible provider
// (streamed answers, non-streamed grading), Anthropic (streamed), tool-calling rounds summed, the
// built-in model's own estimate, a provider that reports no usage, absurd counts clamped.
import { afterAll, beforeAll, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.MODEL_PROVIDER_MODELS = "tool-model";
  process.env.MODEL_PROVIDER_NAME = "testai";
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
  // The fake Anthropic provider listens on 127.0.0.1.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

import { getDb } from "@/server/db";
import { MAX_REPORTED_TOKENS } from "@/server/runtime/metering";
import { startFakeAnthropic, toolResults, type FakeAnthropic } from "../fake-anthropic";
import { DEFAULT_FAKE_USAGE, startFakeOpenAI, type ChatMessage, type FakeOpenAI, type FakeReply } from "../fake-openai";
import { create, publish } from "../builder-helpers";
import { api, newOrganization, type Tenant } from "../helpers";
import { addClaudeProvider, converse, orderLookupApp, publishedApp } from "../runtime-helpers";

let openai: FakeOpenAI;
let anthropic: FakeAnthropic;

function script(messages: ChatMessage[]): FakeReply {
  const user = messages.filter((m) => m.role === "user").at(-1)!.content;
  if (messages.some((m) => m.role === "tool")) return "The order ships tomorrow.";
  if (user.startsWith("order")) return { toolCalls: [{ name: "flow_Order_lookup", args: { order: "A-42" } }] };
  if (user.includes("expected behaviour")) return '{"passed": true, "reason": "fine"}';
  return "No tools needed.";
}

beforeAll(async () => {
  openai = await startFakeOpenAI(script);
  process.env.MODEL_PROVIDER_BASE_URL = openai.baseURL;
  anthropic = await startFakeAnthropic((messages) =>
    toolResults(messages).length > 0
      ? "Claude says: it ships tomorrow"
      : { toolCalls: [{ name: "flow_Order_lookup", args: { order: "A-42" } }] },
  );
});
afterAll(async () => {
  await openai.close();
  await anthropic.close();
});

/** The organization's latest run, as GET /executions/{id} shows it. */
async function execution(key: string, id?: string) {
  if (!id) {
    const list = await api("GET", "/executions?order=newest&limit=1", { key });
    id = list.body.executions[0].id as string;
  }
  const response = await api("GET", `/executions/${id}`, { key });
  expect(response.status, response.text).toBe(200);
  return response.body.execution;
}

async function toolApp(tenant: Tenant, model = "tool-model") {
  return orderLookupApp(tenant.orgKey.secret, { name: "Tool agent", model }, "Tool app");
}

it("records an OpenAI-compatible answer's tokens, streamed, on the execution and in its trace", async () => {
  openai.reportUsage(DEFAULT_FAKE_USAGE);
  const tenant = await newOrganization();
  const appId = await toolApp(tenant);
  const key = tenant.orgKey.secret;
  const response = await converse(key, appId, { message: "Hello there" });
  expect(response.status).toBe(200);
  // The answer was streamed from the provider, which was asked to report its usage.
  expect(openai.requests.at(-1)!.stream).toBe(true);
  const run = await execution(key, response.body.execution_id as string | undefined);
  expect(run.credits).toBe(1);
  expect(run.usage).toEqual({
    inputTokens: 10,
    outputTokens: 5,
    usageReported: true,
    calls: [
      {
        model: "tool-model",
        provider: "testai",
        inputTokens: 10,
        outputTokens: 5,
        usageReported: true,
        credits: 1,
        outcome: "succeeded",
      },
    ],
  });
  expect(run.trace).toContainEqual(expect.objectContaining({ kind: "agent", inputTokens: 10, outputTokens: 5 }));
});

it("sums the rounds of a tool-calling answer into its call", async () => {
  openai.reportUsage((_request, reply) =>
    typeof reply === "string" ? { input: 200, output: 50 } : { input: 100, output: 20 },
  );
  const tenant = await newOrganization();
  const appId = await toolApp(tenant);
  const response = await converse(tenant.orgKey.secret, appId, { message: "order: where is my parcel?" });
  expect(response.status).toBe(200);
  expect(response.body.reply).toBe("The order ships tomorrow.");
  const run = await execution(tenant.orgKey.secret, response.body.execution_id as string | undefined);
  expect(run.usage).toMatchObject({
    inputTokens: 300,
    outputTokens: 70,
    calls: [{ inputTokens: 300, outputTokens: 70 }],
  });
  openai.reportUsage(DEFAULT_FAKE_USAGE);
});

it("records Anthropic's streamed usage, both rounds of a tool call", async () => {
  anthropic.reportUsage(() => ({ input: 123, output: 45 }));
  const tenant = await newOrganization();
  const appId = await toolApp(tenant, await addClaudeProvider(tenant, anthropic));
  const response = await converse(tenant.orgKey.secret, appId, { message: "order: where is it?" });
  expect(response.status).toBe(200);
  expect(anthropic.requests.at(-1)!.stream).toBe(true);
  const run = await execution(tenant.orgKey.secret, response.body.execution_id as string | undefined);
  expect(run.usage).toMatchObject({
    inputTokens: 246,
    outputTokens: 90,
    usageReported: true,
    calls: [{ model: "claude/claude-test", provider: "claude", inputTokens: 246, outputTokens: 90 }],
  });
});

it("records the non-streamed grading call of a test run beside the streamed answer", async () => {
  openai.reportUsage((request) => (request.stream ? { input: 10, output: 5 } : { input: 40, output: 8 }));
  const tenant = await newOrganization();
  const key = tenant.orgKey.secret;
  const agent = await create(key, "agents", { name: "Graded", model: "tool-model" });
  const response = await api("POST", `/agents/${agent.id}/tests`, {
    key,
    body: { cases: [{ input: "Hello", expectedBehavior: "Says no tools are needed" }] },
  });
  expect(response.status).toBe(200);
  const run = await execution(key, response.body.results[0].executionId);
  expect(run.usage.calls).toEqual([
    expect.objectContaining({ inputTokens: 10, outputTokens: 5, outcome: "succeeded" }),
    expect.objectContaining({ inputTokens: 40, outputTokens: 8, outcome: "succeeded" }),
  ]);
  expect(run.usage).toMatchObject({ inputTokens: 50, outputTokens: 13 });
  openai.reportUsage(DEFAULT_FAKE_USAGE);
});

it("counts the built-in model's tokens by its own estimate, never 0", async () => {
  const world = await publishedApp();
  const response = await converse(world.key, world.appId, { message: "How long do refunds take?" });
  expect(response.status).toBe(200);
  const run = await execution(world.key, response.body.execution_id as string | undefined);
  expect(run.usage.calls.length).toBeGreaterThan(0);
  for (const call of run.usage.calls) {
    expect(call).toMatchObject({ model: "atrium-offline", provider: "builtin", usageReported: true });
    expect(call.inputTokens).toBeGreaterThan(0);
  }
  // The supervisor's routing call, then an extractive answer of the refund policy: its words,
  // about 4 characters a token.
  expect(run.usage.calls).toHaveLength(2);
  expect(run.usage.calls[1].outputTokens).toBe(Math.ceil(response.body.reply.length / 4));
  expect(run.usage.outputTokens).toBe(run.usage.calls[0].outputTokens + run.usage.calls[1].outputTokens);
});

it("says when a provider reports no usage, and counts 0 tokens", async () => {
  openai.reportUsage(() => null);
  const tenant = await newOrganization();
  const appId = await toolApp(tenant);
  const response = await converse(tenant.orgKey.secret, appId, { message: "Hello" });
  expect(response.status).toBe(200);
  const run = await execution(tenant.orgKey.secret, response.body.execution_id as string | undefined);
  expect(run.usage).toMatchObject({
    inputTokens: 0,
    outputTokens: 0,
    usageReported: false,
    calls: [{ usageReported: false, inputTokens: 0, outputTokens: 0 }],
  });
  expect(run.credits).toBe(1);
  openai.reportUsage(DEFAULT_FAKE_USAGE);
});

it("clamps absurd counts (negative, over 10M)", async () => {
  openai.reportUsage(() => ({ input: -7, output: 50_000_000 }));
  const tenant = await newOrganization();
  const appId = await toolApp(tenant);
  const response = await converse(tenant.orgKey.secret, appId, { message: "Hello" });
  expect(response.status).toBe(200);
  const run = await execution(tenant.orgKey.secret, response.body.execution_id as string | undefined);
  expect(run.usage.calls[0]).toMatchObject({ inputTokens: 0, outputTokens: MAX_REPORTED_TOKENS });
  openai.reportUsage(DEFAULT_FAKE_USAGE);
});

it("marks a failed call with its outcome", async () => {
  const tenant = await newOrganization();
  const appId = await toolApp(tenant);
  openai.failWith(500);
  try {
    const response = await converse(tenant.orgKey.secret, appId, { message: "Hello" });
    expect(response.status).toBe(502);
  } finally {
    openai.failWith(null);
  }
  const [row] = await getDb().execution.findMany({ where: { organizationId: tenant.organization.id } });
  expect(row!.credits).toBe(0);
  // Retried once (runtime/fallbacks.ts): both attempts are recorded.
  expect(row!.usage).toMatchObject({
    calls: [
      { model: "tool-model", outcome: "failed", credits: 0 },
      { model: "tool-model", outcome: "failed", credits: 0 },
    ],
  });
});

it("publishes a flow whose LLM node's tokens reach the trace", async () => {
  const tenant = await newOrganization();
  const key = tenant.orgKey.secret;
  const flow = await create(key, "flows", {
    name: "Summarise",
    inputs: [{ key: "text", label: "Text", type: "text", required: true }],
    nodes: [
      { id: "start", type: "trigger_start", data: {} },
      { id: "ask", type: "llm", data: { model: "tool-model", prompt: "Summarise {{inputs.text}}" } },
      { id: "out", type: "output", data: { value: "{{nodes.ask.output}}" } },
    ],
  });
  await publish(key, "flows", flow.id);
  const app = await create(key, "apps", {
    name: "Flow app",
    members: [{ id: flow.id, kind: "flow" }],
    orchestrationMode: "sequential",
  });
  await publish(key, "apps", app.id);
  const response = await converse(key, app.id, { message: "a long text" });
  expect(response.status).toBe(200);
  const run = await execution(key, response.body.execution_id as string | undefined);
  expect(run.trace).toContainEqual(expect.objectContaining({ id: "ask", inputTokens: 10, outputTokens: 5 }));
  expect(run.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });
});
