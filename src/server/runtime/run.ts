// Running published (or, for tests, draft) agents, flows and apps. Every run records a trace
// of what each member and node did; the app runner orchestrates members by the app's mode and
// has the adviser (or the built-in supervisor) synthesize one reply.
import {
  HTTP_NODE_LIMITS,
  type AgentDocument,
  type AppDocument,
  type FlowDocument,
  type FlowInput,
  type FlowNode,
} from "@/schemas/builder/builder";
import { setTimeout as sleep } from "node:timers/promises";
import type { TracePassage } from "@/schemas/runs/runtime";
import { inputSchemaOf } from "@/schemas/builder/flow-graph";
import type { Db } from "@/server/db";
import { AppError, invalidRequest, isAppError } from "@/server/errors";
import { logProviderFailure } from "@/server/observability/operator-log";
import { schemaProblems } from "./json-schema";
import { appendBounded, forStep, forTrace, RUN_LIMITS, runLimitExceeded, type RunBound } from "./limits";
import {
  BUILTIN_MODEL_ID,
  modelFor,
  type AnswerInput,
  type ChatModel,
  type Passage,
  type ProviderRow,
  type Turn,
} from "./models";
import type { ReportedUsage, RouteCandidate, TurnImage } from "./model-types";
import { estimateTokens, Meter, type CallOutcome, type ModelCall } from "./metering";
import { boundedTool, flowTool, knowledgeTools, toolName, type AgentTool } from "./agent-tools";
import { builtInTools } from "./built-ins";
import { Citations } from "./citations";
import { integrationTools } from "./mcp-tools";
import { missingNote, retrievePassages, tracePassages, type Retrieved } from "./retrieval/passages";
import { render, show, type TemplateScope } from "./templates";
import { routeInputTokens } from "./offline-model";
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
import { overlap } from "./text";
import { mayRetry, modelsToTry, noteFailure, noteSuccess, retryDelayMs } from "./fallbacks";

export interface TraceEntry {
  id: string;
  kind: "agent" | "flow" | "node" | "adviser" | "supervisor" | "tool";
  name: string;
  versionId?: string | null;
  model?: string;
  passages?: string[];
  /** Where the retrieved passages were found, and how each starts. */
  retrieved?: TracePassage[];
  /** A tool call's arguments (JSON, truncated). */
  input?: string;
  /** Why an entry found or did less than asked (e.g. a knowledgebase not found in the organization). */
  note?: string;
  output: string;
  /** The tokens of this step's model call, as its model reported them. */
  inputTokens?: number;
  outputTokens?: number;
  latencyMs: number;
}

export interface RunContext {
  db: Db;
  /** Every read a run makes is scoped to this organization. */
  organizationId: string;
  /** Aborted when the client cancels or the run's time is up. */
  signal: AbortSignal;
  trace: TraceEntry[];
  /** What the run has used of its bounds so far. */
  used: { steps: number; outputChars: number; startedAt: number };
  timeout: AbortSignal;
  cancel?: AbortSignal;
  /** Told when an app member starts and ends (the stream's `step` events). */
  onStep?: (step: RunStep) => void;
  /** The run's searches by knowledgebases and query: members asked the same over the same knowledge search once. */
  retrievals: Map<string, Promise<Retrieved>>;
  /** The organization's model providers, when read with the app (runtime/load.ts); else each search reads them. */
  providers?: ProviderRow[];
  /** The passages the run's answers cite, numbered in the order first cited. */
  citations: Citations;
  /** The text of files attached to the turn, as passages every agent of the run reads and cites. */
  attachments?: Passage[];
  /** Images attached to the turn, given to the models that accept images. */
  images?: TurnImage[];
  /** The run's model calls and their tokens: what a priced run is charged for (billed-run.ts). */
  meter: Meter;
  /** The app members that gave their reply, by id: kept when the run pauses for an approval. */
  finishedMembers: Record<string, string>;
  /** A run continuing after an approval (services/runs/approvals.ts): where it paused, and the decision. */
  resume?: ResumePoint;
  /**
   * Whether an approval node pauses the run: conversations and transactions, which can record
   * the pause and continue later. Test runs and previews pass approvals, saying so in the trace.
   */
  pausable?: boolean;
}

