// Writing a document's chunks, shared by indexing (indexing.ts), refreshes (refresh.ts) and
// crawls (crawl.ts): in statements of CHUNK_WRITE_BATCH rows, so each stays small whatever the
// document's size. Callers hold the source row's lock (lockSource) first, as deleting a source
// does, so a delete and a writer wait for each other in line instead of in a cycle.
import type { Db } from "@/server/db";
import type { Chunk } from "./chunking";

/** Chunks per insert statement. */
export const CHUNK_WRITE_BATCH = 500;

type Tx = Pick<Db, "$executeRaw" | "$queryRaw">;

/** Locks the source row for the rest of the transaction; false when it is gone. */
export async function lockSource(tx: Pick<Db, "$queryRaw">, sourceId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<unknown[]>`select 1 from sources where id = ${sourceId}::uuid for no key update`;
  return rows.length === 1;
}

/** Inserts chunks from position `first` on, one statement per batch. */
export async function insertChunks(
  tx: Tx,
  source: { id: string; knowledgebaseId: string },
  chunks: readonly Chunk[],
  first = 0,
): Promise<void> {
  for (let start = 0; start < chunks.length; start += CHUNK_WRITE_BATCH) {
    const batch = chunks.slice(start, start + CHUNK_WRITE_BATCH);
    await tx.$executeRaw`
      insert into source_chunks (id, source_id, knowledgebase_id, position, text, heading)
      select gen_random_uuid(), ${source.id}::uuid, ${source.knowledgebaseId}::uuid, c.position, c.text, c.heading
      from unnest(${batch.map((_, i) => first + start + i)}::int[], ${batch.map((c) => c.text)}::text[], ${batch.map((c) => c.heading)}::text[]) as c(position, text, heading)`;
  }
}

/** Replaces every chunk of a source (its lock held). */
export async function replaceChunks(
  tx: Tx,
  source: { id: string; knowledgebaseId: string },
  chunks: readonly Chunk[],
): Promise<void> {
  await tx.$executeRaw`delete from source_chunks where source_id = ${source.id}::uuid`;
  await insertChunks(tx, source, chunks);
}
