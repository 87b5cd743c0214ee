// Running a flow: its nodes in order or as their branches name, loops, and the approval pause.
import { HTTP_NODE_LIMITS, type FlowDocument, type FlowInput, type FlowNode } from "@/schemas/builder/builder";
import type { TracePassage } from "@/schemas/runs/runtime";
import { inputSchemaOf } from "@/schemas/builder/flow-graph";
import { invalidRequest } from "@/server/errors";
import { schemaProblems } from "./json-schema";
import { forTrace, RUN_LIMITS, runLimitExceeded } from "./limits";
import { BUILTIN_MODEL_ID, runModel } from "./models";
import { missingNote, tracePassages } from "./retrieval/passages";
import { render, show, type TemplateScope } from "./templates";
import { offlineStepInput } from "./offline-step";
import {
  chooseBranch,
  codeNode,
  dataOf,
  eachLimited,
  httpRequest,
  loopItems,
  nodeFailed,
  nodeResult,
  variableValue,
} from "./flow-nodes";
import {
  ApprovalPause,
  checkpoint,
  isApprovalPause,
  step,
  type RunContext,
  type Runnable,
  type TraceEntry,
} from "./run-context";
import { answer, retrieveOnce, type Bound } from "./run-calls";

/** A conversational message becomes a flow's inputs: the first text input gets the message. */
export function inputsFromMessage(flow: FlowDocument, message: string): Record<string, unknown> {
  const text = flow.inputs.find((input) => input.type === "text" || input.type === "") ?? flow.inputs[0];
  return text ? { [text.key]: message } : {};
}

export function checkFlowInputs(flow: FlowDocument, inputs: Record<string, unknown>): void {
  const problems = schemaProblems(inputSchemaOf(flow.inputs as FlowInput[]), inputs);
  if (problems.length) invalidFlowInputs(problems);
}

function invalidFlowInputs(problems: { pointer: string; message: string }[]): never {
  throw invalidRequest(
    problems.map((p) => ({ path: `inputs${p.pointer.replace(/\//g, ".")}`.replace(/\.$/, ""), message: p.message })),
  );
}

/** What one node did: its output, and for a condition the nodes its branch names. */
interface NodeRun {
  output: string;
  next?: string[];
}

/** What one node's type made of it: its output, and what its trace says beside the output. */
interface NodeOutcome {
  output: string;
  next?: string[];
  /** What the step was given, where it is more than its data: a model's prompt, a search's query. */
  input?: string;
  note?: string;
  passages?: string[];
  found?: TracePassage[];
  tokens?: Pick<TraceEntry, "inputTokens" | "outputTokens">;
}

/** How a node's type reads its data: the node, where it is (for errors), its bounds and its texts rendered. */
interface NodeTurn {
  ctx: RunContext;
  doc: FlowDocument;
  node: FlowNode;
  scope: TemplateScope;
  where: string;
  label: string;
  data: Record<string, unknown>;
  nodeLimit: Bound;
  tooLong: () => never;
  text: (key: string) => string;
}

/**
 * Runs one node against the run's scope: bounded as a step, its output bounded as it is
 * produced, kept in the scope for the nodes after it and traced. `label` names a loop's body
 * node by its iteration (`each[3].fetch`).
 */
async function runNode(
  ctx: RunContext,
  doc: FlowDocument,
  node: FlowNode,
  scope: TemplateScope,
  label = node.id,
): Promise<NodeRun> {
  const where = `node "${label}" of flow "${doc.name}"`;
  step(ctx, where);
  const nodeStarted = performance.now();
  const data = node.data as Record<string, unknown>;
  const maxOutput = node.type === "http_request" ? HTTP_NODE_LIMITS.answerBytes : RUN_LIMITS.nodeOutputChars;
  const nodeLimit: Bound = { max: maxOutput, bound: "node output", where };
  const tooLong = (): never => {
    throw runLimitExceeded("node output", where);
  };
  const text = (key: string) => render(String(data[key] ?? ""), scope, RUN_LIMITS.nodeOutputChars, tooLong);
  const turn: NodeTurn = { ctx, doc, node, scope, where, label, data, nodeLimit, tooLong, text };
  const { output, next, input, note, passages, found, tokens = {} } = await nodeOutcome(turn);
  checkpoint(ctx);
  if (output.length > maxOutput) tooLong();
  ctx.used.outputChars += output.length;
  if (ctx.used.outputChars > RUN_LIMITS.runOutputChars) throw runLimitExceeded("run output", where);
  scope.nodes[node.id] = nodeResult(output);
  ctx.trace.push({
    id: node.id,
    kind: "node",
    name: `${doc.name} › ${label} (${node.type})`,
    ...(passages ? { passages } : {}),
    ...(found?.length ? { retrieved: found } : {}),
    ...(input !== undefined ? { input: forTrace(input) } : {}),
    ...(note ? { note } : {}),
    output: forTrace(output),
    ...tokens,
    latencyMs: Math.round(performance.now() - nodeStarted),
  });
  return { output, next };
}