/** Where an approved run continues: the paused flow's node and scope, and the members that had replied. */
export interface ResumePoint {
  flowId: string;
  nodeId: string;
  scope: TemplateScope;
  /** The approver's comment: the approval node's output. */
  comment: string;
  finishedMembers: Record<string, string>;
  /** Set once the paused flow took up its saved scope: a later run of that flow starts afresh. */
  taken?: boolean;
  /** Set once the approval node gave its output: any later approval waits again. */
  passed?: boolean;
}

/**
 * Thrown when a flow reaches an `approval` node: the run stops there and its caller records it as
 * `awaiting_approval` with everything needed to continue (services/runs/approval-pause.ts).
 */
export class ApprovalPause extends Error {
  override readonly name = "ApprovalPause";
  flowId = "";
  flowName = "";
  constructor(
    readonly nodeId: string,
    readonly nodeName: string,
    /** The node's message, rendered from the run's variables. */
    readonly approvalMessage: string,
    readonly timeoutMinutes: number,
    readonly scope: TemplateScope,
  ) {
    super(`The run waits for an approval at node "${nodeId}".`);
  }
}

export function isApprovalPause(error: unknown): error is ApprovalPause {
  return error instanceof Error && error.name === "ApprovalPause";
}

/** What a stream's `step` event carries: one when a member starts, one when it ends. */
export interface RunStep {
  kind: "member" | "tool" | "approval";
  name: string;
  status: "started" | "finished" | "failed" | "waiting";
  output?: string;
}

/** A run's context: its organization, its bounds, and a signal that fires on cancel or time-out. */
export function newRunContext(db: Db, organizationId: string, cancel?: AbortSignal): RunContext {
  const timeout = AbortSignal.timeout(Math.max(RUN_LIMITS.runMs, 0));
  return {
    db,
    organizationId,
    signal: cancel ? AbortSignal.any([cancel, timeout]) : timeout,
    trace: [],
    used: { steps: 0, outputChars: 0, startedAt: performance.now() },
    timeout,
    cancel,
    retrievals: new Map(),
    citations: new Citations(),
    meter: new Meter(organizationId),
    finishedMembers: {},
  };
}

export interface Runnable<D> {
  id: string;
  versionId: string | null;
  document: D;
}

/** How well a message must match an attached flow's description for the agent to call it. */
const FLOW_TOOL_MATCH = 0.5;

function systemPrompt(agent: AgentDocument, extra = ""): string {
  const { identity } = agent;
  const lines = [
    identity.role && `You are ${identity.role}.`,
    identity.summary,
    identity.goals.length ? `Goals:\n- ${identity.goals.join("\n- ")}` : "",
    identity.personaTraits.length ? `Persona: ${identity.personaTraits.join(", ")}.` : "",
    identity.outOfScope.length ? `Out of scope (decline politely):\n- ${identity.outOfScope.join("\n- ")}` : "",
    identity.guardrails.length ? `Guardrails (always follow):\n- ${identity.guardrails.join("\n- ")}` : "",
    agent.systemInstruction,
    extra,
  ];
  return lines.filter(Boolean).join("\n\n");
}

/**
 * The passages for a query, searched once per run: the members of a broadcast or sequential app
 * that share a knowledgebase are asked the same message, and get the same passages.
 */
function retrieveOnce(ctx: RunContext, knowledgebaseIds: string[], query: string): Promise<Retrieved> {
  const key = JSON.stringify([knowledgebaseIds, query]);
  let retrieved = ctx.retrievals.get(key);
  if (!retrieved) {
    retrieved = retrievePassages(ctx.db, ctx.organizationId, knowledgebaseIds, query, ctx.providers);
    ctx.retrievals.set(key, retrieved);
  }
  return retrieved;
}

