// Running published (or, for tests, draft) agents, flows and apps. Every run records a trace
// of what each member and node did; the app runner orchestrates members by the app's mode and
// has the adviser (or the built-in supervisor) synthesize one reply.
import { type AgentDocument, type AppDocument, type FlowDocument } from "@/schemas/builder/builder";
import { forStep, forTrace, RUN_LIMITS, runLimitExceeded } from "./limits";
import { BUILTIN_MODEL_ID, runModel, type ChatModel, type Passage, type ProviderRow, type Turn } from "./models";
import type { RouteCandidate } from "./model-types";
import { flowTool, toolName, type AgentTool } from "./agent-tools";
import { boundedReply, checkpoint, isApprovalPause, step, type RunContext, type Runnable } from "./run-context";
import { answer, retrieveOnce, route } from "./run-calls";
import { runAgent } from "./run-agent";
import { inputsFromMessage, runFlow } from "./run-flow";

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
 * The members' replies to the message, by the app's orchestration mode: those the adviser routes
 * to (`supervisor`), each in order seeing the replies before it (`sequential`), or all at once.
 */
async function memberReplies(
  ctx: RunContext,
  run: AppRun,
  adviserModel: ChatModel,
  message: string,
  history: Turn[],
  { onDelta, flowInputs }: { onDelta?: (text: string) => void; flowInputs?: Record<string, unknown> },
): Promise<Passage[]> {
  const doc = run.app.document;
  let replies: Passage[] = [];
  if (run.members.length === 0) return replies;
  // With no adviser, a lone member's reply is the answer: it streams straight to the client.
  const direct = (count: number) => ({ flowInputs, onDelta: !run.adviser && count === 1 ? onDelta : undefined });
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
  return replies;
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
  const { onDelta } = options;
  const doc = run.app.document;
  ctx.providers ??= run.providers;
  const adviserModel = await runModel(ctx, run.adviser?.runnable.document.model ?? BUILTIN_MODEL_ID);
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
  const replies = await memberReplies(ctx, run, adviserModel, message, history, options);
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
