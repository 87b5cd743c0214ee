// The flow nodes that decide and compute (condition, set_variable, loop, code), run through the
// REST door as an app's transaction: what the caller gets back, what the execution's trace says
// ran, and the refusals that name the node, when written and when run.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api, expectError, newOrganization } from "../helpers";
import { create, publish } from "../builder-helpers";

type Node = { id: string; type: string; data?: Record<string, unknown> };

/** A published app whose one member is a flow of these nodes and inputs; transactions on. */
async function flowApp(nodes: Node[], inputs: Record<string, unknown>[]) {
  const tenant = await newOrganization();
  const key = tenant.orgKey.secret;
  const flow = await create(key, "flows", { name: "Logic", inputs, nodes });
  await publish(key, "flows", flow.id);
  const app = await create(key, "apps", {
    name: "Logic app",
    members: [{ id: flow.id, kind: "flow" }],
    orchestrationMode: "sequential",
    api: { transactionEnabled: true },
  });
  await publish(key, "apps", app.id);
  const transact = (input: Record<string, unknown>) =>
    api("POST", `/apps/${app.id}/transaction`, { key, body: { input } });
  return { tenant, key, flowId: flow.id, transact };
}

/** The names of the flow nodes an execution's trace says ran ("Logic › gold (template)"). */
async function nodesRan(executionId: string): Promise<string[]> {
  const execution = await getDb().execution.findUniqueOrThrow({ where: { id: executionId } });
  return (execution.trace as { kind: string; name: string }[])
    .filter((entry) => entry.kind === "node")
    .map((entry) => entry.name.replace(/^Logic › /, "").replace(/ \(.*\)$/, ""));
}

const TIER_INPUTS = [
  { key: "tier", type: "text", required: true },
  { key: "spend", type: "number", required: true },
];

const ROUTING: Node[] = [
  { id: "start", type: "trigger_start", data: { next: "route" } },
  {
    id: "route",
    type: "condition",
    data: {
      branches: [
        {
          name: "gold",
          when: { and: [{ "==": [{ var: "inputs.tier" }, "gold"] }, { ">=": [{ var: "inputs.spend" }, 1000] }] },
          next: "gold",
        },
        { name: "silver", when: { in: [{ var: "inputs.tier" }, ["silver", "gold"]] }, next: "silver" },
      ],
      else: "standard",
    },
  },
  { id: "gold", type: "template", data: { template: "concierge", next: "goldOut" } },
  { id: "goldOut", type: "output", data: { value: '{"desk": "{{nodes.gold.output}}"}' } },
  { id: "silver", type: "template", data: { template: "priority", next: "silverOut" } },
  { id: "silverOut", type: "output", data: { value: '{"desk": "{{nodes.silver.output}}"}' } },
  { id: "standard", type: "output", data: { value: '{"desk": "queue"}' } },
];

describe("condition", () => {
  it("routes gold and silver customers to different nodes, and only the chosen branch runs", async () => {
    const app = await flowApp(ROUTING, TIER_INPUTS);
    const gold = await app.transact({ tier: "gold", spend: 5000 });
    expect(gold.status).toBe(200);
    expect(gold.body.output).toEqual({ desk: "concierge" });
    expect(await nodesRan(gold.body.executionId)).toEqual(["start", "route", "gold", "goldOut"]);

    const silver = await app.transact({ tier: "silver", spend: 5000 });
    expect(silver.body.output).toEqual({ desk: "priority" });
    expect(await nodesRan(silver.body.executionId)).toEqual(["start", "route", "silver", "silverOut"]);

    // A gold customer under the spend falls through to the next branch whose expression holds.
    const smallGold = await app.transact({ tier: "gold", spend: 10 });
    expect(smallGold.body.output).toEqual({ desk: "priority" });
    const bronze = await app.transact({ tier: "bronze", spend: 5000 });
    expect(bronze.body.output).toEqual({ desk: "queue" });
    expect(await nodesRan(bronze.body.executionId)).toEqual(["start", "route", "standard"]);
    const execution = await getDb().execution.findUniqueOrThrow({ where: { id: gold.body.executionId } });
    expect(execution.trace).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: "route", output: "gold", note: 'took branch "gold"' })]),
    );
  });

  it("the graph's edges carry each branch's name, for the canvas", async () => {
    const { flowEdges } = await import("@/schemas/builder/flow-graph");
    const edges = flowEdges(ROUTING.map((node) => ({ data: {}, blocks: [], ...node })));
    expect(edges.filter((edge) => edge.from === 1)).toEqual([
      { from: 1, to: 2, inOrder: false, branch: "gold" },
      { from: 1, to: 4, inOrder: false, branch: "silver" },
      { from: 1, to: 6, inOrder: false, branch: "else" },
    ]);
  });
});

