// A run paused at a flow's `approval` node: recorded `awaiting_approval` with everything it needs
// to continue (approvals.ts decides it, jobs/approvals.ts continues it).
import type { ExecutionUsage } from "@/schemas/runs/runtime";
import type { Db } from "@/server/db";
import type { Prisma } from "@/generated/prisma/client";
import type { BilledRun } from "@/server/runtime/billed-run";
import type { ModelCall } from "@/server/runtime/metering";
import type { ModelPrice } from "@/server/runtime/pricing";
import { executionUsage, type RunPricing } from "@/server/runtime/run-pricing";
import type { Turn } from "@/server/runtime/models";
import { RUN_LOST, type LeasedExecution } from "@/server/runtime/run-leases";
import type { ApprovalPause, RunContext, TraceEntry } from "@/server/runtime/run-context";
import type { TemplateScope } from "@/server/runtime/templates";
import type { RunCharge } from "../provisioning/credits";
import { recordEvent, type EventActor } from "../org/events";
import { toExecutions } from "./executions";
import { AppError } from "@/server/errors";

/** Everything a paused run continues from: stored as the approval's `state`. */
export interface ApprovalState {
  kind: "conversation" | "transaction";
  appId: string;
  /** The app version the run started on: it continues on the same one. */
  versionId: string;
  /** Who started the run, as its execution names them. */
  actor: string;
  /** What the app was asked (a conversation's message, a transaction's prompt) and the turns before it. */
  message: string;
  history: Turn[];
  /** The execution's input. */
  input: string;
  /** A transaction's input, handed to flow members as their inputs. */
  flowInputs?: Record<string, unknown>;
  conversationId: string | null;
  /** Whether the turn started its conversation (usage counts conversations). */
  conversationStarted: boolean;
  /** The messages a regenerated turn replaces. */
  superseded: string[];
  /** The files the turn's user message carries (absent in states stored before runs kept them). */
  attachmentIds?: string[];
  endUserId: string | null;
  portalId: string | null;
  charge: RunCharge;
  pricing: { flat: number; upfront: number; prices: [string, ModelPrice][] };
  calls: ModelCall[];
  trace: TraceEntry[];
  /** Time the run ran before it paused (not the time it waited). */
  latencyMs: number;
  point: { flowId: string; nodeId: string; scope: TemplateScope; finishedMembers: Record<string, string> };
}

export function pricingOf(state: ApprovalState): RunPricing {
  return { flat: state.pricing.flat, upfront: state.pricing.upfront, prices: new Map(state.pricing.prices) };
}

/** The execution a paused run stands for, as its state names it; its id is the approval's. */
export function pausedExecution(state: ApprovalState): Omit<LeasedExecution, "id"> {
  return {
    kind: state.kind,
    itemId: state.appId,
    itemKind: "app",
    versionId: state.versionId,
    conversationId: state.conversationId,
    input: state.input,
    endUserId: state.endUserId,
    portalId: state.portalId,
    actor: state.actor,
  };
}

/** What a conversation or transaction call answers when its run paused: 202. */
export interface AwaitingApproval {
  status: "awaiting_approval";
  executionId: string;
  conversation_id?: string;
}

export function isAwaiting(result: object): result is AwaitingApproval {
  return (result as { status?: unknown }).status === "awaiting_approval";
}

/** The run as its caller knew it when it paused. */
export interface PausedRun {
  executionId: string;
  state: Omit<ApprovalState, "charge" | "pricing" | "calls" | "trace" | "point">;
  /** A conversation's title, for a conversation this turn starts. */
  title?: string;
}

type Tx = Prisma.TransactionClient;

/**
 * The conversation a paused turn starts, created now with its title, and the turn's files made
 * its own: no other turn takes them while it waits, and they go with the conversation (retention,
 * erasure) even if it never ends.
 */
async function keepPausedConversation(
  tx: Tx,
  organizationId: string,
  conversationId: string,
  state: ApprovalState,
  title: string | undefined,
): Promise<void> {
  await tx.$executeRaw`insert into conversations (id, organization_id, app_id, started_by, end_user_id, portal_id, title, created_at, updated_at)
    values (${conversationId}::uuid, ${organizationId}::uuid, ${state.appId}::uuid, ${state.actor},
      ${state.endUserId}::uuid, ${state.portalId}::uuid, ${title ?? ""}, now(), now())
    on conflict (id) do update set updated_at = now()`;
  if (state.attachmentIds?.length)
    await tx.$executeRaw`update attachments set conversation_id = ${conversationId}::uuid
      where id = any(${state.attachmentIds}::uuid[]) and organization_id = ${organizationId}::uuid`;
}

