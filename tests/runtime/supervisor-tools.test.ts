// A `supervisor` app whose adviser is on a provider model routes by tool call (a local
// OpenAI-compatible server answering with calls that name members): each member is a tool, runs
// at the version pinned when the app was published, is a `member` step in the stream and an entry
// in the trace, and the adviser's final text is the reply. The offline adviser keeps routing by words.
import { afterAll, beforeAll, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.MODEL_PROVIDER_MODELS = "adviser-model";
  process.env.MODEL_PROVIDER_NAME = "testai";
});

import { getDb } from "@/server/db";
import { startFakeOpenAI, type ChatMessage, type ChatRequest, type FakeOpenAI, type FakeReply } from "../fake-openai";
import { create, patchDraft, publish } from "../builder-helpers";
import { newOrganization, restHandler, type Tenant } from "../helpers";
import { newKnowledgebase, newPage } from "../knowledge-helpers";
import { converse, readEvents } from "../runtime-helpers";

let fake: FakeOpenAI;
/** The tools each adviser request offered, with their parameters. */
const offered: NonNullable<ChatRequest["tools"]>[] = [];

function script(messages: ChatMessage[], request: ChatRequest): FakeReply {
  offered.push(request.tools ?? []);
  const user = messages.filter((m) => m.role === "user").at(-1)!.content;
  const results = messages.filter((m) => m.role === "tool").map((m) => m.content);
  if (results.length > 0) return `Adviser says: ${results.join(" | ")}`;
  if (user.startsWith("order")) return { toolCalls: [{ name: "flow_Order_status", args: { order: "A-42" } }] };
  if (user.startsWith("broken")) return { toolCalls: [{ name: "flow_Order_status", args: {} }] };
  if (user.startsWith("refund"))
    return { toolCalls: [{ name: "ask_Billing_agent", args: { message: "How long do refunds take?" } }] };
  if (user.startsWith("both")) {
    return {
      toolCalls: [
        { name: "flow_Order_status", args: { order: "B-7" } },
        { name: "ask_Billing_agent", args: { message: "How long do refunds take?" } },
      ],
    };
  }
  return "I can answer that myself.";
}

beforeAll(async () => {
  fake = await startFakeOpenAI(script);
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
});
afterAll(() => fake.close());

async function supervisedApp(tenant: Tenant, adviserModel = "adviser-model") {
  const key = tenant.orgKey.secret;
  const kb = await newKnowledgebase(tenant);
  await newPage(key, kb, { title: "Refund policy", markdown: "Refunds are paid within 14 days of the request." });
  const billing = await create(key, "agents", {
    name: "Billing agent",
    description: "Invoices, refunds and payments",
    knowledge: [{ knowledgebaseId: kb }],
  });
  const billingVersion = (await publish(key, "agents", billing.id)).version.id as string;
  const flow = await create(key, "flows", {
    name: "Order status",
    description: "The shipping status of an order, by its number",
    inputs: [{ key: "order", label: "Order number", type: "text", required: true }],
    nodes: [
      { id: "start", type: "trigger_start", data: {} },
      { id: "out", type: "output", data: { value: "Pinned: order {{inputs.order}} ships tomorrow" } },
    ],
  });
  const flowVersion = (await publish(key, "flows", flow.id)).version.id as string;
  const adviser = await create(key, "agents", { name: "Lead", model: adviserModel });
  await publish(key, "agents", adviser.id);
  const app = await create(key, "apps", {
    name: "Front desk",
    orchestrationMode: "supervisor",
    adviser: { id: adviser.id },
    members: [
      { id: billing.id, kind: "agent" },
      { id: flow.id, kind: "flow" },
    ],
  });
  await publish(key, "apps", app.id);
  // A later draft, published too, is not what the app pinned.
  const later = [
    { id: "start", type: "trigger_start", data: {} },
    { id: "out", type: "output", data: { value: "Later version: order {{inputs.order}}" } },
  ];
  expect((await patchDraft(key, "flows", flow.id, { nodes: later })).status).toBe(200);
  await publish(key, "flows", flow.id);
  await patchDraft(key, "flows", flow.id, {
    nodes: [later[0], { ...later[1], data: { value: "Draft: {{inputs.order}}" } }],
  });
  return { appId: app.id as string, billingVersion, flowVersion };
}

async function lastTrace(tenant: Tenant) {
  const execution = await getDb().execution.findFirstOrThrow({
    where: { organizationId: tenant.organization.id },
    orderBy: { createdAt: "desc" },
  });
  return execution.trace as { kind: string; name: string; versionId?: string | null; input?: string; output: string }[];
}

