// Hostile documents (issue 10): extraction runs in a child process with its own memory, time
// and output bounds, so a PDF bomb or a dying worker fails its source at once while this
// process keeps serving; a job left behind by a crashed server is claimed again at most 3
// times; text PostgreSQL cannot store is removed; the worker rides out a database outage
// quietly; a second file part and SSRF refusals answer plainly.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getDb, type Db } from "@/server/db";
import { storableText } from "@/schemas/text";
import { EXTRACTION_LIMITS } from "@/server/jobs/extraction-process";
import { FetchRefused, fetchUrl } from "@/server/jobs/fetch-url";
import { backoffDelay, claimJobs, runIndexingOnce, startIndexWorker } from "@/server/jobs/indexing";
import { logger } from "@/server/observability/log";
import { api, restHandler, toApiResponse } from "../helpers";
import { drain, sourceOf, tenantWithKnowledgebase, upload } from "../knowledge-helpers";
import { pdfBomb, pdfWithContent } from "../pdf-fixtures";

/** What a person may read in errorMessage: no stack, no library or database internals. */
function expectPlain(message: string) {
  expect(message).not.toMatch(/\n\s+at |Error:|prisma|postgres|invalid byte sequence|ECONN|0x00/i);
}

async function pdfSource(key: string, kbId: string, bytes: Uint8Array, name = "doc.pdf"): Promise<string> {
  const response = await upload(key, kbId, { name, type: "application/pdf", bytes });
  expect(response.status).toBe(202);
  return response.body.source.id as string;
}

const pages = (count: number) => {
  const ops = Array.from(
    { length: count },
    (_, i) => `(Line ${i} of a perfectly ordinary report about quarterly revenue) Tj T*`,
  ).join("\n");
  return pdfWithContent(`BT /F1 12 Tf 14 TL 72 700 Td\n${ops}\nET`);
};

