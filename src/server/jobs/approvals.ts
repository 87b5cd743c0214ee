// The approvals worker, in every server process: each round ends the approvals whose time ran
// out, then continues the approved runs (services/runs/approvals.ts). An approved run is claimed with
// FOR UPDATE SKIP LOCKED, in the transaction that writes its new run lease, so exactly one
// process continues it; the lease is renewed while it runs, and a continuation lost with its
// process is settled by the lost-run sweeper like any run (its charge given back, failed).
import type { Db } from "@/server/db";
import { isAppError } from "@/server/errors";
import { logger } from "@/server/observability/log";
import { BilledRun } from "@/server/runtime/billed-run";
import { loadLiveApp } from "@/server/runtime/load";
import { runApp } from "@/server/runtime/run";
import { isApprovalPause, newRunContext } from "@/server/runtime/run-context";
import type { LeasedExecution } from "@/server/runtime/run-leases";
import { lastStoredEventSql, wakeRun } from "@/server/runtime/run-hub";
import { schemaProblems } from "@/server/runtime/json-schema";
import {
  pausedExecution,
  pauseForApproval,
  pricingOf,
  type ApprovalState,
} from "@/server/services/runs/approval-pause";
import { timeOutApprovals } from "@/server/services/runs/approvals";
import { attachmentImages, attachmentPassages, pausedTurnFiles } from "@/server/services/runs/turn-files";
import { RunRecorder } from "@/server/services/runs/run-events";
import { saveTurn } from "@/server/services/runs/save-turn";
import { announceCompleted, type RunActor } from "@/server/services/runs/executions";
import { replyObject } from "@/server/services/runs/transactions";
import { recordRunUsage } from "@/server/services/runs/usage-records";
import { startPollingWorker, type PollingWorker } from "./polling-worker";

interface Claimed {
  id: string;
  organizationId: string;
  comment: string | null;
  state: ApprovalState;
}

/**
 * Claims one approved run, writing its lease in the same transaction; null when none waits.
 * Exported for the test of a continuation lost with its process (claimed, never run).
 */
export async function claimApproved(db: Db): Promise<Claimed | null> {
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<Claimed[]>`
      update execution_approvals set status = 'resuming', updated_at = now()
      where id = (
        select id from execution_approvals where status = 'approved'
        order by decided_at limit 1 for update skip locked)
      returning id, organization_id as "organizationId", comment, state`;
    const claimed = rows[0];
    if (!claimed) return null;
    const { state } = claimed;
    const execution: LeasedExecution = { id: claimed.id, ...pausedExecution(state) };
    await tx.$executeRaw`insert into run_leases (id, organization_id, charge, execution, heartbeat_at, created_at)
      values (${claimed.id}::uuid, ${claimed.organizationId}::uuid, ${JSON.stringify(state.charge)}::jsonb,
        ${JSON.stringify(execution)}::jsonb, now(), now())`;
    return claimed;
  });
}

/** The last event a streamed turn stored, or null when the turn does not stream. */
async function lastEventOf(db: Db, claimed: Claimed): Promise<number | null> {
  const { rows } = await db.pool.query<{ seq: number | null; id: string }>(
    `select r.id, ${lastStoredEventSql("r.id")} as seq
     from conversation_runs r where r.id = $1::uuid and r.organization_id = $2::uuid`,
    [claimed.id, claimed.organizationId],
  );
  return rows[0] ? (rows[0].seq ?? 0) : null;
}

/** A streamed turn's end: its final event stored, its status set, its readers woken. */
async function endStream(db: Db, claimed: Claimed, status: string, event: string, data: unknown): Promise<void> {
  await db.pool.query(
    `with ended as (
       update conversation_runs set status = $3 where id = $1::uuid and organization_id = $2::uuid
         and status = 'awaiting_approval' returning id)
     insert into conversation_run_events (run_id, seq, event, data)
     select ended.id, ${lastStoredEventSql("ended.id")} + 1, $4, $5
     from ended`,
    [claimed.id, claimed.organizationId, status, event, JSON.stringify(data)],
  );
  wakeRun(db, claimed.id);
}

