// How the processes serving conversation streams tell each other about a run: one dedicated
// PostgreSQL connection per process LISTENs on one channel and fans each notification out to the
// local readers of that run (woken to read its new events from conversation_run_events) and to the
// local run a cancel is for. Writers NOTIFY in the same statement that stores the events, so a
// reader woken always finds them. The readers on the run's own process are handed each batch
// as it is stored instead, with nothing read back (issue 53); a reader that missed a batch reads
// from storage. No reader polls: a reader whose wake-up was lost (the listening connection
// dropped) reads again at its next keep-alive. docs/operations.md explains the listening
// connection behind a transaction-mode pooler (DATABASE_LISTEN_URL).
import pg from "pg";
import { env } from "@/env";
import { onCloseDb, type Db } from "@/server/db";
import { logger } from "@/server/observability/log";

export const RUNS_CHANNEL = "atrium_conversation_runs";

/** A notification's payload: `e <runId>` when events were stored, `c <runId>` to cancel a run. */
export function eventsPayload(runId: string): string {
  return `e ${runId}`;
}

/**
 * SQL for the id of a run's last stored event, 0 when none (`runId`: an SQL expression). A row
 * holds one event or a range of them (services/runs/run-events.ts), so it is the last row's end.
 */
export function lastStoredEventSql(runId: string): string {
  return `coalesce((select coalesce(last_seq, seq) from conversation_run_events where run_id = ${runId} order by seq desc limit 1), 0)`;
}

/** A stored event of a run, as a stream sends it. */
export interface StoredEvent {
  seq: number;
  event: string;
  /** JSON text, as sent in the `data:` line. */
  data: string;
}

/** Wakes a reader: with the batch just stored, or without (then it reads storage). */
type Wake = (stored?: readonly StoredEvent[]) => void;

/**
 * The most events a run hands out ahead of storage (services/runs/run-events.ts); past it (the
 * database slow or away) its events go out as they are stored. A run whose process dies leaves
 * its clients at most this far ahead of what was stored, so the error event that ends it
 * (runtime/run-leases.ts) is numbered past that, where a client resuming after the last event it
 * saw still finds it.
 */
export const UNSTORED_EVENTS = 1000;

/** The most events a reader keeps handed and unsent: past it, it reads them from storage. */
const HANDED_EVENTS = 1000;

interface Hub {
  db: Db;
  readers: Map<string, Set<Wake>>;
  /** The runs this process runs, by id: what a cancel aborts. */
  owned: Map<string, AbortController>;
  /** The events of this process's runs handed to its readers and not yet stored, by run id. */
  unstored: Map<string, () => readonly StoredEvent[]>;
  client: pg.Client | null;
  listening: Promise<void> | null;
  closed: boolean;
}

const hubs = new WeakMap<Db, Hub>();

function hubFor(db: Db): Hub {
  let hub = hubs.get(db);
  if (!hub) {
    const created: Hub = {
      db,
      readers: new Map(),
      owned: new Map(),
      unstored: new Map(),
      client: null,
      listening: null,
      closed: false,
    };
    hubs.set(db, created);
    onCloseDb(db, async () => {
      created.closed = true;
      await created.client?.end().catch(() => {});
    });
    hub = created;
  }
  return hub;
}

function dispatch(hub: Hub, payload: string): void {
  const [kind, runId] = payload.split(" ");
  if (!runId) return;
  if (kind === "c") hub.owned.get(runId)?.abort();
  // A run this process runs wakes its readers here as it stores each batch (wakeRun): the
  // notification is for the other processes, and its echo would only cost each reader a read.
  else if (!hub.owned.has(runId)) wakeReaders(hub, runId);
}

function wakeReaders(hub: Hub, runId: string, stored?: readonly StoredEvent[]): void {
  for (const wake of hub.readers.get(runId) ?? []) wake(stored);
}

/** Starts the process's listening connection, once; after a drop, the next reader starts it again. */
function listen(hub: Hub): Promise<void> {
  if (hub.listening) return hub.listening;
  const options = hub.db.pool.options;
  const client = new pg.Client({ ...options, connectionString: env().DATABASE_LISTEN_URL ?? options.connectionString });
  let gone = false;
  const lost = (error?: Error) => {
    if (gone) return;
    gone = true;
    if (!hub.closed)
      logger().warn(
        { reason: error?.message },
        "The conversation runs' listening connection was lost; readers read again",
      );
    hub.client = null;
    hub.listening = null;
    client.end().catch(() => {});
    // Whatever was notified meanwhile is read now.
    for (const runId of hub.readers.keys()) wakeReaders(hub, runId);
  };
  client.on("notification", (message) => {
    if (message.channel === RUNS_CHANNEL && message.payload) dispatch(hub, message.payload);
  });
  client.on("error", lost);
  client.on("end", () => lost());
  hub.listening = (async () => {
    await client.connect();
    await client.query(`listen ${RUNS_CHANNEL}`);
    hub.client = client;
  })().catch((error: unknown) => {
    lost(error as Error);
    throw error;
  });
  return hub.listening;
}