/** The run's execution, `awaiting_approval` with what it cost so far: created, or a continuation's updated. */
function writePausedExecution(
  tx: Tx,
  organizationId: string,
  executionId: string,
  state: ApprovalState,
  paused: { credits: number; usage: ExecutionUsage; continued: boolean },
) {
  const fields = {
    status: "awaiting_approval",
    credits: paused.credits,
    latencyMs: Math.round(state.latencyMs),
    trace: state.trace as unknown as Prisma.InputJsonValue,
    usage: paused.usage as unknown as Prisma.InputJsonValue,
  };
  return paused.continued
    ? tx.execution.update({ where: { id: executionId, organizationId }, data: fields })
    : tx.execution.create({
        data: {
          ...fields,
          id: executionId,
          organizationId,
          ...pausedExecution(state),
          output: "",
        },
      });
}

/**
 * Records a run that reached an approval node (see the top of this file). `continued`: the run was
 * itself a continuation, whose execution and approval rows exist already.
 */
export async function pauseForApproval(
  db: Db,
  actor: EventActor,
  billed: BilledRun,
  ctx: RunContext,
  pause: ApprovalPause,
  run: PausedRun,
  continued = false,
): Promise<AwaitingApproval> {
  const { executionId } = run;
  const held = await billed.pause();
  if (!held) throw new AppError("server_error", RUN_LOST.message);
  const state: ApprovalState = {
    ...run.state,
    charge: held.charge,
    pricing: { flat: held.pricing.flat, upfront: held.pricing.upfront, prices: [...held.pricing.prices] },
    calls: [...ctx.meter.calls],
    trace: ctx.trace,
    point: { flowId: pause.flowId, nodeId: pause.nodeId, scope: pause.scope, finishedMembers: ctx.finishedMembers },
  };
  const organizationId = ctx.organizationId;
  const expiresAt = new Date(Date.now() + pause.timeoutMinutes * 60_000);
  const usage = executionUsage(held.pricing, ctx.meter.calls, held.credits);
  try {
    await db.$transaction(async (tx) => {
      // Its lease ends here: a paused run is no run in flight, and the sweeper must not settle it.
      const released = await tx.$executeRaw`delete from run_leases where id = ${executionId}::uuid`;
      if (released !== 1) throw new AppError("server_error", RUN_LOST.message);
      if (state.kind === "conversation" && state.conversationId && !continued)
        await keepPausedConversation(tx, organizationId, state.conversationId, state, run.title);
      const row = await writePausedExecution(tx, organizationId, executionId, state, {
        credits: held.credits,
        usage,
        continued,
      });
      const approval = {
        flowId: pause.flowId,
        nodeId: pause.nodeId,
        message: pause.approvalMessage,
        status: "pending",
        expiresAt,
        decidedBy: null,
        decidedAt: null,
        comment: null,
        state: state as unknown as Prisma.InputJsonValue,
        updatedAt: new Date(),
      };
      await tx.executionApproval.upsert({
        where: { id: executionId },
        create: { ...approval, id: executionId, organizationId, kind: state.kind, appId: state.appId },
        update: approval,
      });
      await tx.$executeRaw`update conversation_runs set status = 'awaiting_approval'
        where id = ${executionId}::uuid and organization_id = ${organizationId}::uuid and status = 'running'`;
      const [shown] = await toExecutions(tx, organizationId, [row]);
      await recordEvent(tx, actor, {
        action: "execution.await_approval",
        target: { type: "execution", id: executionId, label: shown!.itemName ?? state.kind },
        data: {
          execution: { ...shown, organizationId: undefined },
          approval: { nodeId: pause.nodeId, message: pause.approvalMessage, expiresAt: expiresAt.toISOString() },
        },
      });
    });
  } finally {
    billed.ended();
  }
  // Told once the pause is recorded, so a stream's reader can decide as soon as it reads this.
  ctx.onStep?.({ kind: "approval", name: pause.nodeName, status: "waiting" });
  return {
    status: "awaiting_approval",
    executionId,
    ...(state.kind === "conversation" && state.conversationId ? { conversation_id: state.conversationId } : {}),
  };
}