describe("a PDF bomb", () => {
  it("fails quickly under the default limits with a plain message while this process keeps serving", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const bomb = await pdfBomb(300);
    expect(bomb.byteLength).toBeLessThan(1.5 * 1024 * 1024);
    const id = await pdfSource(key, kbId, bomb, "bomb.pdf");
    const rssBefore = process.memoryUsage().rss;
    const started = Date.now();
    let extracting = true;
    const indexing = drain().finally(() => (extracting = false));
    // The web process answers while the bomb is being extracted.
    let served = 0;
    while (extracting) {
      const response = await api("GET", `/knowledgebases/${kbId}`, { key });
      expect(response.status).toBe(200);
      served++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await indexing;
    expect(served).toBeGreaterThan(1);
    expect(Date.now() - started).toBeLessThan(EXTRACTION_LIMITS.timeoutMs);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(150 * 1024 * 1024);
    const source = await sourceOf(key, kbId, id);
    expect(source.status).toBe("failed");
    expect(source.errorMessage).toMatch(/Extraction ran out of memory/);
    expectPlain(source.errorMessage);
    // Failed at once: the poison pill is not queued for another process.
    expect(await getDb().indexJob.count({ where: { sourceId: id } })).toBe(0);
    expect(await getDb().sourceChunk.count({ where: { sourceId: id } })).toBe(0);
  }, 60_000);

  it("ends a document whose text is over the character limit in failed, naming the limit", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const pdf = await pdfSource(key, kbId, pages(40));
    const csv = (await upload(key, kbId, { name: "rows.csv", bytes: "a,b\n" + "1,2\n".repeat(200) })).body.source
      .id as string;
    await drain({ extraction: { maxChars: 1000 } });
    for (const id of [pdf, csv]) {
      const source = await sourceOf(key, kbId, id);
      expect(source.status).toBe("failed");
      expectPlain(source.errorMessage);
    }
    expect((await sourceOf(key, kbId, pdf)).errorMessage).toBe("The PDF's text exceeds the 1,000-character limit.");
    expect((await sourceOf(key, kbId, csv)).errorMessage).toBe("The CSV's text exceeds the 1,000-character limit.");
  });

  it("ends extraction that takes longer than the time limit in failed at once", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const id = await pdfSource(key, kbId, pages(5));
    await runIndexingOnce(getDb(), { extraction: { timeoutMs: 100 } });
    const source = await sourceOf(key, kbId, id);
    expect(source).toMatchObject({
      status: "failed",
      errorMessage: "Extraction took longer than 100 ms, the limit for one document.",
    });
    expect(await getDb().indexJob.count({ where: { sourceId: id } })).toBe(0);
  });

  it("ends extraction over the memory limit in failed (the heap limit and the process-size watch)", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const watched = await pdfSource(key, kbId, pages(5));
    await runIndexingOnce(getDb(), { extraction: { memoryMb: 40 } });
    expect(await sourceOf(key, kbId, watched)).toMatchObject({
      status: "failed",
      errorMessage: expect.stringMatching(/^Extraction ran out of memory/),
    });
    // V8's own heap limit: a CSV of a million cells cannot be parsed in a 32 MB heap.
    const csv = (await upload(key, kbId, { name: "cells.csv", bytes: "1,2,3,4,5,6,7,8,9,0\n".repeat(100_000) })).body
      .source.id as string;
    await runIndexingOnce(getDb(), { extraction: { heapMb: 32, memoryMb: 4096 } });
    expect(await sourceOf(key, kbId, csv)).toMatchObject({
      status: "failed",
      errorMessage: expect.stringMatching(/^Extraction ran out of memory/),
    });
  });

  it("fails the source at once when its extraction worker is killed mid-extraction", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const id = await pdfSource(key, kbId, pages(5));
    const pids: number[] = [];
    await runIndexingOnce(getDb(), {
      onExtractionWorker: (pid) => {
        pids.push(pid);
        process.kill(pid, "SIGKILL");
      },
    });
    expect(pids).toHaveLength(1);
    const source = await sourceOf(key, kbId, id);
    expect(source).toMatchObject({
      status: "failed",
      errorMessage: "The extraction worker stopped unexpectedly (SIGKILL); the document was not indexed.",
    });
    expect(await getDb().indexJob.count({ where: { sourceId: id } })).toBe(0);
    // The web process is unharmed and the retry runs under the same limits.
    const retried = await api("POST", `/knowledgebases/${kbId}/sources/${id}/retry`, { key });
    expect(retried.status).toBe(200);
    await drain();
    expect((await sourceOf(key, kbId, id)).status).toBe("ready");
  });
});

