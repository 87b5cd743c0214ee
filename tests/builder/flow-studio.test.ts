// The flow studio's pure parts (src/components/builder): condition branches drawn and edited as
// connections, the node library read from the schema's node types, the preview forms built from
// declared inputs, branch rules as a simple form, and a test run's trace read node by node.
import { describe, expect, it } from "vitest";
import { shownFeedback } from "@/components/builder/flow-checks";
import { addNode, connect, disconnect, removeNode } from "@/components/builder/flow-nodes";
import { ruleLogic, simpleRule } from "@/components/builder/condition-rule";
import { fieldsOfFlowInputs, fieldsOfJsonSchema, missingFields } from "@/components/builder/input-form-model";
import { libraryEntries } from "@/components/builder/node-catalog";
import { nodeChanges } from "@/components/builder/node-changes";
import { DATA_FIELDS } from "@/components/builder/node-data-model";
import { nodeResults } from "@/components/builder/run-results";
import { NODE_DATA, NODE_TYPES, type FlowNode } from "@/schemas/builder/builder";
import { flowEdges, flowFeedback, incompleteNodes } from "@/schemas/builder/flow-graph";
import { APPROVAL_TIMEOUT_MINUTES } from "@/schemas/limits";
import type { Execution } from "@/schemas/runs/runtime";

const node = (id: string, type: string, data: Record<string, unknown> = {}): FlowNode => ({
  id,
  type,
  data,
  blocks: [],
});
const MODELS = new Set(["atrium-offline"]);
const triage = () => [
  node("start", "trigger_start"),
  node("check", "condition", { branches: [] }),
  node("gold", "output", { value: "gold" }),
  node("silver", "output", { value: "silver" }),
];

describe("condition branches as connections", () => {
  it("a connection from a condition's new-branch dot adds a branch; from a branch's dot it moves it; else is its own", () => {
    let nodes = connect(triage(), 1, 2);
    nodes = connect(nodes, 1, 3);
    expect(nodes[1]!.data.branches).toEqual([
      { name: "Branch 1", when: true, next: "gold" },
      { name: "Branch 2", when: true, next: "silver" },
    ]);
    expect(nodes[1]!.data.next).toBeUndefined();
    expect(flowFeedback(nodes, MODELS)).toEqual([]);
    expect(
      flowEdges(nodes)
        .filter((edge) => edge.from === 1)
        .map((edge) => edge.branch),
    ).toEqual(["Branch 1", "Branch 2"]);
    nodes = connect(nodes, 1, 2, 1);
    expect((nodes[1]!.data.branches as { next: string }[]).map((b) => b.next)).toEqual(["gold", "gold"]);
    nodes = connect(nodes, 1, 3, "else");
    expect(nodes[1]!.data.else).toBe("silver");
    expect(flowFeedback(nodes, MODELS)).toEqual([]);
  });

  it("removing a node, or its connection, drops the branches to it, so the draft stays valid", () => {
    const nodes = connect(connect(connect(triage(), 1, 2), 1, 3), 1, 3, "else");
    const removed = removeNode(nodes, 3);
    expect(removed[1]!.data.branches).toEqual([{ name: "Branch 1", when: true, next: "gold" }]);
    expect(removed[1]!.data.else).toBeUndefined();
    expect(flowFeedback(removed, MODELS, { allowIncomplete: true })).toEqual([]);
    expect(disconnect(nodes, 1, 2)[1]!.data.branches).toEqual([{ name: "Branch 2", when: true, next: "silver" }]);
  });

  it("a new condition starts with no branch: a draft the server keeps, which says it needs one", () => {
    const nodes = addNode([node("start", "trigger_start")], "condition");
    expect(flowFeedback(nodes, MODELS, { allowIncomplete: true })).toEqual([]);
    expect(flowFeedback(nodes, MODELS).map((f) => f.message)).toEqual([expect.stringContaining("data.branches")]);
    // Its last branch removed, it is back to none (an empty list would be refused).
    const gone = removeNode(connect(nodes, 1, 0), 0);
    expect(gone[0]!.data.branches).toBeUndefined();
  });
});

