// The chunk table's statistics after a large load (src/server/jobs/chunk-statistics.ts): the
// indexing worker analyzes the table when it goes idle after writing enough chunks, once across
// processes, and not for a load that is a small share of a large table.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { ANALYZE_LOCK, analyzeChunksAfterLoad, noteChunksWritten } from "@/server/jobs/chunk-statistics";
import { startIndexWorker } from "@/server/jobs/indexing";
import { api } from "../helpers";
import { sourceOf, tenantWithKnowledgebase } from "../knowledge-helpers";

/** Times the chunk table was analyzed by hand (ANALYZE; autovacuum's are counted apart). */
async function analyses(): Promise<number> {
  const [row] = await getDb().$queryRaw<{ n: bigint }[]>`
    select analyze_count as n from pg_stat_user_tables where relid = 'source_chunks'::regclass`;
  return Number(row!.n);
}

/** Starts counting from nothing: the files before this one in the process wrote chunks too. */
async function countFromNothing(): Promise<void> {
  noteChunksWritten(1);
  await analyzeChunksAfterLoad(getDb(), { chunks: 0, share: 0 });
}

describe("the chunk table's statistics after a load", () => {
  it("are taken by the worker once it is idle after writing enough chunks", async () => {
    await countFromNothing();
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const before = await analyses();
    const worker = startIndexWorker(getDb(), { pollMs: 50, analyzeAfter: { chunks: 3, share: 0 } });
    try {
      const markdown = ["# Tides", "# Orbits", "# Phases"].map(
        (h) => `${h}\n\n${"The Moon pulls the sea. ".repeat(60)}`,
      );
      const created = await api("POST", `/knowledgebases/${kbId}/sources`, {
        key: tenant.orgKey.secret,
        body: { contentMarkdown: markdown.join("\n\n") },
      });
      expect(created.status).toBe(202);
      await expect
        .poll(async () => (await sourceOf(tenant.orgKey.secret, kbId, created.body.source.id)).status, {
          timeout: 10_000,
        })
        .toBe("ready");
      await expect.poll(analyses, { timeout: 10_000 }).toBeGreaterThan(before);
    } finally {
      await worker.stop();
    }
  });

  it("are not taken for fewer chunks than the threshold, nor for a small share of the table", async () => {
    await countFromNothing();
    noteChunksWritten(10);
    expect(await analyzeChunksAfterLoad(getDb(), { chunks: 11, share: 0 })).toBe(false);
    // The table holds rows (the test before wrote some): ten chunks are no share of a billion times it.
    expect(await analyzeChunksAfterLoad(getDb(), { chunks: 5, share: 1e9 })).toBe(false);
    // Those writes still count towards the next time.
    expect(await analyzeChunksAfterLoad(getDb(), { chunks: 10, share: 0 })).toBe(true);
    expect(await analyzeChunksAfterLoad(getDb(), { chunks: 1, share: 0 })).toBe(false);
  });

  it("are left to the process already taking them", async () => {
    await countFromNothing();
    const other = await getDb().pool.connect();
    try {
      await other.query("begin");
      await other.query("select pg_advisory_xact_lock($1)", [ANALYZE_LOCK]);
      noteChunksWritten(10);
      const before = await analyses();
      expect(await analyzeChunksAfterLoad(getDb(), { chunks: 1, share: 0 })).toBe(false);
      expect(await analyses()).toBe(before);
      await other.query("commit");
      // The other process's analysis counted those chunks: nothing is left to do here.
      expect(await analyzeChunksAfterLoad(getDb(), { chunks: 1, share: 0 })).toBe(false);
    } finally {
      other.release();
    }
  });
});
