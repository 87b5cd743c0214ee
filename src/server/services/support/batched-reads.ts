// Hot reads of one row by organization and id, shared by the requests that ask in the same turn
// of the event loop: under load many sockets are read in one turn, and one statement for all of
// them costs PostgreSQL and the driver a fraction of one each (a round trip, a write, a plan's
// execution start), as the key checks do (src/server/tick-batches.ts).
import { isUuid } from "@/schemas/common";
import type { Db } from "@/server/db";
import { joinTickBatch } from "@/server/tick-batches";

/** The most reads one statement carries: a larger burst goes in several. */
export const READ_BATCH = 100;

interface Ask<Row> {
  organizationId: string;
  id: string;
  settle: (row: Row | undefined | Error) => void;
}

/**
 * A reader for the named statement `text`, which takes the organizations ($1, uuid[]) and ids
 * ($2, uuid[]) of the reads, and answers at most one row for each, with `i`, its subscript in
 * the arrays (1-based). Each read is scoped by its own organization in the statement.
 */
export function batchedReader<Row extends { i: number }>(name: string, text: string) {
  const waiting = new WeakMap<Db, Ask<Row>[]>();

  async function send(db: Db, asks: Ask<Row>[]): Promise<void> {
    try {
      const { rows } = await db.pool.query<Row>({
        name,
        text,
        values: [asks.map((ask) => ask.organizationId), asks.map((ask) => ask.id)],
      });
      const found = new Array<Row | undefined>(asks.length);
      for (const row of rows) found[row.i - 1] = row;
      asks.forEach((ask, index) => ask.settle(found[index]));
    } catch (error) {
      for (const ask of asks) ask.settle(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** The row of `id` in `organizationId`, or undefined when there is none. */
  return function read(db: Db, organizationId: string, id: string): Promise<Row | undefined> {
    // An id that is no UUID finds nothing, rather than failing the statement it would share.
    if (!isUuid(id) || !isUuid(organizationId)) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const ask: Ask<Row> = {
        organizationId,
        id,
        settle: (row) => (row instanceof Error ? reject(row) : resolve(row)),
      };
      joinTickBatch(waiting, db, ask, READ_BATCH, send);
    });
  };
}