describe("a branch's rule as a simple form", () => {
  it("reads and writes a variable, an operator and a value as JSON Logic, numbers compared as numbers", () => {
    const logic = ruleLogic({ path: "inputs.tier", op: "==", value: "gold" });
    expect(logic).toEqual({ "==": [{ var: "inputs.tier" }, "gold"] });
    expect(simpleRule(logic)).toEqual({ path: "inputs.tier", op: "==", value: "gold" });
    expect(ruleLogic({ path: "inputs.score", op: ">", value: "7" })).toEqual({ ">": [{ var: "inputs.score" }, 7] });
    expect(simpleRule(ruleLogic({ path: "nodes.a.output", op: "contains", value: "yes" }))).toEqual({
      path: "nodes.a.output",
      op: "contains",
      value: "yes",
    });
    expect(simpleRule(true)).toEqual({ path: "", op: "==", value: "" });
    expect(simpleRule({ and: [true, false] })).toBeNull();
  });
});

describe("the inspector's fields", () => {
  it("edits every data field of every node type's schema, and every field a node may lack", () => {
    // A condition's branches and its `else` have their own editor (condition-fields.tsx).
    for (const type of NODE_TYPES.filter((type) => type !== "condition")) {
      const edited = (DATA_FIELDS[type] ?? []).map((field) => field.key);
      const inSchema = type in NODE_DATA ? Object.keys(NODE_DATA[type as keyof typeof NODE_DATA].shape) : [];
      const lacking = incompleteNodes([node("n", type)]).map((missing) => missing.field);
      expect(DATA_FIELDS[type], type).toBeDefined();
      expect(edited, type).toEqual(expect.arrayContaining([...new Set([...inSchema, ...lacking])]));
    }
  });

  it("edits an approval's message and its time to decide within the schema's bounds", () => {
    const fields = DATA_FIELDS.approval!;
    expect(fields.find((field) => field.key === "message")).toMatchObject({ kind: "long-template" });
    expect(fields.find((field) => field.key === "timeoutMinutes")).toMatchObject({
      kind: "number",
      min: APPROVAL_TIMEOUT_MINUTES.min,
      max: APPROVAL_TIMEOUT_MINUTES.max,
      optional: true,
    });
    expect(incompleteNodes([node("ask", "approval", { message: "Refund {{inputs.amount}}?" })])).toEqual([]);
  });
});

describe("the node library", () => {
  it("offers every node type the schema knows, on shelves, and a type it gains later under More", () => {
    expect(
      libraryEntries()
        .map((entry) => entry.type)
        .sort(),
    ).toEqual([...NODE_TYPES].sort());
    expect(libraryEntries("", [...NODE_TYPES, "approval", "webhook_wait"]).slice(-2)).toEqual([
      expect.objectContaining({ type: "approval", label: "Approval", group: "People" }),
      expect.objectContaining({ type: "webhook_wait", group: "More" }),
    ]);
    expect(libraryEntries("branch").map((entry) => entry.type)).toEqual([]);
    expect(libraryEntries("web address").map((entry) => entry.type)).toEqual(["http_request"]);
    expect(libraryEntries("COND").map((entry) => entry.type)).toEqual(["condition"]);
  });
});

