// A conversation run's events on their way to storage (conversation_run_events): batched across
// the process's runs into one statement that also notifies the other processes (runtime/run-hub.ts).
import type { Db } from "@/server/db";
import { logger } from "@/server/observability/log";
import { isUniqueViolation, whenDatabaseAnswers } from "@/server/runtime/database-wait";
import { queueForStatement, type StatementQueue } from "@/server/tick-batches";
import { RUN_LIMITS, runLimitExceeded, STORED_EVENT_OVERHEAD } from "@/server/runtime/limits";
import {
  eventsPayload,
  keepUnstored,
  RUNS_CHANNEL,
  UNSTORED_EVENTS,
  wakeRun,
  type StoredEvent,
} from "@/server/runtime/run-hub";

export type { StoredEvent };

export function isFinal(event: string): boolean {
  return event === "done" || event === "error";
}

/** One run's batch of events to store, after seq `first`. */
export interface EventBatch {
  runId: string;
  first: number;
  events: string[];
  data: string[];
}

/**
 * The most events one row holds. A row holds one event, or a range of consecutive events of one
 * name (a tick's deltas): `seq` the first's id, `last_seq` the last's, `data` their data texts
 * joined by a line feed, which JSON.stringify never writes (issue 53: a row for every token was
 * most of PostgreSQL's work under thousands of streams). A final event is always a row of its own.
 */
const ROW_EVENTS = 100;

/** A batch's rows, as the store statements take them: first ids, last ids (null: one event), names, data. */
interface Rows {
  seqs: number[];
  lasts: (number | null)[];
  events: string[];
  data: string[];
}

function addRows(rows: Rows, batch: EventBatch): void {
  const { events, data } = batch;
  for (let i = 0; i < events.length;) {
    const event = events[i]!;
    let end = i + 1;
    if (!isFinal(event)) while (end < events.length && end - i < ROW_EVENTS && events[end] === event) end++;
    rows.seqs.push(batch.first + i + 1);
    rows.lasts.push(end - i > 1 ? batch.first + end : null);
    rows.events.push(event);
    rows.data.push(end - i > 1 ? data.slice(i, end).join("\n") : data[i]!);
    i = end;
  }
}

/** A row of conversation_run_events as read. */
export interface StoredRow {
  seq: number;
  lastSeq: number | null;
  event: string;
  data: string;
}

/** A stored row's events, in order: what addRows joined, apart again. */
export function eventsOfRow(row: StoredRow): StoredEvent[] {
  if (row.lastSeq === null) return [{ seq: row.seq, event: row.event, data: row.data }];
  return row.data.split("\n").map((data, i) => ({ seq: row.seq + i, event: row.event, data }));
}