describe("set_variable", () => {
  it("sets variables from a template and from an expression, and later nodes read them", async () => {
    const app = await flowApp(
      [
        { id: "start", type: "trigger_start" },
        { id: "greet", type: "set_variable", data: { name: "greeting", value: "Hello {{inputs.name}}" } },
        { id: "twice", type: "set_variable", data: { name: "double", expression: { "*": [{ var: "inputs.n" }, 2] } } },
        {
          id: "pick",
          type: "condition",
          data: { branches: [{ name: "big", when: { ">": [{ var: "vars.double" }, 10] }, next: "out" }] },
        },
        { id: "out", type: "output", data: { value: '{"greeting": "{{vars.greeting}}", "double": {{vars.double}}}' } },
      ],
      [
        { key: "name", type: "text", required: true },
        { key: "n", type: "integer", required: true },
      ],
    );
    const response = await app.transact({ name: "Ada", n: 21 });
    expect(response.status).toBe(200);
    expect(response.body.output).toEqual({ greeting: "Hello Ada", double: 42 });
  });
});

const LOOP_INPUTS = [{ key: "names", type: "multiselect", required: true }];
const LOOP_NODES: Node[] = [
  { id: "start", type: "trigger_start" },
  {
    id: "each",
    type: "loop",
    data: {
      items: { var: "inputs.names" },
      concurrency: 5,
      body: [
        { id: "hello", type: "template", data: { template: "Hi {{loop.item}}" } },
        {
          id: "shape",
          type: "code",
          data: { code: "return { text: input.nodes.hello.output, at: input.loop.index }" },
        },
      ],
    },
  },
  { id: "out", type: "output", data: { value: '{"greetings": {{nodes.each.output}}}' } },
];

describe("loop", () => {
  it("runs its body for each item, in order, and hands on the list of results", async () => {
    const app = await flowApp(LOOP_NODES, LOOP_INPUTS);
    const response = await app.transact({ names: ["Ada", "Grace", "Edsger"] });
    expect(response.status).toBe(200);
    expect(response.body.output).toEqual({
      greetings: [
        { text: "Hi Ada", at: 0 },
        { text: "Hi Grace", at: 1 },
        { text: "Hi Edsger", at: 2 },
      ],
    });
    const ran = await nodesRan(response.body.executionId);
    expect(ran.filter((name) => name.startsWith("each[1]"))).toEqual(["each[1].hello", "each[1].shape"]);
  });

  it("a list of 150 items is refused at 100, naming the node; nothing of the body runs", async () => {
    // A body of templates only: each code node starts a sandbox thread, which 100 items would make slow.
    const templated = LOOP_NODES.map((node) =>
      node.id === "each" ? { ...node, data: { ...node.data, body: [(node.data!.body as Node[])[0]] } } : node,
    );
    const app = await flowApp(templated, LOOP_INPUTS);
    const names = Array.from({ length: 150 }, (_, i) => `name ${i}`);
    const response = await app.transact({ names });
    const error = expectError(response, 422, "run_limit_exceeded");
    expect(error.message).toMatch(/loop items.*at most 100 items.*node "each".*a list of 150/);
    const [execution] = await getDb().execution.findMany({ where: { organizationId: app.tenant.organization.id } });
    expect(execution).toMatchObject({ status: "failed" });
    expect((execution!.trace as { name: string }[]).some((entry) => entry.name.includes("each["))).toBe(false);
    // 100 items run.
    const hundred = await app.transact({ names: names.slice(0, 100) });
    expect(hundred.status).toBe(200);
    expect(hundred.body.output.greetings).toHaveLength(100);
  });
});