/** The end of a run stopped by its cancel endpoint (services/runs/conversation-runs.ts). */
export function runCanceled(): AppError {
  return new AppError("canceled", "The run was canceled.");
}

/** Throws when the run was canceled or the run's time is up. */
function checkpoint(ctx: RunContext): void {
  if (ctx.cancel?.aborted) throw runCanceled();
  if (ctx.timeout.aborted || performance.now() - ctx.used.startedAt > RUN_LIMITS.runMs) throw runLimitExceeded("time");
}

/** Counts one step (a node, an agent's answer) against the run's bound. */
function step(ctx: RunContext, where: string): void {
  checkpoint(ctx);
  if (++ctx.used.steps > RUN_LIMITS.steps) throw runLimitExceeded("steps", where);
}

/** A model call: a cancel or time-out says so, any other failure is the provider's. */
async function modelCall<T>(ctx: RunContext, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isAppError(error)) throw error;
    checkpoint(ctx);
    logProviderFailure({ organizationId: ctx.organizationId, provider: "model", err: error });
    throw new AppError(
      "provider_error",
      "The model provider failed or timed out. It is safe to retry later.",
      {},
      { cause: error },
    );
  }
}

interface Bound {
  max: number;
  bound: RunBound;
  where: string;
}

/**
 * A model call recorded on the run's meter when it ends, answered or not, with the usage its
 * model reported (tool-calling rounds summed by the model).
 */
async function metered<T>(
  ctx: RunContext,
  model: ChatModel,
  call: (onUsage: (usage: ReportedUsage) => void) => Promise<T>,
): Promise<{ result: T; call: ModelCall }> {
  let usage: ReportedUsage | undefined;
  const onUsage = (reported: ReportedUsage) => (usage = reported);
  try {
    const result = await call(onUsage);
    return { result, call: ctx.meter.record(model, usage, "succeeded") };
  } catch (error) {
    const outcome: CallOutcome = ctx.cancel?.aborted ? "canceled" : "failed";
    ctx.meter.record(model, usage, outcome);
    throw error;
  }
}

/**
 * A model's answer, streamed to `onDelta`, refused as soon as it would outgrow its bound. A call
 * that fails before any output is retried once, then the next of `models` (an agent's fallbacks)
 * is called (fallbacks.ts), skipping a model whose circuit is open; every attempt is on the run's
 * meter. Answers which model answered.
 */
async function answer(
  ctx: RunContext,
  models: [ChatModel, ...ChatModel[]],
  input: Omit<AnswerInput, "signal" | "onUsage">,
  limit: Bound,
  onDelta?: (text: string) => void,
): Promise<{ text: string; model: ChatModel; tokens: Pick<TraceEntry, "inputTokens" | "outputTokens"> }> {
  const estimated = estimateTokens(
    input.system,
    ...input.knowledge.map((passage) => passage.text),
    ...input.history.map((turn) => turn.content),
    input.message,
  );
  let failure: unknown;
  for (const model of modelsToTry(ctx.organizationId, models)) {
    for (let attempt = 1; attempt <= 2; attempt++) {
      let streamed = false;
      const passOn = (piece: string) => {
        streamed = true;
        onDelta?.(piece);
      };
      try {
        const answered = await answerOnce(ctx, model, input, estimated, limit, passOn);
        noteSuccess(ctx.organizationId, model.id);
        return { ...answered, model };
      } catch (error) {
        // Once output has streamed there is no going back; a run's own failure is not the provider's.
        if (streamed || !mayRetry(error) || ctx.signal.aborted) throw error;
        noteFailure(ctx.organizationId, model.id);
        failure = error;
        ctx.meter.release(model.id, estimated);
        if (attempt === 1) await pause(ctx, retryDelayMs(error));
      }
    }
  }
  throw failure;
}

