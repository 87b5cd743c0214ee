// Native tool calling on a provider model (a local OpenAI-compatible server answering with tool
// calls): a flow called with arguments and its output used, a knowledge search, a failing tool
// reported to the model, the step bound, a hanging tool's time bound, and the stream's `step`
// events in order before `done`.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it, vi } from "vitest";

const localPages = vi.hoisted(() => {
  process.env.MODEL_PROVIDER_MODELS = "tool-model";
  process.env.MODEL_PROVIDER_NAME = "testai";
  return { allow: [] as string[] };
});

// The page webScrape reads is served on 127.0.0.1 by this file: allow-listed by host and port, as
// the fetcher's own tests do (webScrape is public-only whatever ALLOW_PRIVATE_INTEGRATION_URLS says).
vi.mock("@/server/integration-urls", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/server/integration-urls")>();
  const fetchPolicy: typeof actual.fetchPolicy = (purpose, limits = {}) =>
    actual.fetchPolicy(purpose, { ...limits, allow: localPages.allow });
  return { ...actual, fetchPolicy };
});

import { RUN_LIMITS } from "@/server/runtime/limits";
import { boundedTool, type ToolRunContext } from "@/server/runtime/agent-tools";
import { getDb } from "@/server/db";
import { startFakeOpenAI, type ChatMessage, type FakeOpenAI, type FakeReply } from "../fake-openai";
import { create, publish } from "../builder-helpers";
import { newOrganization, restHandler, type Tenant } from "../helpers";
import { newKnowledgebase, newPage } from "../knowledge-helpers";
import { converse, orderLookupApp, readEvents } from "../runtime-helpers";

let fake: FakeOpenAI;

function lastToolResult(messages: ChatMessage[]): string | undefined {
  return messages.filter((m) => m.role === "tool").at(-1)?.content;
}

function script(messages: ChatMessage[], request: { tool_choice?: unknown }): FakeReply {
  const user = messages.filter((m) => m.role === "user").at(-1)!.content;
  const result = lastToolResult(messages);
  if (result !== undefined && !user.startsWith("loop")) return `Tool said: ${result}`;
  if (user.startsWith("flow")) return { toolCalls: [{ name: "flow_Order_lookup", args: { order: "A-42" } }] };
  if (user.startsWith("broken")) return { toolCalls: [{ name: "flow_Order_lookup", args: {} }] };
  if (user.startsWith("scrape "))
    return { toolCalls: [{ name: "web_scrape", args: { url: user.slice("scrape ".length) } }] };
  if (user.startsWith("search")) return { toolCalls: [{ name: "search_knowledge", args: { query: "refunds" } }] };
  if (user.startsWith("loop"))
    return request.tool_choice === "none"
      ? "I stop here."
      : { toolCalls: [{ name: "search_knowledge", args: { query: "refunds" } }] };
  return "No tools needed.";
}

beforeAll(async () => {
  fake = await startFakeOpenAI(script);
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
});
afterAll(() => fake.close());

async function toolApp(tenant: Tenant) {
  const key = tenant.orgKey.secret;
  const kb = await newKnowledgebase(tenant);
  await newPage(key, kb, { title: "Refund policy", markdown: "Refunds are paid within 14 days of the request." });
  return orderLookupApp(
    key,
    { name: "Tool agent", model: "tool-model", knowledge: [{ knowledgebaseId: kb }] },
    "Tool app",
  );
}

async function executionTrace(tenant: Tenant) {
  const [execution] = await getDb().execution.findMany({
    where: { organizationId: tenant.organization.id },
    orderBy: { createdAt: "desc" },
    take: 1,
  });
  return execution!.trace as { kind: string; name: string; input?: string; output: string; note?: string }[];
}

it("calls an attached flow with the model's arguments and answers with its output; the trace records the call", async () => {
  const tenant = await newOrganization();
  const appId = await toolApp(tenant);
  const response = await converse(tenant.orgKey.secret, appId, { message: "flow: where is my order?" });
  expect(response.status).toBe(200);
  expect(response.body.reply).toBe("Tool said: Order A-42 ships tomorrow");
  const offered = fake.requests.find((r) => r.messages.some((m) => m.content === "flow: where is my order?"))!;
  expect(offered.tools.sort()).toEqual(["flow_Order_lookup", "read_page", "search_knowledge"]);
  const trace = await executionTrace(tenant);
  expect(trace).toContainEqual(
    expect.objectContaining({
      kind: "tool",
      name: "flow_Order_lookup",
      input: '{"order":"A-42"}',
      output: "Order A-42 ships tomorrow",
    }),
  );
});

