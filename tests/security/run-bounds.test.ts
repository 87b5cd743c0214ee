// Flow and run bounds (issue 10, item 3): a flow cannot loop through `data.next` nor read a node
// that runs after it, and a run that would outgrow its bounds (steps, each node's output, each
// member's output, the reply, wall time) ends as a failed, billed run with 422
// run_limit_exceeded, before its output is ever built in full.
import { afterEach, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { RUN_LIMITS } from "@/server/runtime/limits";
import { api, expectError, newOrganization, restHandler, type Tenant } from "../helpers";
import { create, patchDraft, publish } from "../builder-helpers";
import { credits, readEvents } from "../runtime-helpers";

const DEFAULT_LIMITS = { ...RUN_LIMITS };
afterEach(() => Object.assign(RUN_LIMITS, DEFAULT_LIMITS));

const INPUTS = [{ key: "question", label: "Question", type: "text", required: true }];

/** The 300-byte attack: a template node that is its own next and doubles its output each step. */
const SELF_DOUBLING = [
  { id: "start", type: "trigger_start", data: {} },
  { id: "t", type: "template", data: { template: "x{{nodes.t.output}}{{nodes.t.output}}", next: "t" } },
];

/** No cycle, yet each node doubles the one before: node 20 would hold 2^20 times the seed. */
function doublingChain(length = 30) {
  const nodes: Record<string, unknown>[] = [
    { id: "start", type: "trigger_start", data: {} },
    { id: "d0", type: "template", data: { template: "word ".repeat(200) } },
  ];
  for (let i = 1; i <= length; i++)
    nodes.push({
      id: `d${i}`,
      type: "template",
      data: { template: `{{nodes.d${i - 1}.output}}{{nodes.d${i - 1}.output}}` },
    });
  nodes.push({ id: "out", type: "output", data: { value: `{{nodes.d${length}.output}}` } });
  return nodes;
}

/** One template that repeats a 100 KB node 5,000 times: 500 MB if it were ever concatenated. */
function amplifier() {
  return [
    { id: "start", type: "trigger_start", data: {} },
    { id: "seed", type: "template", data: { template: "y".repeat(100_000) } },
    { id: "amp", type: "template", data: { template: "{{nodes.seed.output}}".repeat(5_000) } },
    { id: "out", type: "output", data: { value: "{{nodes.amp.output}}" } },
  ];
}

async function items(tenant: Tenant) {
  return getDb().builderItem.count({ where: { organizationId: tenant.organization.id } });
}

describe("flow graphs: no cycles through data.next, reads only from earlier nodes", () => {
  it("refuses the self-doubling flow on create and on patch, naming the node; nothing written", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const before = await items(tenant);
    const refused = expectError(
      await api("POST", "/flows", { key, body: { name: "Bomb", nodes: SELF_DOUBLING } }),
      422,
      "invalid_workflow",
    );
    expect(refused.feedback.map((f: { nodeId?: string }) => f.nodeId)).toContain("t");
    expect(refused.feedback.map((f: { message: string }) => f.message).join(" ")).toMatch(/cycle/);
    expect(await items(tenant)).toBe(before);

    const flow = await create(key, "flows", { name: "Fine" });
    const patched = await patchDraft(key, "flows", flow.id, { nodes: SELF_DOUBLING });
    expectError(patched, 422, "invalid_workflow");
    expect(
      (await api("GET", `/flows/${flow.id}/draft`, { key })).body.flow.nodes.map((n: { id: string }) => n.id),
    ).toEqual(["start", "ask", "done"]);
  });

  it("names every node of a longer cycle, including one closed by the default next-in-array order", async () => {
    const tenant = await newOrganization();
    const nodes = [
      { id: "start", type: "trigger_start", data: {} },
      { id: "a", type: "template", data: { template: "a" } },
      { id: "b", type: "template", data: { template: "b", next: "a" } },
      { id: "out", type: "output", data: { value: "{{nodes.b.output}}" } },
    ];
    const refused = expectError(
      await api("POST", "/flows", { key: tenant.orgKey.secret, body: { name: "Loop", nodes } }),
      422,
      "invalid_workflow",
    );
    const named = refused.feedback
      .filter((f: { message: string }) => /cycle/.test(f.message))
      .map((f: { nodeId: string }) => f.nodeId);
    expect(named.sort()).toEqual(["a", "b"]);
  });

  it("refuses a node that reads the output of a node that runs after it (or never before it)", async () => {
    const tenant = await newOrganization();
    const nodes = [
      { id: "start", type: "trigger_start", data: {} },
      { id: "early", type: "template", data: { template: "I read {{nodes.late.output}}" } },
      { id: "late", type: "template", data: { template: "late" } },
      { id: "out", type: "output", data: { value: "{{nodes.early.output}}" } },
    ];
    const refused = expectError(
      await api("POST", "/flows", { key: tenant.orgKey.secret, body: { name: "Ahead", nodes } }),
      422,
      "invalid_workflow",
    );
    expect(refused.feedback).toEqual([{ nodeId: "early", message: expect.stringContaining("late") }]);
  });

  it("refuses to publish a draft that holds a cycle (written before the rule existed); no version written", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const flow = await create(key, "flows", { name: "Old" });
    await getDb().builderItem.update({
      where: { id: flow.id },
      data: { draft: { name: "Old", nodes: SELF_DOUBLING } },
    });
    expectError(await api("POST", `/flows/${flow.id}/publish`, { key, body: {} }), 422, "invalid_workflow");
    expect(await getDb().builderVersion.count({ where: { itemId: flow.id } })).toBe(0);
  });

  it("still accepts ordinary flows, fan-out through data.next included", async () => {
    const tenant = await newOrganization();
    const nodes = [
      { id: "start", type: "trigger_start", data: { next: ["left", "right"] } },
      { id: "left", type: "template", data: { template: "L {{inputs.question}}", next: "join" } },
      { id: "right", type: "template", data: { template: "R", next: "join" } },
      { id: "join", type: "template", data: { template: "{{nodes.left.output}}", next: "out" } },
      { id: "out", type: "output", data: { value: "{{nodes.join.output}} {{nodes.start.output}}" } },
    ];
    const flow = await create(tenant.orgKey.secret, "flows", { name: "Fan", inputs: INPUTS, nodes });
    await publish(tenant.orgKey.secret, "flows", flow.id);
  });
});