describe("jobs left behind by a crashed server", () => {
  it("leave no extraction worker running: a server killed mid-extraction takes its worker with it", async () => {
    // A stand-in server extracts a page whose parsing holds the worker's main thread for many
    // seconds, prints the worker's pid, and is killed -9 while the worker is busy.
    const dir = await mkdtemp(path.join(os.tmpdir(), "atrium-orphan-"));
    try {
      await writeFile(
        path.join(dir, "page.html"),
        `<html><body>${"<p>word word word</p>".repeat(200_000)}</body></html>`,
      );
      const script = path.join(dir, "server.mts");
      await writeFile(
        script,
        `import { readFileSync } from "node:fs";
        import { extractInChildProcess } from ${JSON.stringify(path.join(process.cwd(), "src/server/jobs/extraction-process.ts"))};
        const bytes = new Uint8Array(readFileSync(${JSON.stringify(path.join(dir, "page.html"))}));
        await extractInChildProcess({ kind: "bytes", type: "html", bytes }, {}, { onWorker: (pid) => console.log(pid) });`,
      );
      const server = spawn(process.execPath, ["--import", "tsx", script], {
        cwd: process.cwd(),
        stdio: ["ignore", "pipe", "inherit"],
      });
      const workerPid = await new Promise<number>((resolve, reject) => {
        server.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
        server.once("exit", () => reject(new Error("the stand-in server ended early")));
      });
      const alive = (pid: number) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      await new Promise((resolve) => setTimeout(resolve, 2500)); // the worker is parsing by now
      expect(alive(workerPid)).toBe(true);
      server.kill("SIGKILL");
      await expect.poll(() => alive(workerPid), { timeout: 3000, interval: 100 }).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it("are claimed again, at most 3 attempts in all, then failed plainly; retry resets the attempts", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const id = await pdfSource(key, kbId, pages(3));
    // Three servers in turn claim the job (1 ms lease) and die before finishing it.
    for (let attempt = 1; attempt <= 3; attempt++) {
      const claimed = await claimJobs(getDb(), 10, 1);
      expect(claimed.map((job) => [job.sourceId, job.attempts])).toEqual([[id, attempt]]);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await drain();
    const source = await sourceOf(key, kbId, id);
    expect(source.status).toBe("failed");
    expect(source.errorMessage).toMatch(/^Indexing did not finish after 3 attempts/);
    expect(source.errorMessage).toMatch(/\/retry/);
    expectPlain(source.errorMessage);
    expect(await getDb().indexJob.count({ where: { sourceId: id } })).toBe(0);

    const retried = await api("POST", `/knowledgebases/${kbId}/sources/${id}/retry`, { key });
    expect(retried.body.source).toMatchObject({ status: "processing", errorMessage: "" });
    expect(await getDb().indexJob.findUniqueOrThrow({ where: { sourceId: id } })).toMatchObject({
      attempts: 0,
      status: "queued",
    });
    await drain();
    expect((await sourceOf(key, kbId, id)).status).toBe("ready");
  });

  it("a job claimed once by a crashed server is finished by the next one", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const id = await pdfSource(key, kbId, pages(3));
    await claimJobs(getDb(), 10, 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await drain();
    expect((await sourceOf(key, kbId, id)).status).toBe("ready");
  });
});

describe("text PostgreSQL cannot store", () => {
  it("is removed from extracted text: U+0000 from a PDF and a text file", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    // A font whose ToUnicode map turns B into U+0000.
    const cmap =
      "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Hostile def 1 begincodespacerange <00> <FF> endcodespacerange " +
      "2 beginbfchar <42> <0000> <43> <0043> endbfchar endcmap CMapName currentdict /CMap defineresource pop end end";
    const pdf = pdfWithContent("BT /F1 12 Tf 72 700 Td (CBCBC) Tj ET", {
      fontExtra: "/ToUnicode 6 0 R",
      extra: [{ stream: cmap }],
    });
    const pdfId = await pdfSource(key, kbId, pdf);
    const textId = (await upload(key, kbId, { name: "notes.txt", bytes: "before\u0000after and more" })).body.source
      .id as string;
    await drain();
    for (const id of [pdfId, textId]) {
      const row = await getDb().source.findUniqueOrThrow({ where: { id } });
      expect(row.status, row.errorMessage ?? "").toBe("ready");
    }
    expect((await getDb().source.findUniqueOrThrow({ where: { id: pdfId } })).text).toBe("CCC");
    expect((await getDb().source.findUniqueOrThrow({ where: { id: textId } })).text).toBe("beforeafter and more");
    expect(await getDb().sourceChunk.count({ where: { sourceId: { in: [pdfId, textId] } } })).toBe(2);
  });

  it("removes unpaired surrogates and keeps pairs", () => {
    expect(storableText("a\uD800b\uDC00c\u0000d\uD83D\uDE00e\uDBFF")).toBe("abcd\uD83D\uDE00e");
  });
});

describe("the indexing worker while the database is away", () => {
  it("backs off exponentially up to a cap", () => {
    expect([1, 2, 3, 4, 5, 10, 40].map((failures) => backoffDelay(failures, 1000, 30_000))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);
  });

  it("logs one line when the database goes away and one when it is back, not a stack per round", async () => {
    let up = false;
    let rounds = 0;
    const fake = {
      $queryRaw: async () => {
        rounds++;
        if (!up)
          throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5999\n    at TCPConnectWrap.afterConnect"), {
            code: "ECONNREFUSED",
          });
        return [];
      },
      // No organization has an embedding model: the worker's hybrid-search round finds nothing.
      modelProvider: { findMany: async () => [] },
    } as unknown as Db;
    const errors = vi.spyOn(logger(), "error");
    const logs = vi.spyOn(logger(), "info");
    const worker = startIndexWorker(fake, { pollMs: 5, maxBackoffMs: 80 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 400));
      // 5, 10, 20, 40, 80, 80, ... ms between rounds: a handful of rounds, not one per poll.
      expect(rounds).toBeGreaterThan(2);
      expect(rounds).toBeLessThan(12);
      expect(errors).toHaveBeenCalledTimes(1);
      const [line] = errors.mock.calls[0]!;
      expect(typeof line).toBe("string");
      expect(line).toMatch(/database is unreachable \(ECONNREFUSED\)/);
      expect(line).not.toContain("\n");
      up = true;
      await expect.poll(() => logs.mock.calls.length, { timeout: 1000 }).toBe(1);
      expect(logs.mock.calls[0]![0]).toMatch(/database is reachable again/);
      const roundsWhenBack = rounds;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(rounds - roundsWhenBack).toBeGreaterThan(3); // polling at pollMs again
      expect(errors).toHaveBeenCalledTimes(1);
    } finally {
      await worker.stop();
      errors.mockRestore();
      logs.mockRestore();
    }
  });
  it("says plainly that a real client cannot reach a database on a closed port, once", async () => {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const { createDb, closeDb } = await import("@/server/db");
    const away = createDb(`postgresql://atrium:secret@127.0.0.1:${closedPort}/atrium`, 1);
    const errors = vi.spyOn(logger(), "error");
    const worker = startIndexWorker(away, { pollMs: 5, maxBackoffMs: 40 });
    try {
      await expect.poll(() => errors.mock.calls.length, { timeout: 10_000 }).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 300)); // several more failed rounds
      expect(errors).toHaveBeenCalledTimes(1);
      expect(errors.mock.calls[0]).toEqual([
        "Indexing worker: the database is unreachable (DatabaseNotReachable); retrying with backoff up to 0.04 s.",
      ]);
    } finally {
      await worker.stop();
      errors.mockRestore();
      await closeDb(away);
    }
  });
});

