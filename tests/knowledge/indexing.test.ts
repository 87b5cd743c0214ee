// Background indexing: durable jobs survive a crash, two workers never index one source twice,
// a source never stays processing forever, and URL sources are fetched through the guard.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { chunkMarkdown } from "@/server/jobs/chunking";
import {
  CHUNKS_PER_TRANSACTION,
  claimJobs,
  drainIndexJobs,
  runIndexingOnce,
  startIndexWorker,
} from "@/server/jobs/indexing";
import { api } from "../helpers";
import { sourceOf, tenantWithKnowledgebase, upload } from "../knowledge-helpers";
import { pdfWithContent } from "../pdf-fixtures";

async function addText(key: string, kbId: string, text: string): Promise<string> {
  const response = await api("POST", `/knowledgebases/${kbId}/sources`, { key, body: { contentMarkdown: text } });
  return response.body.source.id as string;
}

let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    if (request.url === "/article") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(`<html><head><title>Moon</title></head><body><nav>Menu Home About</nav><article><h1>The Moon</h1>
        <p>The Moon is Earth's only natural satellite and orbits at an average distance of 384,400 km.</p>
        <p>Tides on Earth are mostly caused by the Moon's gravity pulling on the oceans.</p></article><footer>footer links</footer></body></html>`);
    } else if (request.url === "/hang") {
      // never answers
    } else if (request.url === "/to-metadata") {
      response.writeHead(301, { location: "http://169.254.169.254/latest/meta-data/" });
      response.end();
    } else {
      response.writeHead(200, { "content-type": "application/zip" });
      response.end("PK");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A markdown handbook of about `bytes` bytes: sections of varied paragraphs, lists and tables. */
function largeMarkdown(bytes: number): string {
  const words =
    "tide moon orbit ocean gravity satellite crater basalt regolith apogee perigee eclipse phase libration".split(" ");
  const parts: string[] = [];
  let size = 0;
  for (let section = 0; size < bytes; section++) {
    const paragraph = (seed: number) =>
      Array.from({ length: 60 }, (_, i) => words[(seed * 7 + i * 3 + section) % words.length]).join(" ") + ".";
    const block = [
      `## Section ${section}`,
      paragraph(1),
      paragraph(2),
      `- item ${section} one\n- item ${section} two`,
      `| key | value |\n| --- | --- |\n| ${section} | ${words[section % words.length]} |`,
      paragraph(3),
    ].join("\n\n");
    parts.push(block);
    size += Buffer.byteLength(block) + 2;
  }
  return parts.join("\n\n");
}

describe("large sources", () => {
  it("indexes a 4.4 MB markdown upload to ready with all its chunks, written in batches", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const markdown = largeMarkdown(4.4 * 1024 * 1024);
    const uploaded = await upload(key, kbId, { name: "handbook.md", type: "text/markdown", bytes: markdown });
    expect(uploaded.status, uploaded.text).toBe(202);
    const id = uploaded.body.source.id as string;
    await drainIndexJobs(getDb(), {}, 120_000);
    const source = await sourceOf(key, kbId, id);
    expect(source).toMatchObject({ status: "ready", errorMessage: "" });
    const expected = chunkMarkdown(markdown).length;
    expect(expected).toBeGreaterThan(5_000);
    expect(await getDb().sourceChunk.count({ where: { sourceId: id } })).toBe(expected);
  }, 180_000);

  it("names the cause in errorMessage when writing the chunks fails", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const id = await addText(key, kbId, "# Slow\n\nA source whose chunks the database is slow to take.");
    // Each insert into source_chunks takes a second: longer than the 0.3 s the write is given.
    const db = getDb();
    await db.$executeRawUnsafe(`create function slow_chunks() returns trigger language plpgsql as
      $$ begin perform pg_sleep(1); return null; end $$`);
    await db.$executeRawUnsafe(
      "create trigger slow_chunks after insert on source_chunks for each statement execute function slow_chunks()",
    );
    try {
      await drainIndexJobs(db, { writeTimeoutMs: 300, maxAttempts: 1 });
    } finally {
      await db.$executeRawUnsafe("drop trigger slow_chunks on source_chunks");
      await db.$executeRawUnsafe("drop function slow_chunks");
    }
    const source = await sourceOf(key, kbId, id);
    expect(source.status).toBe("failed");
    expect(source.errorMessage).toMatch(/failed 1 times \(last error: writing the index took longer than 0\.3 s/);
    expect(source.errorMessage).not.toMatch(/internal error/);
  });
});