/** Continues one approved run to its end (or its next approval). */
async function continueRun(db: Db, claimed: Claimed): Promise<void> {
  const { state } = claimed;
  const organizationId = claimed.organizationId;
  const actor: RunActor = { kind: "system", organizationId, label: state.actor };
  const ctx = newRunContext(db, organizationId);
  ctx.pausable = true;
  ctx.trace.push(...state.trace);
  ctx.meter.calls.push(...state.calls);
  ctx.resume = { ...state.point, comment: claimed.comment ?? "" };
  const billed = BilledRun.resumed(db, ctx, state.charge, pricingOf(state), claimed.id);
  const lastSeq = state.kind === "conversation" ? await lastEventOf(db, claimed) : null;
  const recorder = lastSeq === null ? null : new RunRecorder(db, claimed.id, lastSeq);
  ctx.onStep = (step) => recorder?.push("step", step);
  const started = performance.now();
  const latencyMs = () => state.latencyMs + (performance.now() - started);
  const record = (output: string) => ({
    id: claimed.id,
    kind: state.kind,
    itemId: state.appId,
    itemKind: "app" as const,
    versionId: state.versionId,
    conversationId: state.conversationId,
    latencyMs: latencyMs(),
    input: state.input,
    output,
    trace: ctx.trace,
    endUserId: state.endUserId,
    portalId: state.portalId,
  });
  try {
    const app = await loadLiveApp(db, { organizationId }, state.appId, state.versionId);
    // The turn's files, read as the turn read them before it paused.
    const attachments = state.conversationId
      ? await pausedTurnFiles(db, organizationId, state.conversationId, state.attachmentIds ?? [])
      : [];
    ctx.attachments = attachmentPassages(attachments, state.message);
    ctx.images = attachmentImages(attachments);
    const onDelta = billed.onDelta((text) => recorder?.push("delta", { text }));
    const reply = await runApp(ctx, app, state.message, state.history, {
      onDelta,
      ...(state.flowInputs ? { flowInputs: state.flowInputs } : {}),
    });
    if (state.kind === "conversation") {
      const outcome = await billed.settle("succeeded");
      await saveTurn(db, actor, state, {
        conversationId: state.conversationId!,
        executionId: claimed.id,
        appId: state.appId,
        versionId: state.versionId,
        message: state.message,
        reply,
        citations: ctx.citations.inReply(reply),
        superseded: state.superseded,
        attachmentIds: attachments.map((attachment) => attachment.id),
        latencyMs: latencyMs(),
        trace: ctx.trace,
        outcome: { status: "succeeded", credits: outcome.credits, usage: outcome.usage },
      });
      billed.ended();
      await db.$transaction(async (tx) => {
        const row = await tx.execution.findFirstOrThrow({ where: { id: claimed.id, organizationId } });
        await announceCompleted(tx, actor, row);
      });
      await recordRunUsage(db, organizationId, {
        kind: "conversation",
        itemId: state.appId,
        endUserId: state.endUserId,
        portalId: state.portalId,
        ...outcome,
        conversationStarted: state.conversationStarted,
      });
      await recorder?.drained();
      if (recorder)
        await endStream(db, claimed, "succeeded", "done", {
          reply,
          citations: ctx.citations.inReply(reply),
          conversation_id: state.conversationId,
          execution_id: claimed.id,
        });
    } else {
      const output = replyObject(reply);
      const details = schemaProblems(app.app.document.api.outputSchema, output);
      await billed.record(actor, record(reply), details.length ? "output_invalid" : "succeeded");
    }
  } catch (error) {
    if (isApprovalPause(error)) {
      // A later approval node: the run waits again.
      await pauseForApproval(
        db,
        { kind: "system", organizationId },
        billed,
        ctx,
        error,
        { executionId: claimed.id, state },
        true,
      );
      await recorder?.drained();
      return;
    }
    const failure = await billed.fail(error);
    await billed.record(actor, record("")).catch((recordError: unknown) => {
      logger().error({ err: recordError, executionId: claimed.id }, "Could not record a continued run's failure");
    });
    await recorder?.drained();
    if (recorder) await endStream(db, claimed, "failed", "error", { error: failure.toBody() });
    if (!isAppError(error)) logger().error({ err: error, executionId: claimed.id }, "A continued run failed");
  } finally {
    billed.ended();
    await db.executionApproval
      .updateMany({ where: { id: claimed.id, organizationId, status: "resuming" }, data: { status: "done" } })
      .catch(() => {});
  }
}

/**
 * A continuation whose process died was settled by the lost-run sweeper (its lease is gone and
 * its execution failed): its approval is marked done too.
 */
async function closeLostContinuations(db: Db): Promise<void> {
  await db.$executeRaw`update execution_approvals a set status = 'done', updated_at = now()
    where a.status = 'resuming' and a.updated_at < now() - interval '1 minute'
      and not exists (select 1 from run_leases l where l.id = a.id)`;
}

/** One round: approvals timed out, then approved runs continued; true when there may be more work. */
export async function runApprovalsOnce(db: Db): Promise<boolean> {
  await closeLostContinuations(db);
  const more = await timeOutApprovals(db);
  const claimed = await claimApproved(db);
  if (!claimed) return more;
  await continueRun(db, claimed);
  return true;
}

/** How often each process looks for approvals to time out or continue. */
const APPROVALS_POLL_MS = 2_000;

export function startApprovalWorker(db: Db, pollMs = APPROVALS_POLL_MS): PollingWorker {
  return startPollingWorker({ name: "Approvals worker", pollMs, maxBackoffMs: 60_000 }, () => runApprovalsOnce(db));
}
