// Deleting a source while the worker indexes it: the delete and the worker's write take their row
// locks in the same order (the source, then its job and chunks), so neither waits for the other in
// a cycle (PostgreSQL's `deadlock detected`, once a 500). Every delete answers 204 and leaves
// nothing of the source behind.
import { expect, it } from "vitest";
import { getDb } from "@/server/db";
import { startIndexWorker } from "@/server/jobs/indexing";
import { api } from "../helpers";
import { tenantWithKnowledgebase } from "../knowledge-helpers";

const PAIRS = 50;
const AT_ONCE = 10;
// Enough chunks that the worker's write takes a while, so deletes land in the middle of it.
const DOCUMENT = Array.from(
  { length: 60 },
  (_, i) => `## Section ${i}\n\n${"Words about the refund policy and delivery times. ".repeat(30)}`,
).join("\n\n");

it("50 create-then-delete pairs while the worker runs: every delete 204, no source, chunk or job left", async () => {
  const { tenant, kbId } = await tenantWithKnowledgebase();
  const key = tenant.orgKey.secret;
  const worker = startIndexWorker(getDb(), { pollMs: 5, batch: 8 });
  const deletes: { status: number; body: unknown }[] = [];
  try {
    let next = 0;
    await Promise.all(
      Array.from({ length: AT_ONCE }, async (_, lane) => {
        while (next < PAIRS) {
          const pair = next++;
          const created = await api("POST", `/knowledgebases/${kbId}/sources`, {
            key,
            body: { name: `Doc ${pair}`, contentMarkdown: DOCUMENT },
          });
          expect(created.status).toBe(202);
          // Spread the deletes over the worker's claim, extraction and write.
          await new Promise((resolve) => setTimeout(resolve, (pair * 7 + lane * 3) % 40));
          const deleted = await api("DELETE", `/knowledgebases/${kbId}/sources/${created.body.source.id}`, { key });
          deletes.push({ status: deleted.status, body: deleted.body });
        }
      }),
    );
  } finally {
    await worker.stop();
  }
  expect(deletes.filter((d) => d.status !== 204)).toEqual([]);
  expect(deletes).toHaveLength(PAIRS);
  const db = getDb();
  expect(await db.source.count({ where: { knowledgebaseId: kbId } })).toBe(0);
  expect(await db.sourceChunk.count({ where: { knowledgebaseId: kbId } })).toBe(0);
  expect(await db.indexJob.count({ where: { source: { knowledgebaseId: kbId } } })).toBe(0);
});