/** About `bytes` of plain text: numbered paragraphs of varied words. */
function largeText(bytes: number): string {
  const words = "harbour ferry timetable cargo berth crane tug pilot anchor quay manifest customs".split(" ");
  const parts: string[] = [];
  for (let size = 0, n = 0; size < bytes; n++) {
    const paragraph = `Notice ${n}: ${Array.from({ length: 50 }, (_, i) => words[(n * 5 + i * 7) % words.length]).join(" ")}.`;
    parts.push(paragraph);
    size += paragraph.length + 2;
  }
  return parts.join("\n\n");
}

describe("a 4.4 MB text source", () => {
  it("is written in batches with its progress on the source page; a failure part-way says why and how far", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const db = getDb();
    const { getSourceDetail } = await import("@/server/services/knowledge/sources");
    const text = largeText(4.4 * 1024 * 1024);
    const first = await upload(key, kbId, { name: "notices.txt", type: "text/plain", bytes: text });
    expect(first.status, first.text).toBe(202);
    const id = first.body.source.id as string;
    // Each insert statement waits a little, so the progress between transactions can be seen.
    await db.$executeRawUnsafe(`create function slow_batches() returns trigger language plpgsql as
      $$ begin perform pg_sleep(0.3); return null; end $$`);
    await db.$executeRawUnsafe(
      "create trigger slow_batches after insert on source_chunks for each statement execute function slow_batches()",
    );
    const progress: [number, number][] = [];
    try {
      let done = false;
      const draining = drainIndexJobs(db, {}, 170_000).finally(() => (done = true));
      while (!done) {
        const { job } = await getSourceDetail(db, tenant.operator, { knowledgebaseId: kbId, sourceId: id });
        if (job && job.chunksTotal > 0) progress.push([job.chunksWritten, job.chunksTotal]);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await draining;
    } finally {
      await db.$executeRawUnsafe("drop trigger slow_batches on source_chunks");
      await db.$executeRawUnsafe("drop function slow_batches");
    }
    const total = await db.sourceChunk.count({ where: { sourceId: id } });
    expect(total).toBeGreaterThan(3 * CHUNKS_PER_TRANSACTION);
    expect(await sourceOf(key, kbId, id)).toMatchObject({ status: "ready", errorMessage: "" });
    expect(progress.some(([written, of]) => of === total && written > 0 && written < total)).toBe(true);

    // The same document again, with the database refusing the chunks past the second batch.
    const second = await upload(key, kbId, { name: "notices-again.txt", type: "text/plain", bytes: text });
    const failing = second.body.source.id as string;
    await db.$executeRawUnsafe(`create function refuse_late_chunks() returns trigger language plpgsql as
      $$ begin if new.position >= ${2 * CHUNKS_PER_TRANSACTION} then raise exception 'out of disk (simulated)'; end if; return new; end $$`);
    await db.$executeRawUnsafe(
      "create trigger refuse_late_chunks before insert on source_chunks for each row execute function refuse_late_chunks()",
    );
    try {
      await drainIndexJobs(db, { maxAttempts: 1 }, 170_000);
    } finally {
      await db.$executeRawUnsafe("drop trigger refuse_late_chunks on source_chunks");
      await db.$executeRawUnsafe("drop function refuse_late_chunks");
    }
    const failed = await sourceOf(key, kbId, failing);
    expect(failed.status).toBe("failed");
    expect(failed.errorMessage).toMatch(
      new RegExp(`failed 1 times \\(last error: .*, with 2,000 of ${total.toLocaleString("en-US")} chunks written\\)`),
    );
    // What the failed attempt wrote part-way is gone.
    expect(await db.sourceChunk.count({ where: { sourceId: failing } })).toBe(0);
  }, 400_000);
});