/** A published app whose one member is a flow with the given nodes (written straight to the DB when the rules refuse it). */
async function appOver(nodes: Record<string, unknown>[], memberCount = 1) {
  const tenant = await newOrganization();
  const key = tenant.orgKey.secret;
  const flows = [];
  for (let i = 0; i < memberCount; i++) {
    const flow = await create(key, "flows", { name: `Member flow ${i}`, inputs: INPUTS, nodes });
    await publish(key, "flows", flow.id);
    flows.push(flow);
  }
  const flow = flows[0];
  const app = await create(key, "apps", {
    name: "Bounded",
    members: flows.map((f) => ({ id: f.id, kind: "flow" })),
    orchestrationMode: "sequential",
    api: { conversationEnabled: true, transactionEnabled: true },
  });
  await publish(key, "apps", app.id);
  return { tenant, key, flowId: flow.id, appId: app.id };
}

function expectLimit(response: Awaited<ReturnType<typeof api>>, bound: RegExp) {
  const error = expectError(response, 422, "run_limit_exceeded");
  expect(error.message).toMatch(bound);
  return error;
}

describe("runs are bounded as their output is produced", () => {
  it("a doubling chain (no cycle) fails the transaction with run_limit_exceeded naming the node output bound; billed, recorded as failed", async () => {
    const app = await appOver(doublingChain());
    const before = await credits(app.tenant);
    const response = await api("POST", `/apps/${app.appId}/transaction`, {
      key: app.key,
      body: { input: { question: "go" } },
    });
    expectLimit(response, /node.*output/i);
    expect(await credits(app.tenant)).toBe(before - 1);
    const [execution] = await getDb().execution.findMany({
      where: { organizationId: app.tenant.organization.id, kind: "transaction" },
    });
    expect(execution).toMatchObject({ status: "failed", credits: 1, error: expect.stringMatching(/node.*output/i) });
    // The trace keeps what ran, each entry shortened, never the outgrown output.
    expect(JSON.stringify(execution!.trace).length).toBeLessThan(RUN_LIMITS.nodeOutputChars);
  });

  it("one template repeating a large node 5,000 times is stopped before it is built: the process stays small", async () => {
    const app = await appOver(amplifier());
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const response = await api("POST", `/apps/${app.appId}/conversation`, { key: app.key, body: { message: "go" } });
    expectLimit(response, /node.*output/i);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(100 * 1024 * 1024);
    const [execution] = await getDb().execution.findMany({ where: { organizationId: app.tenant.organization.id } });
    expect(execution).toMatchObject({ status: "failed", credits: 1 });
  });

  it("streamed: an error event with run_limit_exceeded, and the run is billed", async () => {
    const app = await appOver(doublingChain());
    const before = await credits(app.tenant);
    const response = await restHandler()(
      new Request(`http://localhost/api/v1/apps/${app.appId}/conversation`, {
        method: "POST",
        headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
        body: JSON.stringify({ message: "go", stream: true }),
      }),
    );
    const events = response.status === 200 ? await readEvents(response) : [];
    const last = events.at(-1);
    expect(last?.event).toBe("error");
    expect(JSON.parse(last!.data).error).toMatchObject({
      code: "run_limit_exceeded",
      message: expect.stringMatching(/node.*output/i),
    });
    expect(await credits(app.tenant)).toBe(before - 1);
  });

  it("in a test run, the failing case's error names the bound; the case is billed", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const flow = await create(key, "flows", { name: "Chain", inputs: INPUTS, nodes: doublingChain() });
    const before = await credits(tenant);
    const response = await api("POST", `/flows/${flow.id}/tests`, {
      key,
      body: { cases: [{ input: "go", expectedBehavior: "anything" }] },
    });
    expect(response.status).toBe(200);
    expect(response.body.results[0]).toMatchObject({ passed: false, error: expect.stringMatching(/node.*output/i) });
    expect(await credits(tenant)).toBe(before - 1);
    const execution = await getDb().execution.findUniqueOrThrow({
      where: { id: response.body.results[0].executionId },
    });
    expect(execution).toMatchObject({ status: "failed", credits: 1 });
  });

  it("bounds the steps of a run: fan-out through data.next that would run nodes exponentially often", async () => {
    // Each level fans out to two nodes that both lead to the next level: 2^levels runs of the last node.
    const nodes: Record<string, unknown>[] = [{ id: "start", type: "trigger_start", data: { next: ["a0", "b0"] } }];
    const levels = 14;
    for (let i = 0; i < levels; i++) {
      const next = i + 1 < levels ? [`a${i + 1}`, `b${i + 1}`] : ["out"];
      nodes.push(
        { id: `a${i}`, type: "template", data: { template: "a", next } },
        { id: `b${i}`, type: "template", data: { template: "b", next } },
      );
    }
    nodes.push({ id: "out", type: "output", data: { value: "done" } });
    const app = await appOver(nodes);
    expectLimit(
      await api("POST", `/apps/${app.appId}/transaction`, { key: app.key, body: { input: { question: "go" } } }),
      /steps/i,
    );
  });

  it("bounds a member's output and the reply", async () => {
    const nodes = [
      { id: "start", type: "trigger_start", data: {} },
      { id: "out", type: "output", data: { value: "z".repeat(5_000) } },
    ];
    RUN_LIMITS.memberOutputChars = 1_000;
    const team = await appOver(nodes, 2);
    expectLimit(
      await api("POST", `/apps/${team.appId}/conversation`, { key: team.key, body: { message: "go" } }),
      /member/i,
    );
    Object.assign(RUN_LIMITS, DEFAULT_LIMITS);
    RUN_LIMITS.replyChars = 1_000;
    // A lone member with no adviser is the reply itself.
    const lone = await appOver(nodes);
    expectLimit(
      await api("POST", `/apps/${lone.appId}/conversation`, { key: lone.key, body: { message: "go" } }),
      /reply/i,
    );
    expectLimit(
      await api("POST", `/apps/${lone.appId}/transaction`, { key: lone.key, body: { input: { question: "go" } } }),
      /reply/i,
    );
  });

  it("bounds a run's wall time", async () => {
    RUN_LIMITS.runMs = 0;
    const app = await appOver(doublingChain(5));
    const before = await credits(app.tenant);
    expectLimit(
      await api("POST", `/apps/${app.appId}/conversation`, { key: app.key, body: { message: "go" } }),
      /time/i,
    );
    expect(await credits(app.tenant)).toBe(before - 1);
  });
});

