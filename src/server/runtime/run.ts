// Running published (or, for tests, draft) agents, flows and apps. Every run records a trace
// of what each member and node did; the app runner orchestrates members by the app's mode and
// has the adviser (or the built-in supervisor) synthesize one reply.
import type { AgentDocument, AppDocument, FlowDocument, FlowInput } from "@/schemas/builder";
import { inputSchemaOf } from "@/schemas/flow-graph";
import type { Db } from "@/server/db";
import { AppError, invalidRequest } from "@/server/errors";
import { schemaProblems } from "./json-schema";
import { BUILTIN_MODEL_ID, modelFor, type Passage, type Turn } from "./models";
import { retrievePassages } from "./retrieval";
import { render, type TemplateScope } from "./templates";
import { overlap } from "./text";

export interface TraceEntry {
  id: string;
  kind: "agent" | "flow" | "node" | "adviser" | "supervisor";
  name: string;
  versionId?: string | null;
  model?: string;
  passages?: string[];
  output: string;
  latencyMs: number;
}

export interface RunContext {
  db: Db;
  signal?: AbortSignal;
  trace: TraceEntry[];
}

export interface Runnable<D> {
  id: string;
  versionId: string | null;
  document: D;
}

const MAX_FLOW_STEPS = 200;
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

function aborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new AppError("server_error", "The run was cancelled.");
}

/**
 * An agent answers from its knowledge. Attached flows are its tools: a flow whose description
 * matches the message runs first and its output joins the agent's knowledge.
 */