it("offers the members to a provider adviser as tools: an agent takes { message }, a flow its inputSchema", async () => {
  const tenant = await newOrganization();
  const { appId } = await supervisedApp(tenant);
  const before = offered.length;
  const response = await converse(tenant.orgKey.secret, appId, { message: "hello there" });
  expect(response.status).toBe(200);
  expect(response.body.reply).toBe("I can answer that myself.");
  const tools = offered[before]!.map((t) => ({
    name: t.function.name,
    description: t.function.description,
    parameters: t.function.parameters,
  }));
  expect(tools).toEqual([
    {
      name: "ask_Billing_agent",
      description: "Invoices, refunds and payments",
      parameters: expect.objectContaining({
        type: "object",
        properties: { message: expect.objectContaining({ type: "string" }) },
        required: ["message"],
      }),
    },
    {
      name: "flow_Order_status",
      description: "The shipping status of an order, by its number",
      parameters: expect.objectContaining({
        type: "object",
        properties: { order: expect.objectContaining({ type: "string" }) },
        required: ["order"],
      }),
    },
  ]);
  // Nothing was consulted: no member ran.
  expect((await lastTrace(tenant)).map((e) => e.kind)).toEqual(["adviser"]);
});

it("runs the flow the adviser calls at its pinned version, not the later one nor the draft, and answers with its output", async () => {
  const tenant = await newOrganization();
  const { appId, flowVersion } = await supervisedApp(tenant);
  const response = await converse(tenant.orgKey.secret, appId, { message: "order: where is A-42?" });
  expect(response.status).toBe(200);
  expect(response.body.reply).toBe("Adviser says: Pinned: order A-42 ships tomorrow");
  const trace = await lastTrace(tenant);
  expect(trace).toContainEqual(
    expect.objectContaining({
      kind: "tool",
      name: "flow_Order_status",
      input: '{"order":"A-42"}',
      output: "Pinned: order A-42 ships tomorrow",
    }),
  );
  expect(trace).toContainEqual(expect.objectContaining({ kind: "flow", name: "Order status", versionId: flowVersion }));
  expect(trace.at(-1)).toMatchObject({
    kind: "adviser",
    name: "Lead",
    output: "Adviser says: Pinned: order A-42 ships tomorrow",
  });
  expect(trace.map((e) => e.name)).not.toContain("routing");
});

it("asks an agent member with the adviser's message; it answers from its knowledge at its pinned version", async () => {
  const tenant = await newOrganization();
  const { appId, billingVersion } = await supervisedApp(tenant);
  const response = await converse(tenant.orgKey.secret, appId, { message: "refund: when do I get my money?" });
  expect(response.status).toBe(200);
  expect(response.body.reply).toMatch(/^Adviser says: .*14 days/);
  const trace = await lastTrace(tenant);
  expect(trace).toContainEqual(
    expect.objectContaining({
      kind: "tool",
      name: "ask_Billing_agent",
      input: '{"message":"How long do refunds take?"}',
    }),
  );
  expect(trace).toContainEqual(
    expect.objectContaining({ kind: "agent", name: "Billing agent", versionId: billingVersion }),
  );
});

it("streams a member step, started then finished, for each member the adviser calls, before done", async () => {
  const tenant = await newOrganization();
  const { appId } = await supervisedApp(tenant);
  const response = await restHandler()(
    new Request(`http://localhost/api/v1/apps/${appId}/conversation`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.orgKey.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "both: order and refund", stream: true }),
    }),
  );
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const events = await readEvents(response);
  const steps = events.filter((e) => e.event === "step").map((e) => JSON.parse(e.data));
  const byName = (name: string) => steps.filter((s) => s.name === name).map((s) => s.status);
  expect(byName("Order status")).toEqual(["started", "finished"]);
  expect(byName("Billing agent")).toEqual(["started", "finished"]);
  expect(steps.every((s) => s.kind === "member")).toBe(true);
  expect(steps.find((s) => s.name === "Order status" && s.status === "finished").output).toBe(
    "Pinned: order B-7 ships tomorrow",
  );
  const done = events.findIndex((e) => e.event === "done");
  expect(done).toBe(events.length - 1);
  expect(events.findLastIndex((e) => e.event === "step")).toBeLessThan(events.findIndex((e) => e.event === "delta"));
  const reply = JSON.parse(events[done]!.data).reply as string;
  expect(reply).toMatch(/^Adviser says: Pinned: order B-7 ships tomorrow \| .*14 days/);
});

it("tells the adviser when a member fails, and the run carries on", async () => {
  const tenant = await newOrganization();
  const { appId } = await supervisedApp(tenant);
  const response = await converse(tenant.orgKey.secret, appId, { message: "broken: order without a number" });
  expect(response.status).toBe(200);
  expect(response.body.reply).toMatch(/^Adviser says: The tool failed: .*order/);
  expect(await lastTrace(tenant)).toContainEqual(
    expect.objectContaining({ kind: "tool", name: "flow_Order_status", note: "the tool failed; the model was told" }),
  );
});

it("keeps word routing with the offline adviser: no provider call, the matching member consulted", async () => {
  const tenant = await newOrganization();
  const { appId } = await supervisedApp(tenant, "atrium-offline");
  const before = fake.requests.length;
  const response = await converse(tenant.orgKey.secret, appId, { message: "How long do refunds take?" });
  expect(response.status).toBe(200);
  expect(response.body.reply).toContain("14 days");
  expect(fake.requests.length).toBe(before);
  const trace = await lastTrace(tenant);
  expect(trace.map((e) => e.kind)).toContain("supervisor");
  expect(trace.map((e) => e.kind)).not.toContain("tool");
});