describe("the JSON a transaction's reply holds is bounded in depth", () => {
  it("a flow whose output is 10,000-deep JSON fails with run_limit_exceeded naming the depth; billed, recorded as failed", async () => {
    const deep = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
    const app = await appOver([
      { id: "start", type: "trigger_start", data: {} },
      { id: "out", type: "output", data: { value: deep } },
    ]);
    const before = await credits(app.tenant);
    const response = await api("POST", `/apps/${app.appId}/transaction`, {
      key: app.key,
      body: { input: { question: "go" } },
    });
    expectLimit(response, /depth/i);
    expect(response.body.error.message).toContain(String(RUN_LIMITS.outputJsonDepth));
    expect(await credits(app.tenant)).toBe(before - 1);
    const executions = await getDb().execution.findMany({
      where: { organizationId: app.tenant.organization.id, kind: "transaction" },
    });
    expect(executions).toEqual([
      expect.objectContaining({ status: "failed", credits: 1, error: expect.stringMatching(/depth/i) }),
    ]);
  });

  it("JSON as deep as the bound is still the transaction's output", async () => {
    const depth = RUN_LIMITS.outputJsonDepth;
    const nested = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    const app = await appOver([
      { id: "start", type: "trigger_start", data: {} },
      { id: "out", type: "output", data: { value: nested } },
    ]);
    const response = await api("POST", `/apps/${app.appId}/transaction`, {
      key: app.key,
      body: { input: { question: "go" } },
    });
    expect(response.status).toBe(200);
    expect(JSON.stringify(response.body.output)).toBe(nested);
  });
});
