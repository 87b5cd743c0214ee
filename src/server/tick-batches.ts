// Requests that arrive together (a server under load reads many sockets in one turn of the event
// loop) share one statement: the key checks (auth/authenticate.ts) and the hot detail reads
// (services/support/batched-reads.ts) gather theirs here. Writes that may wait for the statement
// before them (a run's events, a run's usage) queue for one with queueForStatement.
import type { Db } from "@/server/db";

/**
 * Adds `item` to the batch gathering for `db` in this turn of the event loop, or starts one when
 * there is none or it holds `most` already; `send` gets each batch on the next turn.
 */
export function joinTickBatch<Item>(
  gathering: WeakMap<Db, Item[]>,
  db: Db,
  item: Item,
  most: number,
  send: (db: Db, batch: Item[]) => Promise<void>,
): void {
  const open = gathering.get(db);
  if (open && open.length < most) {
    open.push(item);
    return;
  }
  const batch = [item];
  gathering.set(db, batch);
  setImmediate(() => {
    if (gathering.get(db) === batch) gathering.delete(db);
    void send(db, batch);
  });
}

/** A queue of queueForStatement: what waits, and how many of its statements are running. */
export interface StatementQueue<Item> {
  waiting: Item[];
  running: number;
  scheduled: boolean;
}

/**
 * Queues `item` for `send`, which writes up to `most` items in one statement. What waits goes at
 * the end of this turn of the event loop, or, when `inFlight` statements already run, as soon as
 * one of them ends: under load each statement carries everything that gathered while the last
 * one ran. `send` settles its items' callers itself and never rejects.
 */
export function queueForStatement<Item>(
  queues: WeakMap<Db, StatementQueue<Item>>,
  db: Db,
  item: Item,
  limits: { most: number; inFlight: number },
  send: (db: Db, items: Item[]) => Promise<void>,
): void {
  let queue = queues.get(db);
  if (!queue) {
    queue = { waiting: [], running: 0, scheduled: false };
    queues.set(db, queue);
  }
  queue.waiting.push(item);
  schedule(db, queue, limits, send);
}

function schedule<Item>(
  db: Db,
  queue: StatementQueue<Item>,
  limits: { most: number; inFlight: number },
  send: (db: Db, items: Item[]) => Promise<void>,
): void {
  if (queue.scheduled || queue.running >= limits.inFlight || queue.waiting.length === 0) return;
  queue.scheduled = true;
  setImmediate(() => {
    queue.scheduled = false;
    while (queue.running < limits.inFlight && queue.waiting.length > 0) {
      queue.running++;
      void send(db, queue.waiting.splice(0, limits.most)).finally(() => {
        queue.running--;
        schedule(db, queue, limits, send);
      });
    }
  });
}
