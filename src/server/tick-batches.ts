// Requests that arrive together (a server under load reads many sockets in one turn of the event
// loop) share one statement: the key checks (auth/authenticate.ts) and the hot detail reads
// (services/support/batched-reads.ts) gather theirs here.
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