export async function runAgent(
  ctx: RunContext,
  agent: Runnable<AgentDocument>,
  message: string,
  history: Turn[],
  options: { flows?: Runnable<FlowDocument>[]; extraKnowledge?: Passage[]; extraSystem?: string; onDelta?: (text: string) => void; traceKind?: "agent" | "adviser" } = {},
): Promise<string> {
  const started = performance.now();
  const doc = agent.document;
  const knowledge = [...(options.extraKnowledge ?? []), ...(await retrievePassages(ctx.db, doc.knowledge.map((k) => k.knowledgebaseId), message))];
  for (const flow of options.flows ?? []) {
    if (overlap(message, `${flow.document.name} ${flow.document.description}`) >= FLOW_TOOL_MATCH) {
      const output = await runFlow(ctx, flow, inputsFromMessage(flow.document, message));
      knowledge.unshift({ title: `Flow ${flow.document.name}`, text: output });
    }
  }
  aborted(ctx.signal);
  const model = await modelFor(doc.model);
  let text = "";
  for await (const piece of model.answer({ system: systemPrompt(doc, options.extraSystem), history, message, knowledge, signal: ctx.signal })) {
    text += piece;
    options.onDelta?.(piece);
  }
  ctx.trace.push({
    id: agent.id,
    kind: options.traceKind ?? "agent",
    name: doc.name,
    versionId: agent.versionId,
    model: model.id,
    passages: knowledge.map((p) => p.title),
    output: text,
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
  throw invalidRequest(problems.map((p) => ({ path: `inputs${p.pointer.replace(/\//g, ".")}`.replace(/\.$/, ""), message: p.message })));
}

/** Runs a flow's nodes: in array order, unless a node's `data.next` names the next one(s). */
export async function runFlow(ctx: RunContext, flow: Runnable<FlowDocument>, inputs: Record<string, unknown>): Promise<string> {
  const started = performance.now();
  const doc = flow.document;
  checkFlowInputs(doc, inputs);
  const scope: TemplateScope = { inputs, nodes: {} };
  const index = new Map(doc.nodes.map((node, i) => [node.id, i]));
  const queue = [Math.max(0, doc.nodes.findIndex((node) => node.type === "trigger_start"))];
  let result = "";
  for (let steps = 0; queue.length > 0 && steps < MAX_FLOW_STEPS; steps++) {
    aborted(ctx.signal);
    const node = doc.nodes[queue.shift()!];
    if (!node) continue;
    const nodeStarted = performance.now();
    const data = node.data as Record<string, unknown>;
    const text = (key: string) => render(String(data[key] ?? ""), scope);
    let output = "";
    switch (node.type) {
      case "trigger_start":
        output = JSON.stringify(inputs);
        break;
      case "llm": {
        const model = await modelFor(typeof data.model === "string" ? data.model : BUILTIN_MODEL_ID);
        for await (const piece of model.answer({ system: "", history: [], message: text("prompt"), knowledge: [], signal: ctx.signal })) output += piece;
        break;
      }
      case "knowledge_search": {
        const passages = await retrievePassages(ctx.db, [String(data.knowledgebaseId)], text("query"));
        output = passages.map((p) => `${p.title}: ${p.text}`).join("\n\n");
        break;
      }
      case "template":
        output = text("template");
        break;
      case "output":
        output = text("value");
        result = output;
        break;
    }
    scope.nodes[node.id] = { output };
    ctx.trace.push({ id: node.id, kind: "node", name: `${doc.name} › ${node.id} (${node.type})`, output, latencyMs: Math.round(performance.now() - nodeStarted) });
    if (node.type === "output") break;
    const next = data.next === undefined ? [index.get(node.id)! + 1] : (Array.isArray(data.next) ? data.next : [data.next]).map((id) => index.get(String(id)) ?? -1);
    queue.push(...next.filter((i) => i >= 0 && i < doc.nodes.length));
  }
  ctx.trace.push({ id: flow.id, kind: "flow", name: doc.name, versionId: flow.versionId, output: result, latencyMs: Math.round(performance.now() - started) });
  return result;
}

export type Member = { kind: "agent"; runnable: Runnable<AgentDocument>; flows: Runnable<FlowDocument>[] } | { kind: "flow"; runnable: Runnable<FlowDocument> };

export interface AppRun {
  app: Runnable<AppDocument>;
  adviser: { runnable: Runnable<AgentDocument>; flows: Runnable<FlowDocument>[] } | null;
  members: Member[];
}

async function runMember(
  ctx: RunContext,
  member: Member,
  message: string,
  history: Turn[],
  earlier: Passage[],
  options: { flowInputs?: Record<string, unknown>; onDelta?: (text: string) => void } = {},
): Promise<Passage> {
  const name = member.runnable.document.name;
  if (member.kind === "agent") {
    return { title: name, text: await runAgent(ctx, member.runnable, message, history, { flows: member.flows, extraKnowledge: earlier, onDelta: options.onDelta }) };
  }
  const text = await runFlow(ctx, member.runnable, options.flowInputs ?? inputsFromMessage(member.runnable.document, message));
  options.onDelta?.(text);
  return { title: name, text };
}

/**
 * One reply from an app: `supervisor` consults the members the adviser picks, `sequential`
 * runs every member in order (each seeing the replies before it), `broadcast` runs all at once;
 * then the adviser synthesizes (the built-in supervisor when the app has none), streaming.
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
  const adviserModel = await modelFor(run.adviser?.runnable.document.model ?? BUILTIN_MODEL_ID);
  let replies: Passage[] = [];
  // With no adviser, a lone member's reply is the answer: it streams straight to the client.
  const direct = (count: number) => ({ flowInputs, onDelta: !run.adviser && count === 1 ? onDelta : undefined });
  if (run.members.length > 0) {
    if (doc.orchestrationMode === "supervisor") {
      const started = performance.now();
      const candidates = run.members.map((m) => ({ id: m.runnable.id, name: m.runnable.document.name, description: m.runnable.document.description }));
      const picked = await adviserModel.route({ message, instructions: doc.adviserInstructions, candidates, signal: ctx.signal });
      const chosen = run.members.filter((m) => picked.includes(m.runnable.id)).slice(0, 2);
      ctx.trace.push({ id: run.app.id, kind: "supervisor", name: "routing", model: adviserModel.id, output: chosen.map((m) => m.runnable.document.name).join(", "), latencyMs: Math.round(performance.now() - started) });
      replies = await Promise.all(chosen.map((member) => runMember(ctx, member, message, history, [], direct(chosen.length))));
    } else if (doc.orchestrationMode === "sequential") {
      for (const member of run.members) replies.push(await runMember(ctx, member, message, history, replies, direct(run.members.length)));
    } else {
      replies = await Promise.all(run.members.map((member) => runMember(ctx, member, message, history, [], direct(run.members.length))));
    }
  }
  aborted(ctx.signal);
  const guidance = [doc.goals && `The app's goals: ${doc.goals}`, doc.adviserInstructions, "Combine the team's replies into one answer for the user."].filter(Boolean).join("\n\n");
  if (run.adviser) {
    return runAgent(ctx, run.adviser.runnable, message, history, { extraKnowledge: replies, extraSystem: guidance, onDelta, traceKind: "adviser" });
  }
  // With no adviser and one reply there is nothing to combine: that reply (already streamed) is the answer.
  if (replies.length === 1) return replies[0]!.text;
  const started = performance.now();
  let text = "";
  for await (const piece of adviserModel.answer({ system: guidance, history, message, knowledge: replies, signal: ctx.signal })) {
    text += piece;
    onDelta?.(piece);
  }
  ctx.trace.push({ id: run.app.id, kind: "supervisor", name: "built-in supervisor", model: adviserModel.id, output: text, latencyMs: Math.round(performance.now() - started) });
  return text;
}