/**
 * The supervisor's routing call, metered like an answer: its ceiling reserved before it is made
 * (on a priced model), its tokens recorded on the run's meter whether it answers or fails.
 */
async function route(
  ctx: RunContext,
  model: ChatModel,
  input: { message: string; instructions: string; candidates: RouteCandidate[] },
): Promise<{ picked: string[]; tokens: Pick<TraceEntry, "inputTokens" | "outputTokens"> }> {
  await ctx.meter.reserve(model.id, routeInputTokens(input));
  return modelCall(ctx, async () => {
    const { result, call } = await metered(ctx, model, (onUsage) =>
      model.route({ ...input, signal: ctx.signal, onUsage }),
    );
    return { picked: result, tokens: { inputTokens: call.inputTokens, outputTokens: call.outputTokens } };
  });
}

/** Waits before a retry; a cancel or the run's time-out ends the wait (and the run). */
async function pause(ctx: RunContext, ms: number): Promise<void> {
  if (ms > 0) await sleep(ms, undefined, { signal: ctx.signal }).catch(() => undefined);
  checkpoint(ctx);
}

/** One call of one model: a priced model's ceiling is reserved first (a refusal makes no call), and its output capped at it. */
async function answerOnce(
  ctx: RunContext,
  model: ChatModel,
  input: Omit<AnswerInput, "signal" | "onUsage">,
  estimated: number,
  limit: Bound,
  onDelta: (text: string) => void,
): Promise<{ text: string; tokens: Pick<TraceEntry, "inputTokens" | "outputTokens"> }> {
  let call: ModelCall | undefined;
  const maxOutputTokens = await ctx.meter.reserve(model.id, estimated);
  const beforeStep = async (tokens: number) => void (await ctx.meter.reserve(model.id, tokens));
  const text = await modelCall(ctx, async () => {
    const done = await metered(ctx, model, async (onUsage) => {
      let text = "";
      for await (const piece of model.answer({ ...input, signal: ctx.signal, onUsage, maxOutputTokens, beforeStep })) {
        text = appendBounded(text, piece, limit.max, limit.bound, limit.where);
        onDelta(piece);
      }
      checkpoint(ctx);
      return text;
    });
    call = done.call;
    return done.result;
  });
  return { text, tokens: { inputTokens: call?.inputTokens, outputTokens: call?.outputTokens } };
}

/** The reply a run hands back, within its bound. */
export function boundedReply(text: string): string {
  if (text.length > RUN_LIMITS.replyChars) throw runLimitExceeded("reply");
  return text;
}

/**
 * An agent answers from its knowledge. On a provider model its attached flows and knowledge are
 * tools the model calls (agent-tools.ts); on the offline model a flow whose description matches
 * the message runs first and its output joins the agent's knowledge.
 */