describe("loop failures", () => {
  it("a body node that fails ends the loop there, naming the iteration's node; later items do not run", async () => {
    const nodes: Node[] = [
      { id: "start", type: "trigger_start" },
      {
        id: "each",
        type: "loop",
        data: {
          items: { var: "inputs.names" },
          body: [
            {
              id: "check",
              type: "code",
              data: { code: 'if (input.loop.index === 2) throw new Error("bad " + input.loop.item); return 1' },
            },
          ],
        },
      },
      { id: "out", type: "output", data: { value: '{"all": {{nodes.each.output}}}' } },
    ];
    const app = await flowApp(nodes, LOOP_INPUTS);
    const error = expectError(await app.transact({ names: ["a", "b", "c", "d", "e"] }), 422, "invalid_workflow");
    expect(error.message).toContain('node "each[2].check"');
    expect(error.feedback).toEqual([{ nodeId: "check", message: "the code threw Error: bad c" }]);
    const [execution] = await getDb().execution.findMany({ where: { organizationId: app.tenant.organization.id } });
    const names = (execution!.trace as { name: string }[]).map((entry) => entry.name);
    expect(names.some((name) => name.includes("each[3]"))).toBe(false);
  });
});

describe("code", () => {
  const CODE_INPUTS = [{ key: "n", type: "integer", required: true }];
  const withCode = (code: string): Node[] => [
    { id: "start", type: "trigger_start" },
    { id: "calc", type: "code", data: { code } },
    { id: "out", type: "output", data: { value: '{"result": {{nodes.calc.output}}}' } },
  ];

  it("returns an output the next node reads; the sandbox has no network, files or process", async () => {
    const app = await flowApp(
      withCode(
        "const squares = []; for (let i = 1; i <= input.inputs.n; i++) squares.push(i * i);\n" +
          "return { squares, reach: [typeof fetch, typeof require, typeof process, typeof XMLHttpRequest] };",
      ),
      CODE_INPUTS,
    );
    const response = await app.transact({ n: 4 });
    expect(response.status).toBe(200);
    expect(response.body.output).toEqual({
      result: { squares: [1, 4, 9, 16], reach: ["undefined", "undefined", "undefined", "undefined"] },
    });
  });

  it("an infinite loop ends at 5 seconds, a memory bomb at 64 MB, each naming the node", async () => {
    const spin = await flowApp(withCode("while (true) {}"), CODE_INPUTS);
    let spinning = true;
    const spun = spin.transact({ n: 1 }).finally(() => (spinning = false));
    // The sandbox runs on a thread of its own: this process answers other requests meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await api("GET", "/flows", { key: spin.key })).status).toBe(200);
    expect(spinning).toBe(true);
    const stopped = expectError(await spun, 422, "run_limit_exceeded");
    expect(stopped.message).toMatch(/code time.*at most 5 seconds.*node "calc"/);
    expect(stopped.bound).toBe("code time");

    const bomb = await flowApp(withCode('return "x".repeat(200 * 1024 * 1024).length'), CODE_INPUTS);
    const exhausted = expectError(await bomb.transact({ n: 1 }), 422, "run_limit_exceeded");
    expect(exhausted.message).toMatch(/code memory.*at most 64 MB.*node "calc"/);
    const [execution] = await getDb().execution.findMany({ where: { organizationId: bomb.tenant.organization.id } });
    expect(execution).toMatchObject({ status: "failed", error: expect.stringContaining('node "calc"') });
  });

  it("code that throws ends the run with invalid_workflow naming the node and the error", async () => {
    const app = await flowApp(withCode('throw new TypeError("no customer")'), CODE_INPUTS);
    const error = expectError(await app.transact({ n: 1 }), 422, "invalid_workflow");
    expect(error.feedback).toEqual([{ nodeId: "calc", message: "the code threw TypeError: no customer" }]);
  });
});