/** A run's batch alone, in one statement that also notifies the listening processes. */
function storeAlone(db: Db, batch: EventBatch) {
  const rows: Rows = { seqs: [], lasts: [], events: [], data: [] };
  addRows(rows, batch);
  return db.pool.query({
    name: "atrium_store_run_events",
    text: `with stored as (
        insert into conversation_run_events (run_id, seq, last_seq, event, data)
        select $1, e.seq, e.last_seq, e.event, e.data from unnest($2::int[], $3::int[], $4::text[], $5::text[]) as e(seq, last_seq, event, data)
      )
      select pg_notify($6, $7)`,
    values: [batch.runId, rows.seqs, rows.lasts, rows.events, rows.data, RUNS_CHANNEL, eventsPayload(batch.runId)],
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
    insert into conversation_run_events (run_id, seq, last_seq, event, data)
    select * from unnest($1::uuid[], $2::int[], $3::int[], $4::text[], $5::text[])
    on conflict (run_id, seq) do nothing
  )
  select count(pg_notify($6, p)) from unnest($7::text[]) as p`;
/** The most batches one statement stores: a larger backlog goes in several. */
const STORE_BATCHES = 1000;
/** The most store statements running at once, per database client. */
const STORES_IN_FLIGHT = 2;

interface StoreRequest {
  batch: EventBatch;
  resolve: () => void;
  reject: (error: unknown) => void;
}
const storing = new WeakMap<Db, StatementQueue<StoreRequest>>();
const STORE_LIMITS = { most: STORE_BATCHES, inFlight: STORES_IN_FLIGHT };

export function storeRunEvents(db: Db, batch: EventBatch): Promise<void> {
  return new Promise((resolve, reject) =>
    queueForStatement(storing, db, { batch, resolve, reject }, STORE_LIMITS, sendStores),
  );
}

async function sendStores(db: Db, requests: StoreRequest[]): Promise<void> {
  const alone = ({ batch, resolve, reject }: StoreRequest) => storeAlone(db, batch).then(resolve, reject);
  if (requests.length === 1) return alone(requests[0]!);
  const runIds: string[] = [];
  const rows: Rows = { seqs: [], lasts: [], events: [], data: [] };
  for (const { batch } of requests) {
    addRows(rows, batch);
    while (runIds.length < rows.seqs.length) runIds.push(batch.runId);
  }
  const payloads = [...new Set(requests.map(({ batch }) => eventsPayload(batch.runId)))];
  try {
    await db.pool.query({
      name: "atrium_store_runs_events",
      text: STORE_SQL,
      values: [runIds, rows.seqs, rows.lasts, rows.events, rows.data, RUNS_CHANNEL, payloads],
    });
  } catch {
    await Promise.all(requests.map(alone));
    return;
  }
  for (const { resolve } of requests) resolve();
}

/**
 * How long a run's events wait, at most, before they are stored (issue 53). This process's
 * readers are handed each event at once; storage, and the other processes' readers it wakes,
 * get them every STORE_EVERY_MS, each run's in one batch: at 2,000 streams a store of every
 * token was most of the server's database work, and its commit and NOTIFY most of PostgreSQL's.
 */
export const STORE_EVERY_MS = 100;

/** The recorders with events to store at the next tick, and the one timer of that tick. */
const dueRecorders = new Set<RunRecorder>();
let storeTick: NodeJS.Timeout | null = null;

function storeSoon(recorder: RunRecorder): void {
  dueRecorders.add(recorder);
  storeTick ??= setTimeout(() => {
    storeTick = null;
    const due = [...dueRecorders];
    dueRecorders.clear();
    for (const each of due) each.store();
  }, STORE_EVERY_MS);
}

/**
 * A run's events, in order: each gets its id (seq) when pushed and goes at once to this process's
 * readers (runtime/run-hub.ts), then to storage with the run's other events of the same tick, in
 * one statement that also notifies the listening processes. A final event (`done`, `error`) is
 * stored at once, and handed only once stored: a client that saw it can count on a replay ending
 * there. A reader that starts meanwhile is handed the events handed before and not yet stored, so
 * with what it reads from storage it misses none. While the database is away the run's events
 * wait in order (runtime/database-wait.ts): none is skipped.
 */
export class RunRecorder {
  private used = 0;
  /** Events not yet stored, in order. */
  private unstored: StoredEvent[] = [];
  /** The last event handed to this process's readers. */
  private handed: number;
  /** Store what waits now, not at the next tick: a final event came, or someone waits for the end. */
  private urgent = false;
  private flushing: Promise<void> | null = null;
  private readonly untrack: () => void;

  constructor(
    private readonly db: Db,
    private readonly runId: string,
    /** The last event stored before: a run continuing after an approval goes on from there. */
    private seq = 0,
  ) {
    this.handed = seq;
    this.untrack = keepUnstored(db, runId, () => this.unstored.filter((event) => event.seq <= this.handed));
  }

  /** Queues an event; past the run's bound of stored events, ends the run (the final event is always kept). */
  push(event: string, data: unknown): void {
    const text = JSON.stringify(data);
    const final = isFinal(event);
    if (!final) {
      this.used += text.length + STORED_EVENT_OVERHEAD;
      if (this.used > RUN_LIMITS.streamEventChars) throw runLimitExceeded("stream events");
    }
    const stored: StoredEvent = { seq: ++this.seq, event, data: text };
    this.unstored.push(stored);
    if (final) {
      this.urgent = true;
      this.store();
      return;
    }
    if (this.handed === stored.seq - 1 && this.unstored.length <= UNSTORED_EVENTS) {
      this.handed = stored.seq;
      wakeRun(this.db, this.runId, [stored]);
    }
    storeSoon(this);
  }

  /** Stores what waits (the tick's call, or at once when urgent). */
  store(): void {
    if (this.unstored.length > 0) this.flushing ??= this.flush().finally(() => (this.flushing = null));
  }

  private async flush(): Promise<void> {
    do {
      const batch = this.unstored.slice();
      const first = batch[0]!.seq - 1;
      const events = batch.map((e) => e.event);
      const data = batch.map((e) => e.data);
      const store = () => storeRunEvents(this.db, { runId: this.runId, first, events, data });
      let tried = false;
      let stored = false;
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
        stored = true;
      } catch (error) {
        logger().error({ err: error, runId: this.runId }, "Storing a conversation run's events failed");
      }
      this.unstored.splice(0, batch.length);
      if (stored) this.handOnLate(batch);
      else {
        // The readers read storage.
        this.handed = Math.max(this.handed, batch.at(-1)!.seq);
        wakeRun(this.db, this.runId);
      }
    } while (this.urgent && this.unstored.length > 0);
    if (this.unstored.length > 0) storeSoon(this);
  }

  /**
   * Hands on, in order, what was held back (past UNSTORED_EVENTS, or final) now that `batch` is
   * stored, and what came meanwhile up to the bound, short of a final event not yet stored.
   */
  private handOnLate(batch: StoredEvent[]): void {
    const late = batch.filter((event) => event.seq > this.handed);
    for (const event of this.unstored.slice(0, UNSTORED_EVENTS)) {
      if (isFinal(event.event)) break;
      if (event.seq > (late.at(-1)?.seq ?? this.handed)) late.push(event);
    }
    if (late.length === 0) return;
    this.handed = late.at(-1)!.seq;
    wakeRun(this.db, this.runId, late);
  }

  /** Resolves once every event pushed is stored. */
  async drained(): Promise<void> {
    this.urgent = true;
    this.store();
    while (this.flushing) await this.flushing;
    this.untrack();
  }
}
