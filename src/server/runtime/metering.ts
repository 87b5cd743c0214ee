// The tokens of a run's model calls: each model reports what a call used (a provider as its API
// says, the built-in model by its own estimate), and the run's Meter keeps one entry per call,
// which the run's charge (pricing.ts), its execution's `usage` and GET /usage read.
import type { AgentDocument, AppDocument, FlowDocument } from "@/schemas/builder/builder";
import { logger } from "@/server/observability/log";
import { BUILTIN_MODEL_ID, type ReportedUsage } from "./model-types";

export type { ReportedUsage } from "./model-types";

/** Counts past this are a provider's mistake: they are clamped (and logged), never charged as sent. */
export const MAX_REPORTED_TOKENS = 10_000_000;

/** How a call ended: it answered, it failed (the provider's error, a bound), or the run was canceled. */
export type CallOutcome = "succeeded" | "failed" | "canceled";

export interface ModelCall {
  model: string;
  provider: string;
  inputTokens: number;
  outputTokens: number;
  /** False when the provider reported no usage: the call counts 0 tokens, and a priced run its minimum. */
  usageReported: boolean;
  outcome: CallOutcome;
}

/** Adds one report to another (a tool-calling answer's rounds); unreported stays unreported. */
export function addUsage(sum: ReportedUsage | undefined, more: ReportedUsage): ReportedUsage {
  const add = (a?: number, b?: number) => (a === undefined ? b : b === undefined ? a : a + b);
  return {
    inputTokens: add(sum?.inputTokens, more.inputTokens),
    outputTokens: add(sum?.outputTokens, more.outputTokens),
  };
}

/** A count as it may be stored: whole, 0..MAX_REPORTED_TOKENS; `clamped` when it was not. */
function bounded(count: number | undefined): { value: number; clamped: boolean } {
  if (count === undefined || !Number.isFinite(count)) return { value: 0, clamped: false };
  const value = Math.min(MAX_REPORTED_TOKENS, Math.max(0, Math.round(count)));
  return { value, clamped: value !== count };
}

/** What a run that pays for its priced calls as it goes (runtime/billed-run.ts) is told by its meter. */
export interface CallReserver {
  /**
   * Reserves a call's ceiling before it is made (or throws insufficient_credits, and the call is
   * not made): answers the call's maximum output tokens, or undefined for an unpriced model.
   */
  reserve(model: string, inputTokens: number, maxOutputTokens?: number): Promise<number | undefined>;
  /** A call that failed before any output gives its ceiling back to the next calls (a retry, a fallback). */
  release(model: string, inputTokens: number): void;
  /** The run's calls so far, after each one ends. */
  recorded(calls: readonly ModelCall[]): void;
}

/** A run's model calls, in the order they ended. One per run (RunContext.meter), shared by its members. */
export class Meter {
  readonly calls: ModelCall[] = [];
  /** Set by a run that reserves its priced calls' ceilings; without one nothing is reserved or capped. */
  reserver: CallReserver | null = null;

  constructor(private readonly organizationId: string) {}

  /** Before a call of `model` reading about `inputTokens`: its maximum output tokens, if it is capped. */
  reserve(model: string, inputTokens: number, maxOutputTokens?: number): Promise<number | undefined> {
    return this.reserver ? this.reserver.reserve(model, inputTokens, maxOutputTokens) : Promise.resolve(undefined);
  }

  /** After a call that failed before any output: its ceiling serves the next call. */
  release(model: string, inputTokens: number): void {
    this.reserver?.release(model, inputTokens);
  }