describe("validation of the new nodes, when written", () => {
  const start = { id: "start", type: "trigger_start", data: {} };
  const out = { id: "out", type: "output", data: { value: "v" } };
  it.each([
    [
      "a condition with data.next, or a branch to a missing node",
      [
        start,
        { id: "c", type: "condition", data: { next: "out", branches: [{ name: "a", when: true, next: "ghost" }] } },
        out,
      ],
      [
        { nodeId: "c", message: expect.stringContaining("not data.next") },
        { nodeId: "c", message: expect.stringContaining('"ghost"') },
      ],
    ],
    [
      "an expression too long or walking to a prototype",
      [
        start,
        { id: "v", type: "set_variable", data: { name: "x", expression: { cat: ["y".repeat(5000)] } } },
        { id: "w", type: "set_variable", data: { name: "y", expression: { var: "inputs.__proto__" } } },
        out,
      ],
      [
        { nodeId: "v", message: expect.stringContaining("longer than 4000 characters") },
        { nodeId: "w", message: expect.stringContaining("not a variable") },
      ],
    ],
    [
      "a loop over 5 at once, with a body that would end the run",
      [
        start,
        {
          id: "l",
          type: "loop",
          data: { items: [1], concurrency: 6, body: [{ id: "o", type: "output", data: { value: "x" } }] },
        },
        out,
      ],
      [
        { nodeId: "l", message: expect.stringContaining("data.body.0.type") },
        { nodeId: "l", message: expect.stringContaining("data.concurrency") },
      ],
    ],
    [
      "a read of a variable nothing sets, and of loop.item outside a loop",
      [start, { id: "t", type: "template", data: { template: "{{vars.nope}} {{loop.item}}" } }, out],
      [
        { nodeId: "t", message: expect.stringContaining('no set_variable node sets "nope"') },
        { nodeId: "t", message: expect.stringContaining("only nodes in a loop's body") },
      ],
    ],
    [
      "an http_request with a method it does not know, a forbidden header, credentials of no connection",
      [
        start,
        {
          id: "h",
          type: "http_request",
          data: { url: "https://example.com", method: "TRACE", headers: { Host: "x" }, credentials: "nobody" },
        },
        out,
      ],
      [
        { nodeId: "h", message: expect.stringContaining("data.method") },
        { nodeId: "h", message: expect.stringContaining("data.headers") },
        { nodeId: "h", message: expect.stringContaining('names no MCP connection of this organization ("nobody")') },
      ],
    ],
  ])("%s: invalid_workflow naming the node; nothing written", async (_name, nodes, feedback) => {
    const tenant = await newOrganization();
    const response = await api("POST", "/flows", { key: tenant.orgKey.secret, body: { name: "Bad", nodes } });
    const error = expectError(response, 422, "invalid_workflow");
    expect(error.feedback).toEqual(expect.arrayContaining(feedback));
    expect(error.feedback).toHaveLength(feedback.length);
    expect(await getDb().builderItem.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  });

  it("a draft may hold a condition without branches; publishing it is refused, naming the node", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const flow = await create(key, "flows", {
      nodes: [
        { id: "start", type: "trigger_start", data: {} },
        { id: "route", type: "condition", data: {} },
        { id: "out", type: "output", data: { value: "v" } },
      ],
    });
    const response = await api("POST", `/flows/${flow.id}/publish`, { key, body: {} });
    const error = expectError(response, 422, "invalid_workflow");
    expect(error.feedback).toEqual([
      { nodeId: "route", message: "A condition node needs data.branches (a non-empty list)" },
    ]);
  });

  it("a stored version whose node breaks a rule is refused when it runs, naming the node", async () => {
    const app = await flowApp(ROUTING, TIER_INPUTS);
    // A version written before a rule existed (changed before its first run, so no process has it cached).
    const version = await getDb().builderVersion.findFirstOrThrow({ where: { itemId: app.flowId } });
    const document = version.document as { nodes: Node[] };
    document.nodes[1]!.data = { branches: [{ name: "gold", when: { var: "constructor.name" }, next: "gold" }] };
    await getDb().builderVersion.update({
      where: { id: version.id },
      data: { document: JSON.parse(JSON.stringify(document)) },
    });
    const error = expectError(await app.transact({ tier: "gold", spend: 1 }), 422, "invalid_workflow");
    expect(error.feedback).toEqual([
      { nodeId: "route", message: 'data.branches.0.when reads "constructor.name", which is not a variable' },
    ]);
  });
});