/** What the node's type does with the run's scope. */
async function nodeOutcome(turn: NodeTurn): Promise<NodeOutcome> {
  const { ctx, doc, node, scope, where, label, tooLong, text } = turn;
  switch (node.type) {
    case "trigger_start":
      return { output: JSON.stringify(scope.inputs) };
    case "llm":
      return llmOutcome(turn);
    case "knowledge_search":
      return knowledgeSearchOutcome(turn);
    case "template":
      return { output: text("template") };
    case "output":
      return { output: text("value") };
    case "condition": {
      const branch = chooseBranch(node, where, scope);
      return { output: branch.name, next: branch.next, note: `took branch "${branch.name}"` };
    }
    case "set_variable": {
      const { name, value } = variableValue(node, where, scope, tooLong);
      const output = show(value);
      if (output.length > RUN_LIMITS.nodeOutputChars) tooLong();
      (scope.vars ??= {})[name] = value;
      return { output };
    }
    case "loop":
      return { output: await runLoop(ctx, doc, node, scope, where, label) };
    case "http_request": {
      const http = {
        organizationId: ctx.organizationId,
        signal: ctx.signal,
        findConnection: (slug: string) =>
          ctx.db.mcpConnection.findFirst({
            where: { organizationId: ctx.organizationId, slug },
            select: { url: true, headersCiphertext: true },
          }),
      };
      return httpRequest(http, node, where, scope, tooLong);
    }
    case "code":
      return { output: await codeNode(node, where, scope) };
    case "approval":
      return approvalOutcome(turn);
    default:
      throw nodeFailed(node, where, `unknown node type "${node.type}"`);
  }
}

/**
 * A model's answer to the node's prompt (the offline model reads the step's own input); the
 * trace shows the prompt as rendered either way.
 */
async function llmOutcome({ ctx, data, scope, nodeLimit, text }: NodeTurn): Promise<NodeOutcome> {
  const model = await runModel(ctx, typeof data.model === "string" ? data.model : BUILTIN_MODEL_ID);
  const prompt = String(data.prompt ?? "");
  const asked =
    model.id === BUILTIN_MODEL_ID ? offlineStepInput(prompt, scope) : { message: text("prompt"), knowledge: [] };
  const { text: output, tokens } = await answer(ctx, [model], { system: "", history: [], ...asked }, nodeLimit);
  const input = model.id === BUILTIN_MODEL_ID ? renderedForTrace(prompt, scope) : asked.message;
  return { input, output, tokens };
}

/** A template as rendered, for the trace; past what the trace keeps, the template's own start. */
function renderedForTrace(template: string, scope: TemplateScope): string {
  const past = new RangeError("past what the trace keeps");
  try {
    return render(template, scope, RUN_LIMITS.traceOutputChars, () => {
      throw past;
    });
  } catch (error) {
    if (error !== past) throw error;
    return `${template.slice(0, RUN_LIMITS.traceOutputChars)}… (longer rendered than the trace keeps)`;
  }
}

/** The passages the node's query finds, kept in the scope for the nodes after it. */
async function knowledgeSearchOutcome({ ctx, node, data, scope, text }: NodeTurn): Promise<NodeOutcome> {
  const query = text("query");
  const retrieved = await retrieveOnce(ctx, [String(data.knowledgebaseId)], query);
  (scope.passages ??= {})[node.id] = retrieved.passages;
  return {
    input: query,
    note: missingNote(retrieved.missing),
    output: retrieved.passages.map((p) => `${p.title}: ${p.text}`).join("\n\n"),
    passages: retrieved.passages.map((p) => p.title),
    found: tracePassages(retrieved.passages),
  };
}

