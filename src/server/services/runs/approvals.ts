// Runs that wait for a person: a flow's `approval` node pauses its run (runtime/run.ts throws
// ApprovalPause), and the run is recorded `awaiting_approval` with everything it needs to continue
// in execution_approvals, in one transaction that also deletes its run lease, so nothing of it
// lives in a process's memory and the lost-run sweeper never takes it for lost. A decision is one
// conditional UPDATE from `pending`: two people (or processes) deciding at once, one wins, the
// other hears `conflict`. An approved run is continued by the approvals worker
// (jobs/approvals.ts), which claims it with FOR UPDATE SKIP LOCKED under a new run lease, so it
// runs once across processes and a continuation lost with its process is settled as lost runs are.
// A rejection or a timeout (the node's setting) ends the run `failed` with the reason.
//
// Credits: the charge taken when the run started stays with it while it waits. At the pause it is
// settled at what the run cost so far (a flat-priced run: its credit; a priced one: its model
// calls); the continuation pays for its own model calls when it ends. A rejected or timed-out run
// keeps its charge, as a canceled run does: it ran, and a person stopped it. A continuation lost
// with its process is given back what the run was charged, as any lost run.
import type { Approval, ApprovalDetail, Execution } from "@/schemas/runs/runtime";
import { isUuid } from "@/schemas/common";
import { actorLabel, type Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";
import { logger } from "@/server/observability/log";
import type { BilledRun } from "@/server/runtime/billed-run";
import type { ModelCall } from "@/server/runtime/metering";
import type { ModelPrice } from "@/server/runtime/pricing";
import { executionUsage, type RunPricing } from "@/server/runtime/run-pricing";
import type { Turn } from "@/server/runtime/models";
import { RUN_LOST } from "@/server/runtime/run-leases";
import { wakeRun } from "@/server/runtime/run-hub";
import type { ApprovalPause, RunContext, TraceEntry } from "@/server/runtime/run";
import type { TemplateScope } from "@/server/runtime/templates";
import type { RunCharge } from "../provisioning/credits";
import { recordEvent, type EventActor } from "../org/events";
import { announceCompleted, toExecutions } from "./executions";
import { builderItemNames } from "../support/item-names";
import { recordRunUsage } from "./usage-records";

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
      if (state.kind === "conversation" && state.conversationId && !continued) {
        await tx.$executeRaw`insert into conversations (id, organization_id, app_id, started_by, end_user_id, portal_id, title, created_at, updated_at)
          values (${state.conversationId}::uuid, ${organizationId}::uuid, ${state.appId}::uuid, ${state.actor},
            ${state.endUserId}::uuid, ${state.portalId}::uuid, ${run.title ?? ""}, now(), now())
          on conflict (id) do update set updated_at = now()`;
        // The turn's files are its conversation's from now: no other turn takes them while it
        // waits, and they go with the conversation (retention, erasure) even if it never ends.
        if (state.attachmentIds?.length)
          await tx.$executeRaw`update attachments set conversation_id = ${state.conversationId}::uuid
            where id = any(${state.attachmentIds}::uuid[]) and organization_id = ${organizationId}::uuid`;
      }
      const fields = {
        status: "awaiting_approval",
        credits: held.credits,
        latencyMs: Math.round(state.latencyMs),
        trace: state.trace as unknown as Prisma.InputJsonValue,
        usage: usage as unknown as Prisma.InputJsonValue,
      };
      const row = continued
        ? await tx.execution.update({ where: { id: executionId, organizationId }, data: fields })
        : await tx.execution.create({
            data: {
              ...fields,
              id: executionId,
              organizationId,
              kind: state.kind,
              itemId: state.appId,
              itemKind: "app",
              versionId: state.versionId,
              conversationId: state.conversationId,
              input: state.input,
              output: "",
              actor: state.actor,
              endUserId: state.endUserId,
              portalId: state.portalId,
            },
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

type ApprovalRow = Prisma.ExecutionApprovalGetPayload<object>;

async function toApprovals(db: Db, organizationId: string, rows: ApprovalRow[]): Promise<Approval[]> {
  const names = await builderItemNames(db, organizationId, [
    ...rows.map((row) => row.appId),
    ...rows.map((row) => row.flowId),
  ]);
  return rows.map((row) => {
    const state = row.state as unknown as ApprovalState;
    return {
      executionId: row.id,
      kind: row.kind as Approval["kind"],
      appId: row.appId,
      appName: names.get(row.appId) ?? null,
      flowId: row.flowId,
      flowName: names.get(row.flowId) ?? null,
      nodeId: row.nodeId,
      message: row.message,
      status: row.status as Approval["status"],
      requestedBy: state.actor,
      expiresAt: row.expiresAt.toISOString(),
      decidedBy: row.decidedBy,
      decidedAt: row.decidedAt?.toISOString() ?? null,
      comment: row.comment,
      createdAt: row.createdAt.toISOString(),
    };
  });
}

const APPROVAL_LIST_LIMIT = 100;

/** The organization's runs waiting for a decision, oldest first (the console's list and badge). */
export const listPendingApprovals = guarded(
  { scope: "apps:read" },
  async function listPendingApprovals(db: Db, actor: Actor): Promise<{ approvals: Approval[]; total: number }> {
    const where = { organizationId: actor.organizationId, status: "pending" };
    const [rows, total] = await Promise.all([
      db.executionApproval.findMany({
        where,
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: APPROVAL_LIST_LIMIT,
      }),
      db.executionApproval.count({ where }),
    ]);
    return { approvals: await toApprovals(db, actor.organizationId, rows), total };
  },
);

/** One paused (or decided) run with what an approver reads: the message, the run's inputs and variables so far. */
export const getApproval = guarded(
  { scope: "apps:read" },
  async function getApproval(db: Db, actor: Actor, input: { executionId: string }): Promise<ApprovalDetail> {
    const row = isUuid(input.executionId)
      ? await db.executionApproval.findFirst({
          where: { id: input.executionId.toLowerCase(), organizationId: actor.organizationId },
        })
      : null;
    if (!row) throw new AppError("not_found", "No run waiting for an approval with that id.");
    const state = row.state as unknown as ApprovalState;
    const execution = await db.execution.findFirst({ where: { id: row.id, organizationId: actor.organizationId } });
    const [approval] = await toApprovals(db, actor.organizationId, [row]);
    return {
      approval: approval!,
      execution: execution ? (await toExecutions(db, actor.organizationId, [execution]))[0]! : null,
      input: state.input,
      inputs: state.point.scope.inputs,
      variables: state.point.scope.vars ?? {},
      steps: Object.entries(state.point.scope.nodes).map(([nodeId, result]) => ({ nodeId, output: result.output })),
    };
  },
);

export interface DecideApprovalInput {
  executionId: string;
  decision: "approve" | "reject";
  comment?: string;
}

/**
 * A member's decision on a paused run: one conditional UPDATE from `pending` (and before its
 * deadline), so a second decision, or one racing it, is `conflict`. Approved: queued for the
 * approvals worker; rejected: the run ends `failed` with the reason, in the same transaction.
 */
export const decideApproval = guarded(
  { scope: "apps:execute", may: "write" },
  async function decideApproval(
    db: Db,
    actor: Actor,
    input: DecideApprovalInput,
  ): Promise<{ execution: Execution; approval: Approval }> {
    if (actor.kind === "key" && !actor.member)
      throw new AppError(
        "forbidden_role",
        "An approval is decided by a person: use a personal key or the console, not an organization key.",
      );
    const notFound = new AppError("not_found", "No run waiting for an approval with that id.");
    if (!isUuid(input.executionId)) throw notFound;
    const executionId = input.executionId.toLowerCase();
    const organizationId = actor.organizationId;
    const who = actorLabel(actor);
    const comment = input.comment?.trim() || null;
    const decided = await db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<ApprovalRow[]>`
        update execution_approvals
        set status = ${input.decision === "approve" ? "approved" : "rejected"}, decided_by = ${who},
          decided_at = now(), comment = ${comment}, updated_at = now()
        where id = ${executionId}::uuid and organization_id = ${organizationId}::uuid
          and status = 'pending' and expires_at > now()
        returning id, organization_id as "organizationId", kind, app_id as "appId", flow_id as "flowId",
          node_id as "nodeId", message, status, expires_at as "expiresAt", decided_by as "decidedBy",
          decided_at as "decidedAt", comment, state, created_at as "createdAt", updated_at as "updatedAt"`;
      const row = rows[0];
      if (!row) return null;
      await recordEvent(tx, actor, {
        action: input.decision === "approve" ? "execution.approve" : "execution.reject",
        target: { type: "execution", id: executionId, label: row.nodeId },
        changes: { approval: ["pending", row.status], ...(comment ? { comment: [null, comment] } : {}) },
      });
      if (input.decision === "reject") {
        const reason = `Rejected by ${who} at the approval "${row.nodeId}"${comment ? `: ${comment}` : "."}`;
        await endAwaited(tx, row, reason, "approval_rejected");
      }
      return row;
    });
    if (!decided) {
      const exists = await db.executionApproval.findFirst({
        where: { id: executionId, organizationId },
        select: { status: true },
      });
      if (!exists) throw notFound;
      throw new AppError(
        "conflict",
        exists.status === "pending"
          ? "This approval timed out; the run ends failed."
          : "This run's approval was already decided.",
      );
    }
    // Approved: the approvals worker (jobs/approvals.ts) continues it within its next round.
    if (decided.status === "rejected") await afterEnded(db, decided);
    const execution = await db.execution.findFirstOrThrow({ where: { id: executionId, organizationId } });
    const [shown] = await toExecutions(db, organizationId, [execution]);
    const [approval] = await toApprovals(db, organizationId, [decided]);
    return { execution: shown!, approval: approval! };
  },
);

type Tx = Prisma.TransactionClient;

/**
 * Ends a paused run `failed` (rejected, timed out) in the caller's transaction: its execution,
 * announced (execution.failed and execution.completed), and a stream's final `error` event.
 */
async function endAwaited(
  tx: Tx,
  row: ApprovalRow,
  reason: string,
  code: "approval_rejected" | "approval_timed_out",
): Promise<void> {
  const updated = await tx.execution.updateManyAndReturn({
    where: { id: row.id, organizationId: row.organizationId, status: "awaiting_approval" },
    data: { status: "failed", error: reason },
  });
  const execution = updated[0];
  if (!execution) return;
  const system: EventActor = { kind: "system", organizationId: row.organizationId };
  const [shown] = await toExecutions(tx, row.organizationId, [execution]);
  await recordEvent(tx, system, {
    action: "execution.failed",
    target: { type: "execution", id: row.id, label: shown!.itemName ?? row.kind },
    data: { ...shown, organizationId: undefined },
  });
  await announceCompleted(tx, system, execution);
  await tx.$executeRaw`with ended as (
      update conversation_runs set status = 'failed'
      where id = ${row.id}::uuid and organization_id = ${row.organizationId}::uuid and status = 'awaiting_approval'
      returning id
    )
    insert into conversation_run_events (run_id, seq, event, data)
    select ended.id, coalesce((select max(seq) from conversation_run_events where run_id = ended.id), 0) + 1, 'error',
      ${JSON.stringify({ error: { code, message: reason } })}
    from ended`;
}

/** After a paused run ended failed: its usage counted, its stream's readers woken. */
async function afterEnded(db: Db, row: ApprovalRow): Promise<void> {
  const state = row.state as unknown as ApprovalState;
  const execution = await db.execution.findFirst({ where: { id: row.id, organizationId: row.organizationId } });
  wakeRun(db, row.id);
  if (!execution) return;
  await recordRunUsage(db, row.organizationId, {
    kind: state.kind,
    itemId: state.appId,
    endUserId: state.endUserId,
    portalId: state.portalId,
    subscriptionId: state.charge.kind === "end_user" ? state.charge.subscriptionId : null,
    status: "failed",
    credits: execution.credits,
    conversationStarted: state.conversationStarted,
  });
}

const TIMEOUT_BATCH = 20;

/** Ends the approvals whose time ran out (once across processes): true when there may be more. */
export async function timeOutApprovals(db: Db): Promise<boolean> {
  let ended = 0;
  for (; ended < TIMEOUT_BATCH; ended++) {
    const row = await db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<ApprovalRow[]>`
        update execution_approvals set status = 'timed_out', decided_at = now(), updated_at = now()
        where id = (
          select id from execution_approvals where status = 'pending' and expires_at <= now()
          order by expires_at limit 1 for update skip locked)
        returning id, organization_id as "organizationId", kind, app_id as "appId", flow_id as "flowId",
          node_id as "nodeId", message, status, expires_at as "expiresAt", decided_by as "decidedBy",
          decided_at as "decidedAt", comment, state, created_at as "createdAt", updated_at as "updatedAt"`;
      const row = rows[0];
      if (!row) return null;
      await endAwaited(
        tx,
        row,
        `Nobody decided the approval "${row.nodeId}" in time; the run ended.`,
        "approval_timed_out",
      );
      return row;
    });
    if (!row) break;
    await afterEnded(db, row);
    logger().info({ organizationId: row.organizationId, executionId: row.id }, "An approval timed out; run failed");
  }
  return ended === TIMEOUT_BATCH;
}