describe("uploads", () => {
  it("refuse a second file part with 400 invalid_request; nothing is created", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const form = new FormData();
    form.append("file", new File(["first"], "a.txt"));
    form.append("file", new File(["second"], "b.txt"));
    const request = new Request(`http://localhost/api/v1/knowledgebases/${kbId}/sources`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.orgKey.secret}` },
      body: form,
    });
    const response = await toApiResponse(await restHandler()(request));
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("invalid_request");
    expect(JSON.stringify(response.body.error)).toMatch(/one file/i);
    expect(await getDb().source.count({ where: { knowledgebaseId: kbId } })).toBe(0);
  });
});

describe("SSRF refusals", () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((_request, response) => {
      response.writeHead(302, { location: `http://localhost:${port}/inside` });
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("name the rule, never the internal address a host name resolves to", async () => {
    const refusal = await fetchUrl(`http://localhost:${port}/`, { purpose: "content" }).then(
      () => new Error("fetched"),
      (error: unknown) => error as Error,
    );
    expect(refusal).toBeInstanceOf(FetchRefused);
    expect(refusal.message).toMatch(
      /the host localhost does not resolve to an address that may be reached\. Only public addresses/,
    );
    expect(refusal.message).not.toMatch(/127\.0\.0\.1|::1/);
    // After a redirect from an allowed server, and through the API.
    const redirected = await fetchUrl(`http://127.0.0.1:${port}/`, {
      purpose: "content",
      allow: [`127.0.0.1:${port}`],
    }).then(
      () => new Error("fetched"),
      (error: unknown) => error as Error,
    );
    expect(redirected.message).toMatch(/the host localhost does not resolve to an address that may be reached/);
    expect(redirected.message).not.toMatch(/127\.0\.0\.1|::1/);

    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const id = (
      await api("POST", `/knowledgebases/${kbId}/sources`, { key, body: { url: `http://localhost:${port}/x` } })
    ).body.source.id;
    await drain();
    const source = await sourceOf(key, kbId, id);
    expect(source.status).toBe("failed");
    expect(source.errorMessage).toMatch(/the host localhost does not resolve to an address that may be reached/);
    expect(source.errorMessage).not.toMatch(/127\.0\.0\.1|::1/);
  });
});
