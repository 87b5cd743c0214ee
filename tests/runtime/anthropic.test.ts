// An organization provider of kind anthropic, against a local fake of the Messages API: an agent
// on its model calls a flow through a tool_use block and answers with the flow's output; a
// provider that fails answers 502 provider_error and charges nothing; the provider's key never
// appears in a response, a trace or a log line.
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from "vitest";

const SECRET = vi.hoisted(() => {
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
  // The fake provider listens on 127.0.0.1.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
  return "sk-ant-upstream-very-secret-value";
});

import * as v1 from "@/app/api/v1/[[...path]]/route";
import { getDb } from "@/server/db";
import { startFakeAnthropic, textOf, toolResults, type AnthropicMessage, type FakeAnthropic } from "../fake-anthropic";
import type { FakeReply } from "../fake-openai";
import { api, newOrganization, type Handler, type Tenant } from "../helpers";
import { addClaudeProvider, credits, orderLookupApp, readEvents } from "../runtime-helpers";

let fake: FakeAnthropic;

function script(messages: AnthropicMessage[]): FakeReply {
  const results = toolResults(messages);
  if (results.length > 0) return `Claude says: ${results.join(" | ")}`;
  const user = textOf(messages.filter((m) => m.role === "user").at(-1)!);
  if (user.startsWith("order")) return { toolCalls: [{ name: "flow_Order_lookup", args: { order: "A-42" } }] };
  return "No tools needed.";
}

// Everything the process writes while a test runs: the logger's lines, stdout, stderr, the console.
const written: string[] = [];
(globalThis as { atriumLogger?: pino.Logger }).atriumLogger = pino(
  { base: { service: "atrium" } },
  new Writable({
    write(chunk, _encoding, done) {
      written.push(String(chunk));
      done();
    },
  }),
);

beforeAll(async () => {
  fake = await startFakeAnthropic(script);
});
afterAll(() => fake.close());
beforeEach(() => {
  written.length = 0;
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, "write").mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0);
  }
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void written.push(args.map(String).join(" ")));
  }
});
afterEach(() => {
  vi.restoreAllMocks();
  expect(written.join("\n")).not.toContain(SECRET);
});

/** The production route, which writes a log line per request. */
const door: Handler = (request) => (v1 as unknown as Record<string, Handler>)[request.method]!(request);

async function anthropicApp(tenant: Tenant) {
  const key = tenant.orgKey.secret;
  const model = await addClaudeProvider(tenant, fake, SECRET);
  return orderLookupApp(key, { name: "Claude agent", model }, "Claude app");
}

function converse(key: string, appId: string, body: Record<string, unknown>) {
  return api("POST", `/apps/${appId}/conversation`, { key, body, handler: door });
}

it("calls a flow through a tool_use block and answers with its output, on the organization's key", async () => {
  const tenant = await newOrganization();
  const appId = await anthropicApp(tenant);
  const before = await credits(tenant);
  const response = await converse(tenant.orgKey.secret, appId, { message: "order: where is my parcel?" });
  expect(response.status).toBe(200);
  expect(response.body.reply).toBe("Claude says: Order A-42 ships tomorrow");
  expect(await credits(tenant)).toBe(before - 1);
  const [first, second] = fake.requests.slice(-2);
  expect(first).toMatchObject({
    model: "claude-test",
    stream: true,
    apiKey: SECRET,
    version: "2023-06-01",
    tools: ["flow_Order_lookup"],
  });
  expect(toolResults(second!.messages)).toEqual(["Order A-42 ships tomorrow"]);
  const execution = await getDb().execution.findFirstOrThrow({
    where: { organizationId: tenant.organization.id },
    orderBy: { createdAt: "desc" },
  });
  expect(execution.trace).toContainEqual(
    expect.objectContaining({
      kind: "tool",
      name: "flow_Order_lookup",
      input: '{"order":"A-42"}',
      output: "Order A-42 ships tomorrow",
    }),
  );
  expect(execution.trace).toContainEqual(expect.objectContaining({ kind: "agent", model: "claude/claude-test" }));
  expect(JSON.stringify(execution.trace)).not.toContain(SECRET);
  // The request was logged, so the check that the key is in no log line looked at something.
  expect(written.some((line) => line.includes('"msg":"request"'))).toBe(true);
});

it("streams the tool call as step events before done", async () => {
  const tenant = await newOrganization();
  const appId = await anthropicApp(tenant);
  const response = await door(
    new Request(`http://localhost/api/v1/apps/${appId}/conversation`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.orgKey.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "order: where is my parcel?", stream: true }),
    }),
  );
  const events = await readEvents(response);
  const toolSteps = events.filter((e) => e.event === "step").map((e) => JSON.parse(e.data) as { kind: string });
  expect(toolSteps.filter((s) => s.kind === "tool")).toEqual([
    { kind: "tool", name: "flow_Order_lookup", status: "started" },
    { kind: "tool", name: "flow_Order_lookup", status: "finished", output: "Order A-42 ships tomorrow" },
  ]);
  expect(events.at(-1)!.event).toBe("done");
  expect(JSON.parse(events.at(-1)!.data).reply).toBe("Claude says: Order A-42 ships tomorrow");
  expect(events.map((e) => e.data).join("\n")).not.toContain(SECRET);
});

it("a failing Anthropic provider answers 502 provider_error, charges nothing and never shows the key", async () => {
  const tenant = await newOrganization();
  const appId = await anthropicApp(tenant);
  const before = await credits(tenant);
  fake.failWith(500);
  try {
    const response = await converse(tenant.orgKey.secret, appId, { message: "order: where is my parcel?" });
    expect(response.status).toBe(502);
    expect(response.body.error.code).toBe("provider_error");
    expect(response.text).not.toContain(SECRET);
  } finally {
    fake.failWith(null);
  }
  expect(await credits(tenant)).toBe(before);
  const execution = await getDb().execution.findFirstOrThrow({
    where: { organizationId: tenant.organization.id },
    orderBy: { createdAt: "desc" },
  });
  expect(execution).toMatchObject({ status: "failed", credits: 0 });
  expect(JSON.stringify(execution)).not.toContain(SECRET);
  // The operator hears of it at warn: the provider's failure and the failed run.
  const warnings = written
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { level: number; event?: string });
  expect(warnings).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ level: 40, event: "provider_failed", organizationId: tenant.organization.id }),
      expect.objectContaining({ level: 40, event: "run_unsuccessful", executionId: execution.id, status: "failed" }),
    ]),
  );
});
