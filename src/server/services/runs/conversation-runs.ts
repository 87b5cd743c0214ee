// Conversation runs that outlive their connection: a streamed turn runs detached from the request
// that started it, stores each event it sends (conversation_run_events, kept 24 hours, bounded by
// RUN_LIMITS.streamEventChars) and NOTIFYs the other processes (runtime/run-hub.ts). Every stream
// of the run, the first one included, reads those stored events, so a client that lost its
// connection resumes after the last event it saw, on any process. Only its cancel endpoint or a
// run bound ends a run early; a canceled run is billed, since it ran. A run whose process died is
// ended by the lost-run sweeper (runtime/run-leases.ts) with the `error` event `run_lost`.
import { env } from "@/env";
import type { z } from "zod";
import type { ConversationRunInput, Execution } from "@/schemas/runs/runtime";
import { isUuid } from "@/schemas/common";
import { channelOf, type Actor, type EndUserActor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError, toAppError } from "@/server/errors";
import { whenDatabaseAnswers } from "@/server/runtime/database-wait";
import { RUN_LIMITS } from "@/server/runtime/limits";
import { END_RUN_SQL, endRunParams, RUN_LOST, settleLostRun } from "@/server/runtime/run-leases";
import { ownRun, requestCancel, wakeRun, watchRun } from "@/server/runtime/run-hub";
import type { RunStep } from "@/server/runtime/run-context";
import { isAwaiting } from "./approval-pause";
import { converse, type ConverseInput, type StartedRun } from "./conversations";
import { findExecution } from "./executions";
import { eventsOfRow, RunRecorder, type StoredEvent, type StoredRow } from "./run-events";
import { maybeSweep } from "../support/idempotency";

/** Which door started a run: only that door's callers read or cancel it. */
export type RunDoor = "api" | "console" | "portal";

/**
 * A run whose process died leaves no final event: the sweeper ends it (runtime/run-leases.ts);
 * one it missed (charged without a lease) is ended by its readers after this long.
 */
export const ABANDONED_RUN_MS = RUN_LIMITS.runMs + 60_000;
/** How long a cancel waits for the run to end before answering with the execution as it stands. */
const CANCEL_WAIT_MS = 10_000;
export const READ_BATCH = 500;

export interface RunHooks {
  /** Awaited once the run started, before its first event is read (the Idempotency-Key points at it). */
  onStarted?: (run: StartedRun) => Promise<void>;
  /** Awaited when a started run failed (not canceled), before its `error` event is stored. */
  onFailed?: () => Promise<void>;
}

/**
 * Starts a turn that runs on without its caller: resolves once it started (with its ids), or
 * rejects with the refusal that came before (not_found, service_disabled, insufficient_credits …).
 */
