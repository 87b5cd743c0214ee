// Transactions (JSON Schema in and out), graded test runs of drafts, and flows run by the runtime.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { updateOrganization } from "@/server/services/org/organizations";
import { api, expectError, newOrganization } from "../helpers";
import { create, publish } from "../builder-helpers";
import { drain, newKnowledgebase, newPage } from "../knowledge-helpers";
import { credits, oneAgentApp } from "../runtime-helpers";

const QUOTE_NODES = [
  { id: "start", type: "trigger_start", data: {} },
  { id: "price", type: "template", data: { template: "{{inputs.quantity}}" } },
  { id: "out", type: "output", data: { value: '{"item": "{{inputs.item}}", "total": {{nodes.price.output}}}' } },
];

async function quoteApp(outputSchema: Record<string, unknown>, api_: Record<string, unknown> = {}) {
  const tenant = await newOrganization();
  const key = tenant.orgKey.secret;
  const flow = await create(key, "flows", {
    name: "Quote",
    inputs: [
      { key: "item", label: "Item", type: "text", required: true },
      { key: "quantity", label: "Quantity", type: "integer", required: true },
    ],
    nodes: QUOTE_NODES,
  });
  await publish(key, "flows", flow.id);
  const app = await create(key, "apps", {
    name: "Quotes",
    members: [{ id: flow.id, kind: "flow" }],
    orchestrationMode: "sequential",
    api: {
      transactionEnabled: true,
      inputSchema: {
        type: "object",
        required: ["item", "quantity"],
        properties: { item: { type: "string" }, quantity: { type: "integer", minimum: 1 } },
        additionalProperties: false,
      },
      outputSchema,
      ...api_,
    },
  });
  await publish(key, "apps", app.id);
  return { tenant, key, appId: app.id, flowId: flow.id };
}

const OUTPUT = {
  type: "object",
  required: ["item", "total"],
  properties: { item: { type: "string" }, total: { type: "number" } },
};

describe("POST /apps/{appId}/transaction", () => {
  it("checks the input, runs the app and answers the output object with its execution", async () => {
    const app = await quoteApp(OUTPUT);
    const before = await credits(app.tenant);
    const response = await api("POST", `/apps/${app.appId}/transaction`, {
      key: app.key,
      body: { input: { item: "widget", quantity: 3 } },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ output: { item: "widget", total: 3 }, executionId: expect.any(String) });
    expect(await credits(app.tenant)).toBe(before - 1);
    const execution = await api("GET", `/executions/${response.body.executionId}`, { key: app.key });
    expect(execution.body.execution).toMatchObject({ kind: "transaction", status: "succeeded", credits: 1 });
    expect(execution.body.execution.trace.map((t: { kind: string }) => t.kind)).toEqual([
      "node",
      "node",
      "node",
      "flow",
    ]);
  });

  it("invalid_request naming every problem of the input; nothing charged", async () => {
    const app = await quoteApp(OUTPUT);
    const before = await credits(app.tenant);
    const response = await api("POST", `/apps/${app.appId}/transaction`, {
      key: app.key,
      body: { input: { quantity: 0, colour: "red" } },
    });
    expectError(response, 400, "invalid_request");
    expect(response.body.error.problems.map((p: { path: string }) => p.path).sort()).toEqual([
      "input.colour",
      "input.item",
      "input.quantity",
    ]);
    expect(await credits(app.tenant)).toBe(before);
  });

  it("output_invalid (502) with raw and JSON-pointer details when the reply misses the output schema; billed", async () => {
    const app = await quoteApp({
      type: "object",
      required: ["total", "currency"],
      properties: { total: { type: "string" }, currency: { type: "string" } },
    });
    const before = await credits(app.tenant);
    const response = await api("POST", `/apps/${app.appId}/transaction`, {
      key: app.key,
      body: { input: { item: "widget", quantity: 2 } },
    });
    expectError(response, 502, "output_invalid");
    expect(response.body.error.raw).toBe('{"item": "widget", "total": 2}');
    expect(response.body.error.details).toEqual(
      expect.arrayContaining([
        { pointer: "/currency", message: expect.any(String) },
        { pointer: "/total", message: expect.any(String) },
      ]),
    );
    expect(await credits(app.tenant)).toBe(before - 1);
  });

  it("service_disabled when transactions are off in the published API config", async () => {
    const app = await quoteApp(OUTPUT, { transactionEnabled: false });
    expectError(
      await api("POST", `/apps/${app.appId}/transaction`, {
        key: app.key,
        body: { input: { item: "a", quantity: 1 } },
      }),
      403,
      "service_disabled",
    );
  });
});

