// A conversation run's events on their way to storage (conversation_run_events): batched across
// the process's runs into one statement that also notifies the other processes (runtime/run-hub.ts).
import type { Db } from "@/server/db";
import { logger } from "@/server/observability/log";
import { isUniqueViolation, whenDatabaseAnswers } from "@/server/runtime/database-wait";
import { RUN_LIMITS, runLimitExceeded, STORED_EVENT_OVERHEAD } from "@/server/runtime/limits";
import { eventsPayload, RUNS_CHANNEL, wakeRun, type StoredEvent } from "@/server/runtime/run-hub";

export type { StoredEvent };

/** Consecutive deltas not yet stored are stored as one event up to this size. */
const MERGED_DELTA_CHARS = 16 * 1024;

export function isFinal(event: string): boolean {
  return event === "done" || event === "error";
}

interface PendingEvent {
  event: string;
  data: unknown;
}

/** One run's batch of events to store, after seq `first`. */
export interface EventBatch {
  runId: string;
  first: number;
  events: string[];
  data: string[];
}

/** A run's batch alone, in one statement that also notifies the listening processes. */
function storeAlone(db: Db, batch: EventBatch) {
  return db.pool.query({
    name: "atrium_store_run_events",
    text: `with stored as (
        insert into conversation_run_events (run_id, seq, event, data)
        select $1, $2::int + e.nth::int, e.event, e.data from unnest($3::text[], $4::text[]) with ordinality as e(event, data, nth)
      )
      select pg_notify($5, $6)`,
    values: [batch.runId, batch.first, batch.events, batch.data, RUNS_CHANNEL, eventsPayload(batch.runId)],
  });
}

/**
 * The batches of every run of the process that wait for a store go in one statement (issue 53: a
 * thousand streams trickling tokens were a thousand statements a tick through a pool of ten). At
 * most STORES_IN_FLIGHT such statements run at once; batches asked for meanwhile wait and go
 * together in the next (a group commit), so under load each statement carries more and the pool
 * stays free for requests. A batch already stored (a retry after a commit whose answer was lost)
 * is skipped; if the statement fails, each batch is stored alone, so one run's failure (its run
 * deleted meanwhile) never costs another run its events. It answers one row (a count), not a row
 * per notification for the driver to read.
 */
const STORE_SQL = `with stored as (
    insert into conversation_run_events (run_id, seq, event, data)
    select * from unnest($1::uuid[], $2::int[], $3::text[], $4::text[])
    on conflict (run_id, seq) do nothing
  )
  select count(pg_notify($5, p)) from unnest($6::text[]) as p`;
/** The most batches one statement stores: a larger backlog goes in several. */
const STORE_BATCHES = 1000;
/** The most store statements running at once, per database client. */
const STORES_IN_FLIGHT = 2;

interface StoreRequest {
  batch: EventBatch;
  resolve: () => void;
  reject: (error: unknown) => void;
}
interface StoreQueue {
  waiting: StoreRequest[];
  running: number;
  scheduled: boolean;
}
const storing = new WeakMap<Db, StoreQueue>();

export function storeRunEvents(db: Db, batch: EventBatch): Promise<void> {
  return new Promise((resolve, reject) => {
    let queue = storing.get(db);
    if (!queue) {
      queue = { waiting: [], running: 0, scheduled: false };
      storing.set(db, queue);
    }
    queue.waiting.push({ batch, resolve, reject });
    scheduleStores(db, queue);
  });
}

/** Sends what waits at the end of this turn of the event loop, if a statement may start. */
function scheduleStores(db: Db, queue: StoreQueue): void {
  if (queue.scheduled || queue.running >= STORES_IN_FLIGHT || queue.waiting.length === 0) return;
  queue.scheduled = true;
  setImmediate(() => {
    queue.scheduled = false;
    while (queue.running < STORES_IN_FLIGHT && queue.waiting.length > 0) {
      queue.running++;
      void sendStores(db, queue.waiting.splice(0, STORE_BATCHES)).finally(() => {
        queue.running--;
        scheduleStores(db, queue);
      });
    }
  });
}

async function sendStores(db: Db, requests: StoreRequest[]): Promise<void> {
  const alone = ({ batch, resolve, reject }: StoreRequest) => storeAlone(db, batch).then(resolve, reject);
  if (requests.length === 1) return alone(requests[0]!);
  const rows = { runIds: [] as string[], seqs: [] as number[], events: [] as string[], data: [] as string[] };
  for (const { batch } of requests) {
    batch.events.forEach((event, i) => {
      rows.runIds.push(batch.runId);
      rows.seqs.push(batch.first + i + 1);
      rows.events.push(event);
      rows.data.push(batch.data[i]!);
    });
  }
  const payloads = [...new Set(requests.map(({ batch }) => eventsPayload(batch.runId)))];
  try {
    await db.pool.query({
      name: "atrium_store_runs_events",
      text: STORE_SQL,
      values: [rows.runIds, rows.seqs, rows.events, rows.data, RUNS_CHANNEL, payloads],
    });
  } catch {
    await Promise.all(requests.map(alone));
    return;
  }
  for (const { resolve } of requests) resolve();
}

/**
 * A run's events on their way to storage, in order: each flush stores every pending event in one
 * statement that also notifies the listening processes, then hands them to this process's
 * readers (runtime/run-hub.ts: storage stays the record, read back only by the others). While
 * the database is away the run's events wait in order (runtime/database-wait.ts): none is
 * skipped, so the stored deltas always make the reply.
 */
export class RunRecorder {
  private used = 0;
  private pending: PendingEvent[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly runId: string,
    /** The last event stored before: a run continuing after an approval goes on from there. */
    private seq = 0,
  ) {}

  /** Queues an event; past the run's bound of stored events, ends the run (the final event is always kept). */
  push(event: string, data: unknown): void {
    if (!isFinal(event)) {
      this.used += JSON.stringify(data).length + STORED_EVENT_OVERHEAD;
      if (this.used > RUN_LIMITS.streamEventChars) throw runLimitExceeded("stream events");
    }
    const last = this.pending.at(-1);
    const text = (data as { text?: string }).text;
    if (event === "delta" && last?.event === "delta" && typeof text === "string") {
      const merged = (last.data as { text: string }).text + text;
      if (merged.length <= MERGED_DELTA_CHARS) {
        last.data = { text: merged };
        return;
      }
    }
    this.pending.push({ event, data });
    this.flushing ??= this.flush().finally(() => (this.flushing = null));
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      const first = this.seq;
      this.seq += batch.length;
      let tried = false;
      const events = batch.map((e) => e.event);
      const data = batch.map((e) => JSON.stringify(e.data));
      const store = () => storeRunEvents(this.db, { runId: this.runId, first, events, data });
      let stored: StoredEvent[] | undefined;
      try {
        await whenDatabaseAnswers("Storing a conversation run's events", async () => {
          try {
            await store();
          } catch (error) {
            // A retry after a commit whose answer was lost finds the batch stored.
            if (tried && isUniqueViolation(error)) return;
            tried = true;
            throw error;
          }
        });
        stored = events.map((event, i) => ({ seq: first + i + 1, event, data: data[i]! }));
      } catch (error) {
        logger().error({ err: error, runId: this.runId }, "Storing a conversation run's events failed");
      }
      wakeRun(this.db, this.runId, stored);
    }
  }

  async drained(): Promise<void> {
    while (this.flushing) await this.flushing;
  }
}