export interface RunWatch {
  /** Resolves once this process listens (or failed to: the reader then relies on its keep-alive re-read). */
  ready(): Promise<void>;
  /** Resolves on the next wake-up since the last call (at once if one came meanwhile), or after `ms`: true when woken. */
  next(ms: number): Promise<boolean>;
  /**
   * The events handed since the last call that follow `after`, in order ([] when they were all
   * seen), or null when they are not known here (a wake-up without them, one missed, too many):
   * then the reader reads storage.
   */
  take(after: number): StoredEvent[] | null;
  close(): void;
}

/**
 * Takes events handed to a reader while it waits (next), in place of waking it: true when it
 * took them all (then the wait goes on), false to be woken with them as usual.
 */
export type HandedNow = (events: readonly StoredEvent[]) => boolean;

/**
 * Watches a run's new events in this process. With `handedNow`, a batch the run hands while the
 * reader waits goes to it at once, in the run's own turn of the event loop: no promise settled
 * and no reader resumed per event (issue 53).
 */
export function watchRun(db: Db, runId: string, handedNow?: HandedNow): RunWatch {
  const hub = hubFor(db);
  let woken = false;
  let resolve: ((woken: boolean) => void) | null = null;
  let handed: StoredEvent[] = [];
  let unknown = false;
  // One timer for every wait, re-armed rather than made anew: a stream waits once per batch.
  let timer: NodeJS.Timeout | null = null;
  let timerMs = 0;
  const wake: Wake = (stored) => {
    if (resolve && stored && !unknown && handed.length === 0 && handedNow?.(stored)) {
      // Taken while waiting: the wait for the keep-alive starts again from now.
      timer?.refresh();
      return;
    }
    if (!stored || unknown || handed.length + stored.length > HANDED_EVENTS) {
      unknown = true;
      handed = [];
    } else handed.push(...stored);
    woken = true;
    resolve?.(true);
  };
  // Events already handed to this process's other readers may not be stored yet: this reader
  // gets them as handed, so that with what it reads from storage it misses none.
  const unstored = hub.unstored.get(runId)?.() ?? [];
  if (unstored.length > 0) wake(unstored);
  const set = hub.readers.get(runId) ?? new Set();
  set.add(wake);
  hub.readers.set(runId, set);
  return {
    ready: () => (hub.closed ? Promise.resolve() : listen(hub).catch(() => {})),
    next(ms) {
      if (woken) {
        woken = false;
        return Promise.resolve(true);
      }
      return new Promise<boolean>((done) => {
        resolve = (value: boolean) => {
          resolve = null;
          woken = false;
          done(value);
        };
        if (timer && timerMs === ms) timer.refresh();
        else {
          if (timer) clearTimeout(timer);
          timerMs = ms;
          timer = setTimeout(() => resolve?.(false), ms);
        }
      });
    },
    take(after) {
      const known = !unknown;
      const fresh = handed.filter((event) => event.seq > after);
      handed = [];
      unknown = false;
      if (!known || (fresh.length > 0 && fresh[0]!.seq !== after + 1)) return null;
      return fresh;
    },
    close() {
      if (timer) clearTimeout(timer);
      resolve?.(false);
      set.delete(wake);
      if (set.size === 0) hub.readers.delete(runId);
    },
  };
}

/** This process runs the run: a cancel, from any process, aborts `controller`. */
export function ownRun(db: Db, runId: string, controller: AbortController): () => void {
  const hub = hubFor(db);
  hub.owned.set(runId, controller);
  // A cancel from another process arrives by notification: listen now, not at the first reader.
  listen(hub).catch(() => {});
  return () => hub.owned.delete(runId);
}

/**
 * The run's recorder keeps the events it handed and has not stored yet where a new reader of the
 * run on this process finds them (watchRun); the function returned stops it.
 */
export function keepUnstored(db: Db, runId: string, events: () => readonly StoredEvent[]): () => void {
  const hub = hubFor(db);
  hub.unstored.set(runId, events);
  return () => {
    if (hub.unstored.get(runId) === events) hub.unstored.delete(runId);
  };
}

/**
 * Wakes this process's readers of a run at once (the notification wakes the other processes'),
 * handing them the batch just stored when there is one.
 */
export function wakeRun(db: Db, runId: string, stored?: readonly StoredEvent[]): void {
  wakeReaders(hubFor(db), runId, stored);
}

/** Asks whichever process runs the run to cancel it. */
export async function requestCancel(db: Db, runId: string): Promise<void> {
  hubFor(db).owned.get(runId)?.abort();
  await db.pool.query("select pg_notify($1, $2)", [RUNS_CHANNEL, `c ${runId}`]);
}