/**
 * An approval: the decision a continued run waited for gives the approver's comment; a run that
 * cannot pause passes it; any other run pauses here (ApprovalPause) with its scope.
 */
function approvalOutcome({ ctx, node, data, scope, where, text }: NodeTurn): NodeOutcome {
  const { timeoutMinutes } = dataOf(node, "approval", where);
  const resume = ctx.resume;
  if (resume?.taken && !resume.passed && resume.nodeId === node.id && resume.scope === scope) {
    // The decision this run waited for: approved, with the approver's comment as the output.
    resume.passed = true;
    return { output: resume.comment, note: "approved" };
  }
  if (!ctx.pausable) return { output: "", note: "not waited for: a test run or preview passes approvals" };
  const name = typeof data.title === "string" && data.title ? data.title : node.id;
  const snapshot = JSON.parse(JSON.stringify(scope)) as TemplateScope;
  throw new ApprovalPause(node.id, name, text("message"), timeoutMinutes, snapshot);
}

/**
 * A loop node: its body runs in order for each item (at most MAX_LOOP_CONCURRENCY items at
 * once), each iteration seeing the nodes before the loop, its own earlier body nodes and
 * `loop.item`/`loop.index`. The output is a JSON array of each iteration's last output (parsed
 * when it is JSON).
 */
async function runLoop(
  ctx: RunContext,
  doc: FlowDocument,
  node: FlowNode,
  scope: TemplateScope,
  where: string,
  label: string,
): Promise<string> {
  const items = loopItems(node, where, scope);
  const { body, concurrency } = dataOf(node, "loop", where);
  const results = await eachLimited(items, concurrency, async (item, index) => {
    const iteration: TemplateScope = {
      ...scope,
      nodes: { ...scope.nodes },
      passages: { ...scope.passages },
      loop: { item, index },
    };
    let last = "";
    for (const inner of body) {
      const innerNode: FlowNode = { ...inner, blocks: [] };
      last = (await runNode(ctx, doc, innerNode, iteration, `${label}[${index}].${inner.id}`)).output;
    }
    const result = nodeResult(last);
    return "json" in result ? result.json : last;
  });
  return JSON.stringify(results);
}

/**
 * Runs a flow's nodes: in array order, unless a node's `data.next` (or a condition's branch)
 * names the next one(s). Each node's output is bounded as it is produced, and so are the run's
 * steps and total output.
 */
export async function runFlow(
  ctx: RunContext,
  flow: Runnable<FlowDocument>,
  inputs: Record<string, unknown>,
): Promise<string> {
  const started = performance.now();
  const doc = flow.document;
  checkFlowInputs(doc, inputs);
  const index = new Map(doc.nodes.map((node, i) => [node.id, i]));
  // A flow continuing after its approval starts at that node, with the scope it paused with.
  const resume = ctx.resume && !ctx.resume.taken && ctx.resume.flowId === flow.id ? ctx.resume : null;
  if (resume) resume.taken = true;
  const scope: TemplateScope = resume ? resume.scope : { inputs, nodes: {}, vars: {} };
  const queue = resume
    ? [index.get(resume.nodeId) ?? doc.nodes.length]
    : [
        Math.max(
          0,
          doc.nodes.findIndex((node) => node.type === "trigger_start"),
        ),
      ];
  let result = "";
  while (queue.length > 0) {
    const node = doc.nodes[queue.shift()!];
    if (!node) continue;
    const ran = await runNode(ctx, doc, node, scope).catch((error: unknown) => {
      if (isApprovalPause(error) && !error.flowId) {
        error.flowId = flow.id;
        error.flowName = doc.name;
      }
      throw error;
    });
    if (node.type === "output") {
      result = ran.output;
      break;
    }
    const declared = node.data.next;
    const next =
      ran.next?.map((id) => index.get(id) ?? -1) ??
      (declared === undefined
        ? [index.get(node.id)! + 1]
        : (Array.isArray(declared) ? declared : [declared]).map((id) => index.get(String(id)) ?? -1));
    queue.push(...next.filter((i) => i >= 0 && i < doc.nodes.length));
  }
  ctx.trace.push({
    id: flow.id,
    kind: "flow",
    name: doc.name,
    versionId: flow.versionId,
    output: forTrace(result),
    latencyMs: Math.round(performance.now() - started),
  });
  return result;
}
