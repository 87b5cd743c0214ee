// What every run carries (run.ts runs apps, run-agent.ts agents, run-flow.ts flows): its context
// with the trace and bounds, the approval pause, and the checks each step makes against cancel,
// time-out and the run's limits.
import { setTimeout as sleep } from "node:timers/promises";
import type { TracePassage } from "@/schemas/runs/runtime";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { RUN_LIMITS, runLimitExceeded } from "./limits";
import { type Passage, type ProviderRow } from "./models";
import type { TurnImage } from "./model-types";
import { Meter } from "./metering";
import { Citations } from "./citations";
import { type Retrieved } from "./retrieval/passages";
import { type TemplateScope } from "./templates";

export interface TraceEntry {
  id: string;
  kind: "agent" | "flow" | "node" | "adviser" | "supervisor" | "tool";
  name: string;
  versionId?: string | null;
  model?: string;
  passages?: string[];
  /** Where the retrieved passages were found, and how each starts. */
  retrieved?: TracePassage[];
  /** What the step was given (truncated): a model step's rendered prompt, a search's query, a tool call's arguments (JSON). */
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

/** The end of a run stopped by its cancel endpoint (services/runs/conversation-runs.ts). */
export function runCanceled(): AppError {
  return new AppError("canceled", "The run was canceled.");
}

/** Throws when the run was canceled or the run's time is up. */
export function checkpoint(ctx: RunContext): void {
  if (ctx.cancel?.aborted) throw runCanceled();
  if (ctx.timeout.aborted || performance.now() - ctx.used.startedAt > RUN_LIMITS.runMs) throw runLimitExceeded("time");
}

/** Counts one step (a node, an agent's answer) against the run's bound. */
export function step(ctx: RunContext, where: string): void {
  checkpoint(ctx);
  if (++ctx.used.steps > RUN_LIMITS.steps) throw runLimitExceeded("steps", where);
}

/** Waits before a retry; a cancel or the run's time-out ends the wait (and the run). */
export async function pause(ctx: RunContext, ms: number): Promise<void> {
  if (ms > 0) await sleep(ms, undefined, { signal: ctx.signal }).catch(() => undefined);
  checkpoint(ctx);
}

/** The reply a run hands back, within its bound. */
export function boundedReply(text: string): string {
  if (text.length > RUN_LIMITS.replyChars) throw runLimitExceeded("reply");
  return text;
}