describe("transaction schemas that share an $id", () => {
  // Two apps (here in two organizations) whose input schemas carry the same `$id` but differ.
  const orderSchema = (minimum: number) => ({
    $id: "https://example.test/schemas/order",
    type: "object",
    required: ["item", "quantity"],
    properties: { item: { type: "string" }, quantity: { type: "integer", minimum } },
    additionalProperties: false,
  });

  it("each app's input is checked by its own schema, in either order", async () => {
    const lenient = await quoteApp(OUTPUT, { inputSchema: orderSchema(1) });
    const strict = await quoteApp(OUTPUT, { inputSchema: orderSchema(10) });
    const input = { item: "widget", quantity: 3 };
    for (let round = 0; round < 2; round++) {
      const fine = await api("POST", `/apps/${lenient.appId}/transaction`, { key: lenient.key, body: { input } });
      expect(fine.status).toBe(200);
      const refused = await api("POST", `/apps/${strict.appId}/transaction`, { key: strict.key, body: { input } });
      expectError(refused, 400, "invalid_request");
      expect(refused.body.error.problems.map((p: { path: string }) => p.path)).toEqual(["input.quantity"]);
    }
    const enough = await api("POST", `/apps/${strict.appId}/transaction`, {
      key: strict.key,
      body: { input: { item: "widget", quantity: 12 } },
    });
    expect(enough.status).toBe(200);
  });
});

describe("POST /{kind}/{id}/tests", () => {
  it("runs cases against the draft, grades them and suggests corrections; GET lists the runs", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const flow = await create(key, "flows", {
      name: "Echo",
      inputs: [{ key: "question", label: "Question", type: "text", required: true }],
      nodes: [
        { id: "start", type: "trigger_start", data: {} },
        { id: "out", type: "output", data: { value: "You asked about {{inputs.question}}" } },
      ],
    });
    const before = await credits(tenant);
    const response = await api("POST", `/flows/${flow.id}/tests`, {
      key,
      body: {
        cases: [
          { input: "refunds", expectedBehavior: "mentions refunds" },
          { id: "second", input: "shipping", expectedBehavior: "explains the warranty terms" },
        ],
      },
    });
    expect(response.status).toBe(200);
    expect(response.body.tool).toEqual({ id: flow.id, kind: "flow", name: "Echo" });
    expect(response.body.summary).toEqual({ total: 2, passed: 1, failed: 1 });
    expect(response.body.results[0]).toMatchObject({
      caseId: "1",
      passed: true,
      output: "You asked about refunds",
      failures: [],
      error: null,
    });
    expect(response.body.results[1].failures[0]).toMatchObject({
      criterionId: "expected-second",
      targetNodeIds: ["out"],
    });
    expect(response.body.corrections).toEqual([
      expect.objectContaining({ testCaseId: "second", targetNodeId: "out", suggestedAction: "edit_node" }),
    ]);
    expect(await credits(tenant)).toBe(before - 2);

    const runs = await api("GET", `/flows/${flow.id}/tests`, { key });
    expect(runs.body.testRuns).toHaveLength(1);
    expect(runs.body.testRuns[0].summary).toEqual({ total: 2, passed: 1, failed: 1 });
    expect(runs.body.nextCursor).toBeNull();
  });

  it("feature_not_available without the quality checker; invalid_request over 10 cases; insufficient_credits; nothing charged", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const agent = await create(key, "agents", { name: "Helper" });
    const cases = Array.from({ length: 11 }, (_, i) => ({ input: `q${i}` }));
    expectError(await api("POST", `/agents/${agent.id}/tests`, { key, body: { cases } }), 400, "invalid_request");

    await updateOrganization(getDb(), tenant.operator, { credits: 1 });
    expectError(
      await api("POST", `/agents/${agent.id}/tests`, { key, body: { cases: cases.slice(0, 2) } }),
      402,
      "insufficient_credits",
    );
    expect(await credits(tenant)).toBe(1);

    await updateOrganization(getDb(), tenant.operator, { qualityChecker: false });
    expectError(
      await api("POST", `/agents/${agent.id}/tests`, { key, body: { cases: cases.slice(0, 1) } }),
      403,
      "feature_not_available",
    );
    expect(await credits(tenant)).toBe(1);
    expect(await getDb().testRun.count({ where: { itemId: agent.id } })).toBe(0);
  });
});

describe("flow inputs", () => {
  it("a flow run refuses inputs that miss the flow's schema, naming every problem", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const flow = await create(key, "flows", {
      name: "Sum",
      inputs: [
        { key: "a", label: "A", type: "integer", required: true },
        { key: "b", label: "B", type: "integer", required: true },
      ],
      nodes: [
        { id: "start", type: "trigger_start", data: {} },
        { id: "out", type: "output", data: { value: "{{inputs.a}} and {{inputs.b}}" } },
      ],
    });
    const response = await api("POST", `/flows/${flow.id}/tests`, {
      key,
      body: { cases: [{ input: '{"a": "one"}', expectedBehavior: "adds" }] },
    });
    expect(response.status).toBe(200);
    const [result] = response.body.results;
    expect(result.passed).toBe(false);
    expect(result.error).toContain("inputs.b");
    expect(result.error).toMatch(/and 1 more problem/);
  });
});

