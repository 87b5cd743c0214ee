// Fresh planner statistics for the chunk table after a large load. The ranking statement is
// planned from them (candidates-sql.ts sizes the searched knowledgebases and estimates its terms'
// rows): a thousand documents just indexed were searched in 70 ms where, analyzed, they take 40
// (BENCHMARKS.md, 2026-12-06). Autovacuum analyzes a table a minute later at best, and a large
// one only once a tenth of its rows changed. So the indexing worker (indexing.ts) analyzes the
// table itself when it goes idle after a load that wrote at least ANALYZE_AFTER.chunks chunks,
// a share of at least ANALYZE_AFTER.share of the table: one process at a time.
import type { Db } from "@/server/db";
import { logger } from "@/server/observability/log";

export interface AnalyzeThreshold {
  /** Chunks written since the table was last analyzed here. */
  chunks: number;
  /** Those chunks' share of the table's rows (as the last statistics counted them). */
  share: number;
}

export const ANALYZE_AFTER: AnalyzeThreshold = { chunks: 1_000, share: 0.05 };

/** Held while one process analyzes the chunk table: another finding it taken leaves the work to it. */
export const ANALYZE_LOCK = 7_441_203_913;

/** Chunks this process wrote since it last analyzed the table (or found another process at it). */
let chunksWritten = 0;

/** Counts the chunks a source's indexing wrote. */
export function noteChunksWritten(count: number): void {
  chunksWritten += count;
}

/**
 * Analyzes the chunk table when this process's writes since the last time reach `after`; true
 * when it did. Once it has a connection, a failure is logged, not thrown: statistics are an
 * optimization, and the worker's next round should not back off for them.
 */
export async function analyzeChunksAfterLoad(db: Db, after: AnalyzeThreshold = ANALYZE_AFTER): Promise<boolean> {
  if (chunksWritten < after.chunks) return false;
  const client = await db.pool.connect();
  const written = chunksWritten;
  chunksWritten = 0;
  let failure: Error | undefined;
  try {
    await client.query("begin");
    const { rows } = await client.query<{ locked: boolean; tableRows: number }>(
      `select pg_try_advisory_xact_lock($1) as locked, greatest(reltuples, 0)::float8 as "tableRows"
       from pg_class where oid = 'source_chunks'::regclass`,
      [ANALYZE_LOCK],
    );
    const { locked, tableRows } = rows[0]!;
    // A load that is a small share of a large table changes its statistics little: keep counting.
    if (locked && written < after.share * tableRows) chunksWritten += written;
    const due = locked && written >= after.share * tableRows;
    if (due) await client.query("analyze source_chunks");
    await client.query("commit");
    return due;
  } catch (error) {
    failure = error as Error;
    await client.query("rollback").catch(() => {});
    logger().warn({ reason: failure.message }, "Analyzing the chunk table after a load failed");
    return false;
  } finally {
    // A connection that failed is closed, not handed to the next query.
    client.release(failure);
  }
}