export async function runAgent(
  ctx: RunContext,
  agent: Runnable<AgentDocument>,
  message: string,
  history: Turn[],
  options: {
    flows?: Runnable<FlowDocument>[];
    /** More tools for a provider model (an adviser's members). */
    tools?: AgentTool[];
    extraKnowledge?: Passage[];
    extraSystem?: string;
    onDelta?: (text: string) => void;
    traceKind?: "agent" | "adviser";
    /** The bound on the answer; by default it is the run's reply. */
    limit?: { max: number; bound: RunBound };
  } = {},
): Promise<string> {
  const started = performance.now();
  const doc = agent.document;
  step(ctx, `agent "${doc.name}"`);
  const knowledgebaseIds = doc.knowledge.map((k) => k.knowledgebaseId);
  const retrieved = await retrieveOnce(ctx, knowledgebaseIds, message);
  const knowledge = [...(ctx.attachments ?? []), ...(options.extraKnowledge ?? []), ...retrieved.passages];
  const model = await modelFor(ctx.db, ctx.organizationId, doc.model);
  const fallbacks = await Promise.all((doc.fallbackModels ?? []).map((id) => modelFor(ctx.db, ctx.organizationId, id)));
  const tools: AgentTool[] = [];
  if (model.callsTools) {
    // A provider model decides which tools to call, and with which arguments.
    const taken = new Set((options.tools ?? []).map((tool) => tool.name));
    for (const flow of options.flows ?? []) tools.push(flowTool(flow, taken, (inputs) => runFlow(ctx, flow, inputs)));
    tools.push(...knowledgeTools(ctx, knowledgebaseIds, taken), ...builtInTools(doc.builtIns, taken));
    tools.push(...(await integrationTools(ctx, ctx.signal, doc.integrations, taken)), ...(options.tools ?? []));
  } else {
    // The offline model calls a flow whose description matches the message's words.
    for (const flow of options.flows ?? []) {
      if (overlap(message, `${flow.document.name} ${flow.document.description}`) >= FLOW_TOOL_MATCH) {
        const output = await runFlow(ctx, flow, inputsFromMessage(flow.document, message));
        knowledge.unshift({ title: `Flow ${flow.document.name}`, text: output });
      }
    }
  }
  checkpoint(ctx);
  const limit = {
    ...(options.limit ?? { max: RUN_LIMITS.replyChars, bound: "reply" as const }),
    where: `agent "${doc.name}"`,
  };
  const hasKnowledge = knowledgebaseIds.length > 0 || knowledge.length > 0;
  const cite = (passage: Passage) => ctx.citations.number(passage);
  const input = {
    system: systemPrompt(doc, options.extraSystem),
    history,
    message,
    knowledge,
    hasKnowledge,
    cite,
    ...(ctx.images?.length ? { images: ctx.images } : {}),
    tools: tools.map((tool) => boundedTool(ctx, tool, (where) => step(ctx, where))),
  };
  const { text, tokens, model: answered } = await answer(ctx, [model, ...fallbacks], input, limit, options.onDelta);
  // Attached flows run at their live versions in the organization; say which were not found.
  const missingFlows = options.flows ? doc.flows.filter((id) => !options.flows!.some((flow) => flow.id === id)) : [];
  const notes = [
    missingNote(retrieved.missing),
    missingFlows.length
      ? `flow ${missingFlows.join(", ")} not found (or not published) in this organization; not run`
      : undefined,
  ];
  const note = notes.filter(Boolean).join("; ") || undefined;
  ctx.trace.push({
    id: agent.id,
    kind: options.traceKind ?? "agent",
    name: doc.name,
    versionId: agent.versionId,
    model: answered.id,
    passages: knowledge.map((p) => p.title),
    ...(retrieved.passages.length ? { retrieved: tracePassages(retrieved.passages) } : {}),
    ...(note ? { note } : {}),
    output: forTrace(text),
    ...tokens,
    latencyMs: Math.round(performance.now() - started),
  });
  return text;
}

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
  let output: string;
  let next: string[] | undefined;
  let note: string | undefined;
  let passages: string[] | undefined;
  let found: TracePassage[] | undefined;
  let tokens: Pick<TraceEntry, "inputTokens" | "outputTokens"> = {};
  switch (node.type) {
    case "trigger_start":
      output = JSON.stringify(scope.inputs);
      break;
    case "llm": {
      const model = await modelFor(
        ctx.db,
        ctx.organizationId,
        typeof data.model === "string" ? data.model : BUILTIN_MODEL_ID,
      );
      const asked =
        model.id === BUILTIN_MODEL_ID
          ? offlineStepInput(String(data.prompt ?? ""), scope)
          : { message: text("prompt"), knowledge: [] };
      ({ text: output, tokens } = await answer(ctx, [model], { system: "", history: [], ...asked }, nodeLimit));
      break;
    }
    case "knowledge_search": {
      const retrieved = await retrieveOnce(ctx, [String(data.knowledgebaseId)], text("query"));
      note = missingNote(retrieved.missing);
      output = retrieved.passages.map((p) => `${p.title}: ${p.text}`).join("\n\n");
      passages = retrieved.passages.map((p) => p.title);
      (scope.passages ??= {})[node.id] = retrieved.passages;
      found = tracePassages(retrieved.passages);
      break;
    }
    case "template":
      output = text("template");
      break;
    case "output":
      output = text("value");
      break;
    case "condition": {
      const branch = chooseBranch(node, where, scope);
      output = branch.name;
      next = branch.next;
      note = `took branch "${branch.name}"`;
      break;
    }
    case "set_variable": {
      const { name, value } = variableValue(node, where, scope, tooLong);
      output = show(value);
      if (output.length > RUN_LIMITS.nodeOutputChars) tooLong();
      (scope.vars ??= {})[name] = value;
      break;
    }
    case "loop":
      output = await runLoop(ctx, doc, node, scope, where, label);
      break;
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
      ({ output, note } = await httpRequest(http, node, where, scope, tooLong));
      break;
    }
    case "code":
      output = await codeNode(node, where, scope);
      break;
    case "approval": {
      const { timeoutMinutes } = dataOf(node, "approval", where);
      const resume = ctx.resume;
      if (resume?.taken && !resume.passed && resume.nodeId === node.id && resume.scope === scope) {
        // The decision this run waited for: approved, with the approver's comment as the output.
        resume.passed = true;
        output = resume.comment;
        note = "approved";
        break;
      }
      if (!ctx.pausable) {
        output = "";
        note = "not waited for: a test run or preview passes approvals";
        break;
      }
      const name = typeof data.title === "string" && data.title ? data.title : node.id;
      const snapshot = JSON.parse(JSON.stringify(scope)) as TemplateScope;
      throw new ApprovalPause(node.id, name, text("message"), timeoutMinutes, snapshot);
    }
    default:
      throw nodeFailed(node, where, `unknown node type "${node.type}"`);
  }
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
    ...(note ? { note } : {}),
    output: forTrace(output),
    ...tokens,
    latencyMs: Math.round(performance.now() - nodeStarted),
  });
  return { output, next };
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

