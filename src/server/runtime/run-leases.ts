// Charged runs in flight, and the one way a run lost with its process is settled. A run's lease
// (run_leases) is written by the statement that charges it (services/provisioning/credits.ts) and deleted in the one that records
// its execution, so a charge always has either a live run or an execution. The process running
// it renews the lease's heartbeat; a lease nobody renewed for RUN_LOST_AFTER_MS is a lost run
// (kill -9, a crash, a shutdown past its grace). Settling one, once across processes (the lease
// row is taken FOR UPDATE SKIP LOCKED and deleted), in one transaction: the charge given back, the
// execution recorded `failed` with the reason, a conversation stream's final `error` event stored
// (and announced), and the Idempotency-Key that named the run freed. The sweeper
// (src/server/jobs/lost-runs.ts) settles lost runs; a stopping process settles its own.
import { env } from "@/env";
import { renewedPerDb, type Db } from "@/server/db";
import { logger } from "@/server/observability/log";
import { refundRunCreditIn, type RunCharge } from "@/server/services/provisioning/credits";
import { recordLostExecution, type ExecutionRecord } from "@/server/services/runs/executions";
import { recordRunUsage } from "@/server/services/runs/usage-records";
import { eventsPayload, lastStoredEventSql, RUNS_CHANNEL, UNSTORED_EVENTS, wakeRun } from "./run-hub";

/** The execution's fields known when the run is charged: what its record says if it is lost. */
export type LeasedExecution = Pick<
  ExecutionRecord,
  "kind" | "itemId" | "itemKind" | "versionId" | "conversationId" | "input" | "endUserId" | "portalId"
> & { id: string; actor: string };

export interface LostReason {
  code: "run_lost" | "server_shutdown";
  message: string;
}

export const RUN_LOST: LostReason = {
  code: "run_lost",
  message:
    "The run was lost: the server process running it stopped. Its credit was given back; send the request again to retry.",
};

export const SERVER_SHUTDOWN: LostReason = {
  code: "server_shutdown",
  message:
    "The run ended because the server running it shut down before it finished. Its credit was given back; send the request again to retry.",
};

/**
 * Ends a conversation stream's run that is still running (or continuing after an approval) with
 * its final `error` event and notifies its readers; nothing when it already ended or is not a
 * stream. The event is numbered past the events its process may have handed to clients without
 * storing them (UNSTORED_EVENTS), so a client resuming after the last one it saw gets it.
 * Parameters: run id, the event's data, the run's status, the channel, the payload.
 */
export const END_RUN_SQL = `with ended as (
    update conversation_runs set status = $3 where id = $1::uuid and status in ('running', 'awaiting_approval') returning id
  ), stored as (
    insert into conversation_run_events (run_id, seq, event, data)
    select $1::uuid, ${lastStoredEventSql("$1::uuid")} + ${UNSTORED_EVENTS + 1}, 'error', $2 from ended
  )
  select pg_notify($4, $5)`;

export function endRunParams(runId: string, error: { code: string; message: string }, status: string): unknown[] {
  return [runId, JSON.stringify({ error }), status, RUNS_CHANNEL, eventsPayload(runId)];
}

function lostAfterMs(): number {
  return env().RUN_LOST_AFTER_MS;
}

/** The leases this process holds, renewed together. */
interface Held {
  ids: Set<string>;
  timer: NodeJS.Timeout | null;
  failing: boolean;
}

const heldFor = renewedPerDb<Held>(() => ({ ids: new Set(), timer: null, failing: false }));

async function renew(db: Db, held: Held): Promise<void> {
  if (held.ids.size === 0) return;
  try {
    await db.pool.query("update run_leases set heartbeat_at = now() where id = any($1::uuid[])", [[...held.ids]]);
    if (held.failing) logger().info({ runs: held.ids.size }, "Run leases renewed again");
    held.failing = false;
  } catch (error) {
    if (!held.failing)
      logger().warn({ reason: (error as Error).message }, "Could not renew this process's run leases; retrying");
    held.failing = true;
  }
}

/** This process runs the run: its lease is renewed until dropped. */
export function holdLease(db: Db, id: string): void {
  const held = heldFor(db);
  held.ids.add(id);
  if (!held.timer) {
    held.timer = setInterval(() => void renew(db, held), Math.max(250, Math.floor(lostAfterMs() / 4)));
    held.timer.unref();
  }
}

/** The run's lease ended (its execution recorded) or was settled: no longer renewed here. */
export function dropLease(db: Db, id: string): void {
  const held = heldFor(db);
  held.ids.delete(id);
  if (held.ids.size === 0 && held.timer) {
    clearInterval(held.timer);
    held.timer = null;
  }
}