  record(
    model: { id: string; provider: string },
    reported: ReportedUsage | undefined,
    outcome: CallOutcome,
  ): ModelCall {
    const input = bounded(reported?.inputTokens);
    const output = bounded(reported?.outputTokens);
    if (input.clamped || output.clamped)
      logger().warn(
        { organizationId: this.organizationId, model: model.id, reported },
        "A model reported token counts out of bounds; they were clamped",
      );
    const call: ModelCall = {
      model: model.id,
      provider: model.provider,
      inputTokens: input.value,
      outputTokens: output.value,
      usageReported: reported?.inputTokens !== undefined || reported?.outputTokens !== undefined,
      outcome,
    };
    this.calls.push(call);
    this.reserver?.recorded(this.calls);
    return call;
  }
}

/** A deterministic token estimate for text the built-in model reads or writes: about 4 characters a token. */
export function estimateTokens(...texts: string[]): number {
  return texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
}

function flowModels(flow: Pick<FlowDocument, "nodes">): string[] {
  return flow.nodes.flatMap((node) => {
    if (node.type !== "llm") return [];
    const model = (node.data as Record<string, unknown> | undefined)?.model;
    return [typeof model === "string" ? model : BUILTIN_MODEL_ID];
  });
}

type AgentLike = { document: Pick<AgentDocument, "model"> & { fallbackModels?: string[] } };
type FlowLike = { document: Pick<FlowDocument, "nodes"> };

/** The models an agent (with the flows it may call) or a flow may call: what a run is priced on before it runs. */
export function modelsOf(
  item: { kind: "agent"; runnable: AgentLike; flows?: FlowLike[] } | { kind: "flow"; runnable: FlowLike },
): string[] {
  if (item.kind === "flow") return flowModels(item.runnable.document);
  return [
    item.runnable.document.model,
    ...(item.runnable.document.fallbackModels ?? []),
    ...(item.flows ?? []).flatMap((flow) => flowModels(flow.document)),
  ];
}

/** The models an app run may call: its adviser's (or the built-in supervisor's) and its members'. */
export function modelsOfApp(run: {
  app: { document: Pick<AppDocument, "orchestrationMode"> };
  adviser: { runnable: AgentLike; flows: FlowLike[] } | null;
  members: ({ kind: "agent"; runnable: AgentLike; flows: FlowLike[] } | { kind: "flow"; runnable: FlowLike })[];
}): string[] {
  const adviser = run.adviser ? modelsOf({ kind: "agent", ...run.adviser }) : [BUILTIN_MODEL_ID];
  return [...new Set([...adviser, ...run.members.flatMap((member) => modelsOf(member))])];
}

type AppRunLike = Parameters<typeof modelsOfApp>[0];

/**
 * The calls an app run surely makes first, each as the models it may be made on (billed-run.ts
 * reserves them before the run): with the built-in supervisor routing (no adviser, or one on the
 * built-in model), its routing call, then a member agent's answer (on its model or a fallback) or,
 * when it picks none, the supervisor's own. A flow member may answer without a model call, so an
 * app with one is known to make only its routing call.
 */
export function knownCallsOfApp(run: AppRunLike): string[][] {
  const adviser = run.adviser?.runnable.document.model ?? BUILTIN_MODEL_ID;
  if (run.app.document.orchestrationMode !== "supervisor" || run.members.length === 0 || adviser !== BUILTIN_MODEL_ID)
    return [];
  const answers = run.members.flatMap((member) =>
    member.kind === "agent"
      ? [member.runnable.document.model, ...(member.runnable.document.fallbackModels ?? [])]
      : [null],
  );
  if (answers.includes(null)) return [[adviser]];
  return [[adviser], [...new Set([...(answers as string[]), adviser])]];
}

/** The models a draft of any kind may call (test runs and the draft preview run agents without their flows). */
export function runnableModels(
  kind: "agent" | "flow" | "app",
  runnable: { document: unknown },
  appRun: AppRunLike | null,
): string[] {
  if (kind === "app") return appRun ? modelsOfApp(appRun) : [];
  if (kind === "agent") return modelsOf({ kind, runnable: runnable as AgentLike });
  return modelsOf({ kind, runnable: runnable as FlowLike });
}