export type Member =
  | { kind: "agent"; runnable: Runnable<AgentDocument>; flows: Runnable<FlowDocument>[] }
  | { kind: "flow"; runnable: Runnable<FlowDocument> };

export interface AppRun {
  app: Runnable<AppDocument>;
  adviser: { runnable: Runnable<AgentDocument>; flows: Runnable<FlowDocument>[] } | null;
  members: Member[];
  /** The organization's model providers, read in the same statement as the app's live version. */
  providers?: ProviderRow[];
}

interface MemberRunOptions {
  flowInputs?: Record<string, unknown>;
  onDelta?: (text: string) => void;
}

/** runMemberOnce, with the member's steps reported and its reply kept for a run that continues. */
async function runMember(...args: Parameters<typeof runMemberOnce>): Promise<Passage> {
  const [ctx, member] = args;
  const name = member.runnable.document.name;
  // A member that replied before the run paused for an approval is not run again when it continues.
  const earlierReply = ctx.resume?.finishedMembers[member.runnable.id];
  if (earlierReply !== undefined) {
    ctx.finishedMembers[member.runnable.id] = earlierReply;
    return { title: name, text: earlierReply };
  }
  ctx.onStep?.({ kind: "member", name, status: "started" });
  try {
    const passage = await runMemberOnce(...args);
    ctx.onStep?.({ kind: "member", name, status: "finished", output: forStep(passage.text) });
    ctx.finishedMembers[member.runnable.id] = passage.text;
    return passage;
  } catch (error) {
    if (!isApprovalPause(error)) ctx.onStep?.({ kind: "member", name, status: "failed" });
    throw error;
  }
}