export function startConversationRun(
  db: Db,
  actor: Actor | EndUserActor,
  input: ConverseInput,
  hooks: RunHooks = {},
): Promise<StartedRun> {
  const cancel = new AbortController();
  let recorder: RunRecorder | null = null;
  let release = () => {};
  return new Promise<StartedRun>((resolve, reject) => {
    const ended = async (status: string, event: string, data: unknown) => {
      const current = recorder!;
      // A run settled as lost meanwhile (runtime/run-leases.ts) keeps the outcome it was given.
      await whenDatabaseAnswers("Ending a conversation run", () =>
        db.pool.query({
          name: "atrium_end_conversation_run",
          text: "update conversation_runs set status = $3 where id = $1 and organization_id = $2 and status = 'running'",
          values: [started!.executionId, actor.organizationId, status],
        }),
      ).catch(() => {});
      current.push(event, data);
      await current.drained();
      release();
    };
    let started: StartedRun | null = null;
    converse(db, actor, input, {
      signal: cancel.signal,
      onStart: async (run) => {
        // On the pool, as the turn's other statements: a Prisma query costs several times the CPU.
        await db.pool.query({
          name: "atrium_start_conversation_run",
          text: `insert into conversation_runs (id, organization_id, app_id, conversation_id, door, end_user_id, status)
                 values ($1, $2, $3, $4, $5, $6, 'running')`,
          values: [
            run.executionId,
            actor.organizationId,
            input.appId.toLowerCase(),
            run.conversationId,
            doorOf(actor),
            run.endUserId,
          ],
        });
        started = run;
        maybeSweep(db);
        release = ownRun(db, run.executionId, cancel);
        recorder = new RunRecorder(db, run.executionId);
        recorder.push("run", { execution_id: run.executionId, conversation_id: run.conversationId });
        await hooks.onStarted?.(run);
        resolve(run);
      },
      onDelta: (text) => recorder?.push("delta", { text }),
      onStep: (step: RunStep) => recorder?.push("step", step),
    }).then(
      async (result) => {
        if (isAwaiting(result)) {
          // Paused for an approval: the stream stays open to readers and goes on when the run does.
          await recorder?.drained();
          release();
          return;
        }
        await ended("succeeded", "done", {
          reply: result.reply,
          citations: result.citations,
          conversation_id: result.conversation_id,
          execution_id: result.execution_id,
        });
      },
      async (error: unknown) => {
        if (!recorder) return reject(error);
        const failure = toAppError(error);
        const canceled = failure.code === "canceled";
        if (!canceled) await hooks.onFailed?.().catch(() => {});
        await ended(canceled ? "canceled" : "failed", "error", { error: failure.toBody() });
      },
    );
  });
}

export interface RunRow {
  id: string;
  organizationId: string;
  appId: string;
  conversationId: string;
  endUserId: string | null;
  status: string;
  createdAt: Date;
}

/** The door a run is kept under: the caller's (channelOf), every key's (REST or MCP) as `api`. */
function doorOf(actor: Actor | EndUserActor): RunDoor {
  const door = channelOf(actor);
  return door === "console" || door === "portal" ? door : "api";
}

/**
 * The run, if the caller may see it: the organization's, of that app, started through the
 * caller's door (an end user's: theirs alone). Anything else is not_found, as an unknown id.
 */
export async function findRun(
  db: Db,
  actor: Actor | EndUserActor,
  input: { appId: string; executionId: string },
): Promise<RunRow> {
  const notFound = new AppError("not_found", "No conversation run with that id for this app.");
  if (!isUuid(input.appId) || !isUuid(input.executionId)) throw notFound;
  const run = await db.conversationRun.findFirst({
    where: {
      id: input.executionId.toLowerCase(),
      organizationId: actor.organizationId,
      appId: input.appId.toLowerCase(),
      door: doorOf(actor),
      ...(actor.kind === "end_user" ? { endUserId: actor.endUser.id } : {}),
    },
  });
  if (!run) throw notFound;
  return run;
}

/** The run for its readers: the same rule and requirement as starting one. */
export const openConversationRun = guarded(
  { scope: "apps:execute", endUsers: true },
  async function openConversationRun(
    db: Db,
    actor: Actor | EndUserActor,
    input: z.infer<typeof ConversationRunInput>,
  ): Promise<RunRow> {
    return findRun(db, actor, input);
  },
);

/**
 * The run's stored events after `afterSeq`, in order: `limit` of them when there are as many. A
 * row may hold a range of events (services/runs/run-events.ts): the read starts at the row that
 * holds the first event wanted, found through the primary key.
 */
export async function readRunEvents(
  db: Db,
  run: { id: string; organizationId: string },
  afterSeq: number,
  limit = READ_BATCH,
): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for (let after = afterSeq; ;) {
    const { rows } = await db.pool.query<StoredRow>({
      name: "atrium_read_run_events",
      text: `select e.seq, e.last_seq as "lastSeq", e.event, e.data
             from conversation_run_events e join conversation_runs r on r.id = e.run_id
             where e.run_id = $1 and r.organization_id = $4 and e.seq >= coalesce(
               (select max(h.seq) from conversation_run_events h where h.run_id = $1 and h.seq <= $2::int + 1), 0)
             order by e.seq limit $3`,
      values: [run.id, after, limit, run.organizationId],
    });
    for (const row of rows) for (const event of eventsOfRow(row)) if (event.seq > after) events.push(event);
    if (rows.length < limit || events.length >= limit) return events.slice(0, limit);
    after = rows.at(-1)!.lastSeq ?? rows.at(-1)!.seq;
  }
}

