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
import type { z } from "zod";
import type { Approval, ApprovalDetail, Execution, DecideApprovalInput } from "@/schemas/runs/runtime";
import { isUuid } from "@/schemas/common";
import { actorLabel, type Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";
import { logger } from "@/server/observability/log";
import { wakeRun } from "@/server/runtime/run-hub";
import { recordEvent, type EventActor } from "../org/events";
import { announceCompleted, toExecutions } from "./executions";
import { builderItemNames } from "../support/item-names";
import { recordRunUsage } from "./usage-records";
import type { ApprovalState } from "./approval-pause";

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
    input: z.infer<typeof DecideApprovalInput>,
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
    select ended.id, coalesce((select coalesce(last_seq, seq) from conversation_run_events where run_id = ended.id
      order by seq desc limit 1), 0) + 1, 'error',
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
