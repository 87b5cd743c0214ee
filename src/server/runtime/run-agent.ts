// Running an agent: its knowledge, its tools (flows, knowledge, built-ins, integrations) and its answer.
import { type AgentDocument, type FlowDocument } from "@/schemas/builder/builder";
import { forTrace, RUN_LIMITS, type RunBound } from "./limits";
import { runModel, type ChatModel, type Passage, type Turn } from "./models";
import { boundedTool, flowTool, knowledgeTools, type AgentTool } from "./agent-tools";
import { builtInTools } from "./built-ins";
import { integrationTools } from "./mcp-tools";
import { missingNote, tracePassages } from "./retrieval/passages";
import { overlap } from "./text";
import { checkpoint, step, type RunContext, type Runnable } from "./run-context";
import { answer, retrieveOnce } from "./run-calls";
import { inputsFromMessage, runFlow } from "./run-flow";

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
 * The tools a provider model may call (attached flows, knowledge, built-ins, integrations and
 * `options.tools`); on the offline model none, and a flow matching the message runs now, its
 * output put first in `knowledge`.
 */
async function agentTools(
  ctx: RunContext,
  agent: Runnable<AgentDocument>,
  model: ChatModel,
  message: string,
  knowledge: Passage[],
  options: { flows?: Runnable<FlowDocument>[]; tools?: AgentTool[] },
): Promise<AgentTool[]> {
  const doc = agent.document;
  const knowledgebaseIds = doc.knowledge.map((k) => k.knowledgebaseId);
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
  return tools;
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
  const model = await runModel(ctx, doc.model);
  const fallbacks = await Promise.all((doc.fallbackModels ?? []).map((id) => runModel(ctx, id)));
  const tools = await agentTools(ctx, agent, model, message, knowledge, options);
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