async function runMemberOnce(
  ctx: RunContext,
  member: Member,
  message: string,
  history: Turn[],
  earlier: Passage[],
  options: MemberRunOptions = {},
): Promise<Passage> {
  const name = member.runnable.document.name;
  // A member that streams straight to the client is the reply, and bounded as one.
  const limit = options.onDelta
    ? { max: RUN_LIMITS.replyChars, bound: "reply" as const }
    : { max: RUN_LIMITS.memberOutputChars, bound: "member output" as const };
  if (member.kind === "agent") {
    return {
      title: name,
      text: await runAgent(ctx, member.runnable, message, history, {
        flows: member.flows,
        extraKnowledge: earlier,
        onDelta: options.onDelta,
        limit,
      }),
    };
  }
  const text = await runFlow(
    ctx,
    member.runnable,
    options.flowInputs ?? inputsFromMessage(member.runnable.document, message),
  );
  if (text.length > limit.max) throw runLimitExceeded(limit.bound, `flow "${name}"`);
  options.onDelta?.(text);
  return { title: name, text };
}

/** What an adviser asks an agent member. */
const MEMBER_MESSAGE = {
  type: "object",
  properties: { message: { type: "string", description: "What to ask this team member, with the context it needs" } },
  required: ["message"],
  additionalProperties: false,
};

/**
 * An app's members as a provider adviser's tools, at their pinned versions: an agent takes
 * `{ message }`, a flow its inputs. A call is bounded like any agent tool (agent-tools.ts) and
 * shown in the stream as the member it runs.
 */
function memberTools(ctx: RunContext, members: Member[], history: Turn[]): AgentTool[] {
  const taken = new Set<string>();
  return members.map((member): AgentTool => {
    const doc = member.runnable.document;
    const shownAs = { kind: "member" as const, name: doc.name };
    // The member's model calls end with the call's own time bound, not only the run's.
    const within = (signal: AbortSignal): RunContext => ({ ...ctx, signal });
    if (member.kind === "flow") {
      const run = async (inputs: Record<string, unknown>, signal: AbortSignal) =>
        (await runMemberOnce(within(signal), member, "", history, [], { flowInputs: inputs })).text;
      return { ...flowTool(member.runnable, taken, run), shownAs };
    }
    return {
      name: toolName(`ask_${doc.name}`, taken),
      description: doc.description || `Asks the agent "${doc.name}".`,
      parameters: MEMBER_MESSAGE,
      shownAs,
      run: async (args, signal) =>
        (await runMemberOnce(within(signal), member, String(args.message ?? ""), history, [])).text,
    };
  });
}

/** What a member's knowledge tells the offline router about a message (the passages are searched once per run). */
const ROUTE_KNOWLEDGE_CHARS = 4000;

/**
 * The members as routing candidates. For the offline router, an agent with knowledge also shows
 * what its knowledge holds about the message: the same search its run makes (retrieveOnce), so a
 * question its documents answer reaches it even when its description names other things.
 */
async function routeCandidates(
  ctx: RunContext,
  members: Member[],
  message: string,
  providerRouter: boolean,
): Promise<RouteCandidate[]> {
  return Promise.all(
    members.map(async (member): Promise<RouteCandidate> => {
      const { id, document } = member.runnable;
      const candidate = { id, name: document.name, description: document.description };
      if (providerRouter || member.kind !== "agent" || member.runnable.document.knowledge.length === 0)
        return candidate;
      const retrieved = await retrieveOnce(
        ctx,
        member.runnable.document.knowledge.map((k) => k.knowledgebaseId),
        message,
      );
      return {
        ...candidate,
        knowledge: retrieved.passages
          .map((p) => p.text)
          .join("\n")
          .slice(0, ROUTE_KNOWLEDGE_CHARS),
      };
    }),
  );
}

/**
 * One reply from an app: `supervisor` consults the members the adviser picks (a provider adviser
 * calls them as tools and answers itself), `sequential` runs every member in order (each seeing
 * the replies before it), `broadcast` runs all at once; then the adviser synthesizes (the
 * built-in supervisor when the app has none), streaming.
 */