describe("flows in conversations", () => {
  it("a flow member receives the message as its first text input", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const flow = await create(key, "flows", {
      name: "Greeter",
      inputs: [{ key: "name", label: "Name", type: "text", required: true }],
      nodes: [
        { id: "start", type: "trigger_start", data: {} },
        { id: "out", type: "output", data: { value: "Hello, {{inputs.name}}!" } },
      ],
    });
    await publish(key, "flows", flow.id);
    const app = await create(key, "apps", { name: "Greeting", members: [{ id: flow.id, kind: "flow" }] });
    await publish(key, "apps", app.id);
    const response = await api("POST", `/apps/${app.id}/conversation`, { key, body: { message: "Ada" } });
    expect(response.status).toBe(200);
    expect(response.body.reply).toBe("Hello, Ada!");
  });
});

describe("a knowledge_search node in the trace", () => {
  it("names the passages it found, by page or document title, beside its output and its query", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const knowledgebaseId = await newKnowledgebase(tenant);
    const pageId = await newPage(key, knowledgebaseId, {
      title: "Refund policy",
      markdown: "Refunds are paid within 14 days of the request.",
    });
    const flow = await create(key, "flows", {
      name: "Lookup",
      inputs: [{ key: "q", label: "Question", type: "text", required: true }],
      nodes: [
        { id: "start", type: "trigger_start", data: {} },
        { id: "search", type: "knowledge_search", data: { knowledgebaseId, query: "{{inputs.q}} policy" } },
        { id: "answer", type: "llm", data: { prompt: "Say in one line how “{{inputs.q}}” work." } },
        { id: "out", type: "output", data: { value: "{{nodes.search.output}}" } },
      ],
    });
    await publish(key, "flows", flow.id);
    const app = await create(key, "apps", {
      name: "Lookup",
      members: [{ id: flow.id, kind: "flow" }],
      orchestrationMode: "sequential",
      api: { transactionEnabled: true },
    });
    await publish(key, "apps", app.id);
    const response = await api("POST", `/apps/${app.id}/transaction`, { key, body: { input: { q: "refunds" } } });
    expect(response.status, response.text).toBe(200);
    const execution = (await api("GET", `/executions/${response.body.executionId}`, { key })).body.execution;
    const search = execution.trace.find((entry: { id: string }) => entry.id === "search");
    expect(search.passages).toEqual(["Refund policy"]);
    expect(search.retrieved).toEqual([
      {
        kind: "page",
        id: pageId,
        knowledgebaseId,
        title: "Refund policy",
        heading: "",
        snippet: "Refunds are paid within 14 days of the request.",
      },
    ]);
    expect(search.output).toContain("Refunds are paid within 14 days");
    // What each step was given, as rendered: the search its query, the model step its prompt.
    expect(search.input).toBe("refunds policy");
    const answer = execution.trace.find((entry: { id: string }) => entry.id === "answer");
    expect(answer.input).toBe("Say in one line how “refunds” work.");
    expect(execution.trace.find((entry: { id: string }) => entry.id === "out")).not.toHaveProperty("input");
  });

  it("keeps where an agent's passages were found: the document, the headings above the passage and how it starts", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const knowledgebaseId = await newKnowledgebase(tenant);
    const long = `Parcels to the islands travel by ferry ${"and then by van ".repeat(40)}and arrive in five days.`;
    const added = await api("POST", `/knowledgebases/${knowledgebaseId}/sources`, {
      key,
      body: { name: "Shipping guide", contentMarkdown: `# Shipping\n\n## Islands\n\n${long}` },
    });
    expect(added.status, added.text).toBe(202);
    await drain();
    const appId = await oneAgentApp(
      key,
      { name: "Courier", knowledge: [{ knowledgebaseId }] },
      { name: "Courier desk" },
    );
    const reply = await api("POST", `/apps/${appId}/conversation`, {
      key,
      body: { message: "How do parcels reach the islands by ferry?" },
    });
    expect(reply.status, reply.text).toBe(200);

    const { executions } = (await api("GET", `/executions?itemId=${appId}`, { key })).body;
    const step = executions[0].trace.find((entry: { kind: string }) => entry.kind === "agent");
    expect(step.retrieved).toHaveLength(1);
    expect(step.retrieved[0]).toEqual({
      kind: "source",
      id: added.body.source.id,
      knowledgebaseId,
      title: "Shipping guide",
      heading: "Shipping > Islands",
      snippet: expect.stringContaining("Parcels to the islands travel by ferry and then by van"),
    });
    // A long passage is cut: the trace keeps its first 300 characters.
    expect(step.retrieved[0].snippet).toHaveLength(300);
    expect(step.retrieved[0].snippet.endsWith("…")).toBe(true);
  });
});