/** The id of the run's final event, or null while it runs. */
export async function finalEventSeq(db: Db, run: { id: string; organizationId: string }): Promise<number | null> {
  const { rows } = await db.pool.query<{ seq: number }>({
    name: "atrium_run_final_seq",
    text: `select e.seq from conversation_run_events e join conversation_runs r on r.id = e.run_id
           where e.run_id = $1 and r.organization_id = $2 and e.event in ('done', 'error') limit 1`,
    values: [run.id, run.organizationId],
  });
  return rows[0]?.seq ?? null;
}

/**
 * Ends a run whose process died (it left no final event long after any run could end), once,
 * whoever ends it first: settled as lost runs are (runtime/run-leases.ts) when its lease is
 * stale, else (a run charged without a lease) with the `error` event its process could not store.
 */
export async function endAbandonedRun(db: Db, runId: string, code: "run_lost" | "canceled"): Promise<void> {
  if (await settleLostRun(db, runId, RUN_LOST, env().RUN_LOST_AFTER_MS)) return;
  const error = code === "canceled" ? { code, message: "The run was canceled." } : RUN_LOST;
  await db.pool.query(END_RUN_SQL, endRunParams(runId, error, code === "canceled" ? "canceled" : "failed"));
  wakeRun(db, runId);
}

export function isAbandoned(run: { status: string; createdAt: Date }): boolean {
  return run.status === "running" && Date.now() - run.createdAt.getTime() > ABANDONED_RUN_MS;
}

/** The run's execution; before it is recorded (a run still stopping), what the run row tells. */
async function executionOf(db: Db, run: RunRow): Promise<Execution> {
  const recorded = await findExecution(db, run.organizationId, run.id);
  if (recorded) return recorded;
  const now = await db.conversationRun.findFirst({
    where: { id: run.id, organizationId: run.organizationId },
    select: { status: true },
  });
  return {
    id: run.id,
    kind: "conversation",
    itemId: run.appId,
    itemKind: "app",
    itemName: null,
    versionId: null,
    conversationId: run.conversationId,
    status: now?.status ?? run.status,
    credits: 0,
    usage: null,
    latencyMs: Date.now() - run.createdAt.getTime(),
    input: "",
    output: "",
    error: null,
    trace: [],
    actor: "",
    endUserId: run.endUserId,
    endUserEmail: null,
    portalId: null,
    portalName: null,
    feedback: null,
    createdAt: run.createdAt.toISOString(),
  };
}

/**
 * Cancels a run, from any process: 202 with the execution once the run ended `canceled` (or
 * after CANCEL_WAIT_MS, as it stands); a run that already ended answers 200 with it, unchanged.
 */
export const cancelConversationRun = guarded(
  { scope: "apps:execute", endUsers: true },
  async function cancelConversationRun(
    db: Db,
    actor: Actor | EndUserActor,
    input: z.infer<typeof ConversationRunInput>,
  ): Promise<{ status: 200 | 202; execution: Execution }> {
    const run = await findRun(db, actor, input);
    if (run.status !== "running" || (await finalEventSeq(db, run)) !== null)
      return { status: 200, execution: await executionOf(db, run) };
    if (isAbandoned(run)) {
      await endAbandonedRun(db, run.id, "canceled");
      return { status: 202, execution: await executionOf(db, run) };
    }
    const watch = watchRun(db, run.id);
    try {
      await watch.ready();
      await requestCancel(db, run.id);
      const deadline = Date.now() + CANCEL_WAIT_MS;
      while ((await finalEventSeq(db, run)) === null && Date.now() < deadline)
        await watch.next(Math.max(deadline - Date.now(), 1));
    } finally {
      watch.close();
    }
    return { status: 202, execution: await executionOf(db, run) };
  },
);