export async function runApp(
  ctx: RunContext,
  run: AppRun,
  message: string,
  history: Turn[],
  options: { onDelta?: (text: string) => void; flowInputs?: Record<string, unknown> } = {},
): Promise<string> {
  const { onDelta, flowInputs } = options;
  const doc = run.app.document;
  ctx.providers ??= run.providers;
  const adviserModel = await modelFor(
    ctx.db,
    ctx.organizationId,
    run.adviser?.runnable.document.model ?? BUILTIN_MODEL_ID,
  );
  const goals = doc.goals && `The app's goals: ${doc.goals}`;
  if (doc.orchestrationMode === "supervisor" && run.adviser && adviserModel.callsTools) {
    // A provider adviser routes by tool call: it consults the members it chooses, then answers.
    const lead =
      "Your team members are your tools: consult those suited to the message (an agent with a message, a flow with its inputs), then answer the user from what they said.";
    const extraSystem = [goals, doc.adviserInstructions, lead].filter(Boolean).join("\n\n");
    return runAgent(ctx, run.adviser.runnable, message, history, {
      tools: memberTools(ctx, run.members, history),
      extraSystem,
      onDelta,
      traceKind: "adviser",
    });
  }
  let replies: Passage[] = [];
  // With no adviser, a lone member's reply is the answer: it streams straight to the client.
  const direct = (count: number) => ({ flowInputs, onDelta: !run.adviser && count === 1 ? onDelta : undefined });
  if (run.members.length > 0) {
    if (doc.orchestrationMode === "supervisor") {
      const started = performance.now();
      step(ctx, "routing");
      const candidates = await routeCandidates(ctx, run.members, message, adviserModel.callsTools);
      const routing = await route(ctx, adviserModel, {
        message,
        instructions: doc.adviserInstructions,
        candidates,
      });
      const chosen = run.members.filter((m) => routing.picked.includes(m.runnable.id)).slice(0, 2);
      ctx.trace.push({
        id: run.app.id,
        kind: "supervisor",
        name: "routing",
        model: adviserModel.id,
        output: chosen.map((m) => m.runnable.document.name).join(", "),
        ...routing.tokens,
        latencyMs: Math.round(performance.now() - started),
      });
      replies = await Promise.all(
        chosen.map((member) => runMember(ctx, member, message, history, [], direct(chosen.length))),
      );
    } else if (doc.orchestrationMode === "sequential") {
      for (const member of run.members)
        replies.push(await runMember(ctx, member, message, history, replies, direct(run.members.length)));
    } else {
      replies = await Promise.all(
        run.members.map((member) => runMember(ctx, member, message, history, [], direct(run.members.length))),
      );
    }
  }
  checkpoint(ctx);
  const guidance = [goals, doc.adviserInstructions, "Combine the team's replies into one answer for the user."]
    .filter(Boolean)
    .join("\n\n");
  if (run.adviser) {
    return runAgent(ctx, run.adviser.runnable, message, history, {
      extraKnowledge: replies,
      extraSystem: guidance,
      onDelta,
      traceKind: "adviser",
    });
  }
  // With no adviser and one reply there is nothing to combine: that reply (already streamed) is the answer.
  if (replies.length === 1) return boundedReply(replies[0]!.text);
  const started = performance.now();
  step(ctx, "built-in supervisor");
  const limit = { max: RUN_LIMITS.replyChars, bound: "reply" as const, where: "built-in supervisor" };
  const { text, tokens } = await answer(
    ctx,
    [adviserModel],
    { system: guidance, history, message, knowledge: replies, cite: (passage) => ctx.citations.number(passage) },
    limit,
    onDelta,
  );
  ctx.trace.push({
    id: run.app.id,
    kind: "supervisor",
    name: "built-in supervisor",
    model: adviserModel.id,
    output: forTrace(text),
    ...tokens,
    latencyMs: Math.round(performance.now() - started),
  });
  return text;
}