describe("indexing jobs", () => {
  it("finishes a source whose worker crashed mid-job once the lease runs out", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const id = await addText(tenant.orgKey.secret, kbId, "# Crash\n\nresumable text");
    // A worker claims the job with a short lease and dies before doing anything.
    const claimed = await claimJobs(getDb(), 10, 100);
    expect(claimed.map((job) => job.sourceId)).toContain(id);
    expect(await runIndexingOnce(getDb())).toBe(0); // the lease still holds: nobody else takes it
    expect((await sourceOf(tenant.orgKey.secret, kbId, id)).status).toBe("processing");
    await new Promise((resolve) => setTimeout(resolve, 150));
    await drainIndexJobs(getDb());
    expect((await sourceOf(tenant.orgKey.secret, kbId, id)).status).toBe("ready");
    expect(await getDb().indexJob.count({ where: { sourceId: id } })).toBe(0);
  });

  it("renews the lease while a job runs longer than it, so no other worker takes the job over", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const pdf = pdfWithContent("BT /F1 12 Tf 72 700 Td (Renewed while extracted) Tj ET");
    const id = (await upload(tenant.orgKey.secret, kbId, { name: "slow.pdf", bytes: pdf })).body.source.id as string;
    const claims: string[] = [];
    const options = { leaseMs: 150, afterClaim: (job: { sourceId: string }) => void claims.push(job.sourceId) };
    const { createDb, closeDb } = await import("@/server/db");
    const second = createDb(process.env.DATABASE_URL!, 2); // another "process" polling meanwhile
    try {
      let working = true;
      const first = runIndexingOnce(getDb(), options).finally(() => (working = false));
      while (working) {
        await runIndexingOnce(second, options);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await first;
    } finally {
      await closeDb(second);
    }
    expect(claims).toEqual([id]); // extraction takes several leases' time; one claim all along
    expect((await sourceOf(tenant.orgKey.secret, kbId, id)).status).toBe("ready");
  });

  it("a worker whose lease was taken over cannot write its result", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const id = await addText(tenant.orgKey.secret, kbId, "late writer");
    const [stale] = await claimJobs(getDb(), 10, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await drainIndexJobs(getDb()); // takes the job over and finishes it
    const { runJob } = await import("@/server/jobs/indexing");
    await getDb().source.update({ where: { id }, data: { status: "processing" } });
    await runJob(getDb(), stale!); // the stale holder's token no longer matches
    expect(await getDb().sourceChunk.count({ where: { sourceId: id } })).toBe(1);
  });

  it("two workers never index one source twice", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const ids = await Promise.all(
      Array.from({ length: 24 }, (_, i) => addText(tenant.orgKey.secret, kbId, `document ${i} about apples`)),
    );
    const claims: string[] = [];
    const options = {
      batch: 3,
      afterClaim: async (job: { sourceId: string }) => {
        claims.push(job.sourceId);
        await new Promise((resolve) => setTimeout(resolve, 5));
      },
    };
    const { createDb, closeDb } = await import("@/server/db");
    const second = createDb(process.env.DATABASE_URL!, 4); // another "process": its own pool
    try {
      await Promise.all([drainIndexJobs(getDb(), options), drainIndexJobs(second, options)]);
    } finally {
      await closeDb(second);
    }
    const ours = claims.filter((id) => ids.includes(id));
    expect(ours.sort()).toEqual([...ids].sort());
    expect(new Set(ours).size).toBe(ours.length);
    const rows = await getDb().source.findMany({ where: { id: { in: ids } } });
    expect(rows.every((row) => row.status === "ready")).toBe(true);
    expect(await getDb().sourceChunk.count({ where: { sourceId: { in: ids } } })).toBe(24);
  });

  it("ends a source that ran out of time in failed with an actionable reason; retry runs it again", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const id = await addText(key, kbId, "slow document");
    // As if attempts kept dying for an hour.
    await getDb()
      .$executeRaw`update index_jobs set status = 'running', attempts = 2, started_at = now() - interval '1 hour',
      lease_until = now() - interval '1 second', last_error = 'worker died' where source_id = ${id}::uuid`;
    await drainIndexJobs(getDb());
    const failed = await sourceOf(key, kbId, id);
    expect(failed.status).toBe("failed");
    expect(failed.errorMessage).toMatch(/did not finish.*worker died.*\/retry/);
    const retried = await api("POST", `/knowledgebases/${kbId}/sources/${id}/retry`, { key });
    expect(retried.body.source).toMatchObject({ status: "processing", errorMessage: "" });
    await drainIndexJobs(getDb());
    expect((await sourceOf(key, kbId, id)).status).toBe("ready");
  });

  it("queues a transient failure again and fails once the attempts run out", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const id = (
      await api("POST", `/knowledgebases/${kbId}/sources`, { key, body: { url: `http://127.0.0.1:${port}/hang` } })
    ).body.source.id;
    const options = { fetchLimits: { allow: [`127.0.0.1:${port}`], timeoutMs: 10_000 }, attemptTimeoutMs: 50 };
    for (let attempt = 1; attempt <= 3; attempt++) {
      await getDb().indexJob.updateMany({ where: { sourceId: id }, data: { runAfter: new Date(0) } });
      await runIndexingOnce(getDb(), options);
      const source = await sourceOf(key, kbId, id);
      expect(source.status).toBe(attempt < 3 ? "processing" : "failed");
    }
    expect((await sourceOf(key, kbId, id)).errorMessage).toMatch(
      /failed 3 times \(last error: the attempt took longer than 50 ms\).*\/retry/,
    );
  });

  it("fetches a URL source and converts the HTML; a redirect to a metadata address fails with the reason", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const fetchLimits = { allow: [`127.0.0.1:${port}`] };
    const good = (
      await api("POST", `/knowledgebases/${kbId}/sources`, { key, body: { url: `http://127.0.0.1:${port}/article` } })
    ).body.source.id;
    const redirected = (
      await api("POST", `/knowledgebases/${kbId}/sources`, {
        key,
        body: { url: `http://127.0.0.1:${port}/to-metadata` },
      })
    ).body.source.id;
    const zip = (
      await api("POST", `/knowledgebases/${kbId}/sources`, { key, body: { url: `http://127.0.0.1:${port}/file.zip` } })
    ).body.source.id;
    await drainIndexJobs(getDb(), { fetchLimits });
    const row = await getDb().source.findUniqueOrThrow({ where: { id: good } });
    expect(row).toMatchObject({ status: "ready", type: "html" });
    expect(row.text).toContain("natural satellite");
    expect(row.text).not.toContain("footer links");
    expect((await sourceOf(key, kbId, redirected)).errorMessage).toMatch(/169\.254\.169\.254/);
    expect((await sourceOf(key, kbId, zip)).errorMessage).toMatch(/application\/zip/);
  });

  it("hands the jobs in hand back at once when the server shuts down, without counting the attempt", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const claimed = new Set<string>();
    let finishAttempt = () => {};
    const attemptHeld = new Promise<void>((resolve) => (finishAttempt = resolve));
    const worker = startIndexWorker(getDb(), {
      pollMs: 5000,
      afterClaim: async (job) => {
        claimed.add(job.sourceId);
        await attemptHeld;
      },
    });
    const id = await addText(tenant.orgKey.secret, kbId, "# Shutdown\n\nhanded back");
    await expect.poll(() => claimed.has(id), { timeout: 3000 }).toBe(true);
    expect(await getDb().indexJob.findFirstOrThrow({ where: { sourceId: id } })).toMatchObject({
      status: "running",
      attempts: 1,
    });

    await worker.release();
    expect(await getDb().indexJob.findFirstOrThrow({ where: { sourceId: id } })).toMatchObject({
      status: "queued",
      claimToken: null,
      attempts: 0,
    });
    // The stopped worker's attempt goes on, finds its claim gone, and writes nothing.
    finishAttempt();
    await worker.stop();
    expect((await sourceOf(tenant.orgKey.secret, kbId, id)).status).toBe("processing");
    // Another process takes the job at once.
    await drainIndexJobs(getDb());
    expect((await sourceOf(tenant.orgKey.secret, kbId, id)).status).toBe("ready");
  });

  it("indexes at once a source added while the worker's round is under way, not a poll later", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    // The round is held where it looks for crawled pages, past where it looked for documents.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked = () => {};
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = getDb().$transaction(
      async (tx) => {
        await tx.$executeRaw`lock table crawl_pages in access exclusive mode`;
        locked();
        await released;
      },
      { timeout: 30_000 },
    );
    await isLocked;
    const worker = startIndexWorker(getDb(), { pollMs: 60_000 });
    try {
      await expect
        .poll(
          async () =>
            (
              await getDb().$queryRaw<{ n: number }[]>`
                select count(*)::int as n from pg_stat_activity
                where wait_event_type = 'Lock' and query like '%crawl_pages%' and query not like '%pg_stat_activity%'`
            )[0]!.n,
        )
        .toBeGreaterThan(0);
      const id = await addText(tenant.orgKey.secret, kbId, "added mid-round");
      release();
      await holding;
      await expect
        .poll(async () => (await sourceOf(tenant.orgKey.secret, kbId, id)).status, { timeout: 5000 })
        .toBe("ready");
    } finally {
      release();
      await holding.catch(() => undefined);
      await worker.stop();
    }
  });

  it("runs in a worker loop that a new source wakes", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const worker = startIndexWorker(getDb(), { pollMs: 5000 });
    try {
      const id = await addText(tenant.orgKey.secret, kbId, "woken");
      await expect
        .poll(async () => (await sourceOf(tenant.orgKey.secret, kbId, id)).status, { timeout: 3000 })
        .toBe("ready");
    } finally {
      await worker.stop();
    }
  });
});