/**
 * A failed run's charge given back, if the run still holds its lease (then deleted): false when
 * the run was settled as lost meanwhile, which gave it back already.
 */
export async function refundLeased(db: Db, id: string, charge: RunCharge): Promise<boolean> {
  const held = await db.$transaction(async (tx) => {
    const deleted = await tx.$executeRaw`delete from run_leases where id = ${id}::uuid`;
    if (deleted === 1) await refundRunCreditIn(tx, charge);
    return deleted === 1;
  });
  dropLease(db, id);
  return held;
}

interface LeaseRow {
  organizationId: string;
  /** What the run took, and (`cost`) what its recorded model calls cost when it reserved for them. */
  charge: RunCharge & { cost?: number };
  execution: LeasedExecution;
  createdAt: Date;
}

/** What a lost run keeps of its charge: what its recorded calls cost (a run that reserved for them), never more than it took. */
function keptOf(charge: LeaseRow["charge"]): number {
  return Math.max(0, Math.min(charge.cost ?? 0, charge.amount ?? 1));
}

/**
 * Settles one lost run (see the top of this file): true when this call settled it. `staleMs`:
 * only when its heartbeat is older than that (the sweeper); null for this process's own runs.
 */
export async function settleLostRun(db: Db, id: string, reason: LostReason, staleMs: number | null): Promise<boolean> {
  const lease = await db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<LeaseRow[]>`
      delete from run_leases where id = (
        select id from run_leases
        where id = ${id}::uuid and (${staleMs}::int is null or heartbeat_at < now() - ${staleMs}::int * interval '1 millisecond')
        for update skip locked)
      returning organization_id as "organizationId", charge, execution, created_at as "createdAt"`;
    const lease = rows[0];
    if (!lease) return null;
    const { actor, ...execution } = lease.execution;
    const kept = keptOf(lease.charge);
    await refundRunCreditIn(tx, { ...lease.charge, amount: (lease.charge.amount ?? 1) - kept });
    await recordLostExecution(tx, lease.organizationId, actor, {
      ...execution,
      status: "failed",
      credits: kept,
      latencyMs: Date.now() - lease.createdAt.getTime(),
      output: "",
      error: reason.message,
      trace: [],
    });
    await tx.$executeRawUnsafe(END_RUN_SQL, ...endRunParams(id, reason, "failed"));
    // The Idempotency-Key that named the run: a failure frees it.
    await tx.$executeRaw`delete from idempotency_keys
      where organization_id = ${lease.organizationId}::uuid and response_body->>'execution_id' = ${id}`;
    return lease;
  });
  if (!lease) return false;
  dropLease(db, id);
  wakeRun(db, id);
  logger().warn(
    { organizationId: lease.organizationId, executionId: id, reason: reason.code },
    "A run lost with its process was settled: charged what its recorded calls cost, the rest given back, execution recorded failed",
  );
  await recordRunUsage(db, lease.organizationId, {
    kind: lease.execution.kind,
    itemId: lease.execution.itemId,
    endUserId: lease.execution.endUserId,
    portalId: lease.execution.portalId,
    status: "failed",
    credits: keptOf(lease.charge),
  });
  return true;
}

const SWEEP_BATCH = 20;

/** One round of the sweeper: settles the runs whose lease nobody renewed; true when there may be more. */
export async function sweepLostRuns(db: Db): Promise<boolean> {
  const staleMs = lostAfterMs();
  const { rows } = await db.pool.query<{ id: string }>(
    `select id from run_leases where heartbeat_at < now() - $1::int * interval '1 millisecond' order by heartbeat_at limit $2`,
    [staleMs, SWEEP_BATCH],
  );
  for (const { id } of rows) await settleLostRun(db, id, RUN_LOST, staleMs);
  return rows.length === SWEEP_BATCH;
}

/** How often each process looks for lost runs. */
export function sweepIntervalMs(): number {
  return Math.max(250, Math.floor(lostAfterMs() / 4));
}

/** Settles the runs this process still runs (a shutdown past its grace): how many. */
export async function settleOwnRuns(db: Db, reason: LostReason): Promise<number> {
  let settled = 0;
  for (const id of [...heldFor(db).ids]) {
    try {
      if (await settleLostRun(db, id, reason, null)) settled++;
    } catch (error) {
      logger().error({ err: error, executionId: id }, "Could not settle a run at shutdown; the sweeper will");
    }
  }
  return settled;
}