describe("preview forms", () => {
  it("are built from a flow's declared inputs and an app's input schema, and name what is still required", () => {
    const fields = fieldsOfFlowInputs([
      { key: "tier", label: "Tier", description: "", type: "select", required: true, options: ["gold", "silver"] },
      { key: "count", label: "", description: "", type: "integer", required: false, options: [] },
    ]);
    expect(fields.map((f) => [f.key, f.label, f.kind])).toEqual([
      ["tier", "Tier", "select"],
      ["count", "count", "integer"],
    ]);
    expect(missingFields(fields, {})).toEqual(["Tier"]);
    expect(missingFields(fields, { tier: "gold" })).toEqual([]);
    const schema = {
      type: "object",
      properties: {
        question: { type: "string", description: "What is asked" },
        urgent: { type: "boolean" },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
        extra: { type: "object" },
      },
      required: ["question"],
    };
    expect(fieldsOfJsonSchema(schema)!.map((f) => [f.key, f.kind, f.required])).toEqual([
      ["question", "text", true],
      ["urgent", "boolean", false],
      ["tags", "multiselect", false],
      ["extra", "json", false],
    ]);
    expect(fieldsOfJsonSchema(undefined)).toBeNull();
  });
});

describe("a test run's results on the canvas", () => {
  const execution = (trace: Partial<Execution["trace"][number]>[], extra: Partial<Execution> = {}) =>
    ({
      status: "succeeded",
      error: null,
      usage: null,
      trace: trace.map((entry) => ({ kind: "node", name: "", output: "", latencyMs: 0, ...entry })),
      ...extra,
    }) as Execution;

  it("marks what ran with its output, time and tokens, what failed, and what did not run", () => {
    const nodes = [
      node("start", "trigger_start"),
      node("ask", "llm"),
      node("gold", "output"),
      node("silver", "output"),
    ];
    const ran = nodeResults(
      execution(
        [
          { id: "start", output: "{}", latencyMs: 1 },
          { id: "ask", output: "Hello", latencyMs: 40, model: "atrium-offline", inputTokens: 10, outputTokens: 5 },
        ],
        {
          status: "failed",
          error: 'The flow failed at node "gold" of flow "Triage": boom.',
          usage: { inputTokens: 10, outputTokens: 5, usageReported: true, calls: [{ credits: 2 } as never] },
        },
      ),
      nodes,
    );
    expect(ran.get("ask")).toMatchObject({
      status: "succeeded",
      output: "Hello",
      latencyMs: 40,
      tokens: 15,
      credits: 2,
    });
    expect(ran.get("gold")).toMatchObject({ status: "failed", note: expect.stringContaining("boom") });
    expect(ran.get("silver")).toEqual({ status: "skipped", runs: 0 });
  });
});

describe("an empty flow", () => {
  it("is not greeted with the internal name of its start node; a flow without one is told in words", () => {
    expect(shownFeedback(flowFeedback([], MODELS), [])).toEqual([]);
    const noStart = [node("out", "output", { value: "x" })];
    const shown = shownFeedback(flowFeedback(noStart, MODELS), noStart);
    expect(shown.map((f) => f.message)).toEqual(["The flow has no Start step: add one, every flow begins with it."]);
  });
});

describe("a version compared with the draft, on the canvas", () => {
  it("marks the steps added and changed, names the removed, and ignores a step only moved", () => {
    const version = [
      node("start", "trigger_start", { position: { x: 0, y: 0 } }),
      node("ask", "llm", { prompt: "Hi", model: "atrium-offline" }),
      node("old", "template", { template: "bye" }),
      node("out", "output", { value: "{{nodes.ask.output}}" }),
    ];
    const draft = [
      node("start", "trigger_start", { position: { x: 400, y: 80 } }),
      node("ask", "llm", { model: "atrium-offline", prompt: "Hello" }),
      node("out", "output", { value: "{{nodes.ask.output}}" }),
      node("check", "approval", { message: "Send it?" }),
    ];
    const { marks, removed } = nodeChanges(version, draft);
    expect([...marks]).toEqual([
      ["ask", "changed"],
      ["check", "added"],
    ]);
    expect(removed.map((gone) => gone.id)).toEqual(["old"]);
    // Keys in another order are the same settings.
    const reordered = [node("ask", "llm", { model: "atrium-offline", prompt: "Hi" })];
    expect(nodeChanges([version[1]!], reordered).marks.size).toBe(0);
  });
});