it("searches the agent's knowledge through search_knowledge, with the providers the run read with its app", async () => {
  const tenant = await newOrganization();
  const appId = await toolApp(tenant);
  const query = vi.spyOn(getDb().pool, "query");
  try {
    const response = await converse(tenant.orgKey.secret, appId, { message: "search: refunds?" });
    expect(response.status).toBe(200);
    expect(response.body.reply).toContain("Refunds are paid within 14 days");
    const statements = query.mock.calls.map(([config]) => (config as { name?: string }).name);
    expect(statements).toContain("atrium_retrieve_small");
    expect(statements).not.toContain("atrium_model_providers");
  } finally {
    query.mockRestore();
  }
});

it("reports a failing tool to the model, and the run carries on", async () => {
  const tenant = await newOrganization();
  const appId = await toolApp(tenant);
  const response = await converse(tenant.orgKey.secret, appId, { message: "broken: look it up" });
  expect(response.status).toBe(200);
  expect(response.body.reply).toMatch(/^Tool said: The tool failed: .*order/);
  const trace = await executionTrace(tenant);
  expect(trace).toContainEqual(expect.objectContaining({ kind: "tool", note: "the tool failed; the model was told" }));
});

it("bounds the tool loop: the last model call may not ask for tools", async () => {
  const tenant = await newOrganization();
  const appId = await toolApp(tenant);
  const before = fake.requests.length;
  const response = await converse(tenant.orgKey.secret, appId, { message: "loop forever" });
  expect(response.status).toBe(200);
  expect(response.body.reply).toBe("I stop here.");
  const calls = fake.requests.slice(before);
  expect(calls).toHaveLength(RUN_LIMITS.toolSteps);
  expect(calls.at(-1)!.toolChoice).toBe("none");
  expect((await executionTrace(tenant)).filter((e) => e.kind === "tool")).toHaveLength(RUN_LIMITS.toolSteps - 1);
});

it("streams step events for each tool call, started then finished, before done", async () => {
  const tenant = await newOrganization();
  const appId = await toolApp(tenant);
  const response = await restHandler()(
    new Request(`http://localhost/api/v1/apps/${appId}/conversation`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.orgKey.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "flow: where is my order?", stream: true }),
    }),
  );
  const events = await readEvents(response);
  const steps = events.filter((e) => e.event === "step").map((e) => JSON.parse(e.data));
  const toolSteps = steps.filter((s) => s.kind === "tool");
  expect(toolSteps).toEqual([
    { kind: "tool", name: "flow_Order_lookup", status: "started" },
    { kind: "tool", name: "flow_Order_lookup", status: "finished", output: "Order A-42 ships tomorrow" },
  ]);
  expect(events.at(-1)!.event).toBe("done");
  expect(events.findIndex((e) => e.event === "step")).toBeLessThan(events.findIndex((e) => e.event === "done"));
});

it("a tool that hangs is cut off at its time bound and reported as failed", async () => {
  const saved = RUN_LIMITS.toolCallMs;
  RUN_LIMITS.toolCallMs = 50;
  try {
    const trace: unknown[] = [];
    const steps: unknown[] = [];
    const ctx: ToolRunContext = { db: getDb(), organizationId: "x", trace, onStep: (step) => steps.push(step) };
    const hanging = boundedTool(
      ctx,
      { name: "slow", description: "", parameters: {}, run: () => new Promise<string>(() => undefined) },
      () => undefined,
    );
    const result = await hanging.run({}, new AbortController().signal);
    expect(result).toContain("did not answer within");
    expect(steps.at(-1)).toMatchObject({ kind: "tool", name: "slow", status: "failed" });
  } finally {
    RUN_LIMITS.toolCallMs = saved;
  }
});

it("webScrape reads a page through the fetcher and extractor when the agent enables it", async () => {
  const page = http.createServer((_req, res) =>
    res
      .writeHead(200, { "content-type": "text/html" })
      .end("<html><head><title>Opening hours</title></head><body><p>We open at nine every weekday.</p></body></html>"),
  );
  await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
  try {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const agent = await create(key, "agents", { name: "Scraper", model: "tool-model", builtIns: { webScrape: true } });
    await publish(key, "agents", agent.id);
    const app = await create(key, "apps", {
      name: "Scrape app",
      members: [{ id: agent.id, kind: "agent" }],
      orchestrationMode: "sequential",
    });
    await publish(key, "apps", app.id);
    const host = `127.0.0.1:${(page.address() as AddressInfo).port}`;
    localPages.allow = [host];
    const url = `http://${host}/hours`;
    const response = await converse(key, app.id, { message: `scrape ${url}` });
    expect(response.status).toBe(200);
    expect(response.body.reply).toContain("We open at nine every weekday.");
  } finally {
    await new Promise((resolve) => page.close(resolve));
  }
});
