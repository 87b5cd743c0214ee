// Sources: JSON and multipart ingestion, validation, plan cap, Idempotency-Key, review, retry.
import { PDFDocument, StandardFonts } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api, issueKey } from "../helpers";
import { drain, sourceOf, tenantWithKnowledgebase, upload } from "../knowledge-helpers";

async function pdf(lines: string[]): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const page = document.addPage([400, 400]);
  const font = await document.embedFont(StandardFonts.Helvetica);
  lines.forEach((line, i) => page.drawText(line, { x: 20, y: 360 - i * 20, size: 12, font }));
  return document.save();
}

const count = (kbId: string) => getDb().source.count({ where: { knowledgebaseId: kbId } });

describe("adding sources (JSON)", () => {
  it("answers 202 processing, then indexes to ready and the text is searchable", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const response = await api("POST", `/knowledgebases/${kbId}/sources`, {
      key,
      body: { name: "Onboarding", contentMarkdown: "# Onboarding\n\nBring your passport." },
    });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({
      status: "processing",
      reviewPath: null,
      source: {
        name: "Onboarding",
        type: "markdown",
        status: "processing",
        searchable: true,
        disabled: false,
        url: "",
        errorMessage: "",
        createdVia: "api",
        sizeBytes: 34,
      },
    });
    await drain();
    const source = await sourceOf(key, kbId, response.body.source.id);
    expect(source.status).toBe("ready");
    const search = await api("POST", `/knowledgebases/${kbId}/search`, {
      key,
      body: { query: "passport", kinds: ["sources"] },
    });
    expect(search.body.results).toEqual([
      {
        kind: "source",
        id: source.id,
        title: "Onboarding",
        heading: "Onboarding",
        snippet: expect.stringContaining("**passport**"),
        score: expect.any(Number),
      },
    ]);
  });

  it("needs exactly one of contentMarkdown, contentText or url, inline up to 1 MB; nothing is created otherwise", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    for (const body of [
      {},
      { contentMarkdown: "a", contentText: "b" },
      { contentText: "x".repeat(1024 * 1024 + 1) },
      { url: "ftp://example.com/x" },
      { contentText: "x", extra: 1 },
    ]) {
      const response = await api("POST", `/knowledgebases/${kbId}/sources`, { key, body });
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.body.error.code).toBe("invalid_request");
    }
    expect(await count(kbId)).toBe(0);
  });

  it("answers not_found for an unknown knowledgebase and insufficient_scope without knowledge:write; nothing created", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const missing = await api("POST", "/knowledgebases/00000000-0000-4000-8000-000000000009/sources", {
      key: tenant.orgKey.secret,
      body: { contentText: "x" },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
    const reader = await issueKey(tenant.operator, { kind: "organization", scopes: ["knowledge:read"] });
    const refused = await api("POST", `/knowledgebases/${kbId}/sources`, {
      key: reader.secret,
      body: { contentText: "x" },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("insufficient_scope");
    expect(await getDb().source.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  });

  it("refuses a source over the plan's cap per knowledgebase with plan_limit; nothing created", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase({ settings: { maxSourcesPerKnowledgebase: 1 } });
    const key = tenant.orgKey.secret;
    expect((await api("POST", `/knowledgebases/${kbId}/sources`, { key, body: { contentText: "one" } })).status).toBe(
      202,
    );
    const response = await api("POST", `/knowledgebases/${kbId}/sources`, { key, body: { contentText: "two" } });
    expect(response.status).toBe(403);
    expect(response.body.error).toMatchObject({ code: "plan_limit", limit: 1, used: 1 });
    const multipart = await upload(key, kbId, { name: "a.txt", bytes: "three" });
    expect(multipart.body.error).toMatchObject({ code: "plan_limit", limit: 1, used: 1 });
    expect(await count(kbId)).toBe(1);
  });

  it("replays the first response for a repeated Idempotency-Key and refuses another body or a running first request", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const send = (body: unknown, idempotencyKey: string) =>
      api("POST", `/knowledgebases/${kbId}/sources`, { key, body, headers: { "idempotency-key": idempotencyKey } });
    const first = await send({ contentText: "hello" }, "retry-1");
    const again = await send({ contentText: "hello" }, "retry-1");
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(await count(kbId)).toBe(1);

    const other = await send({ contentText: "different" }, "retry-1");
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("conflict");
    expect(await count(kbId)).toBe(1);

    await getDb().idempotencyKey.create({
      data: { organizationId: tenant.organization.id, key: "running-1", requestHash: "x", state: "running" },
    });
    const running = await send({ contentText: "hello" }, "running-1");
    expect(running.status).toBe(409);
    expect(running.body.error.code).toBe("conflict");
    expect(running.body.error.message).toContain("still running");

    // A first request abandoned by a crashed process frees its key once nobody has renewed it
    // for RUN_LOST_AFTER_MS (a minute by default).
    await getDb().idempotencyKey.create({
      data: {
        organizationId: tenant.organization.id,
        key: "abandoned-1",
        requestHash: "x",
        state: "running",
        createdAt: new Date(Date.now() - 240_000),
        heartbeatAt: new Date(Date.now() - 240_000),
      },
    });
    expect((await send({ contentText: "after crash" }, "abandoned-1")).status).toBe(202);
    expect(await count(kbId)).toBe(2);

    const malformed = await send({ contentText: "hello" }, "bad key with spaces");
    expect(malformed.status).toBe(400);
    expect(await count(kbId)).toBe(2);

    // Keys are per organization.
    const { tenant: other2, kbId: otherKb } = await tenantWithKnowledgebase();
    const elsewhere = await api("POST", `/knowledgebases/${otherKb}/sources`, {
      key: other2.orgKey.secret,
      body: { contentText: "hello" },
      headers: { "idempotency-key": "retry-1" },
    });
    expect(elsewhere.status).toBe(202);
  });

  it("waits for review in a reviewing organization (202 pending_review with a review path)", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase({ settings: { reviewAgentWrites: true } });
    const response = await api("POST", `/knowledgebases/${kbId}/sources`, {
      key: tenant.orgKey.secret,
      body: { contentText: "agent wrote this" },
    });
    expect(response.status).toBe(202);
    expect(response.body.status).toBe("pending_review");
    expect(response.body.source.status).toBe("pending_review");
    const review = await getDb().review.findFirstOrThrow({ where: { sourceId: response.body.source.id } });
    expect(response.body.reviewPath).toBe(`/reviews/${review.id}`);
    await drain();
    expect((await sourceOf(tenant.orgKey.secret, kbId, response.body.source.id)).status).toBe("pending_review");
  });

  it("deletes a source (204) and its chunks", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const id = (await api("POST", `/knowledgebases/${kbId}/sources`, { key, body: { contentText: "bye" } })).body.source
      .id;
    await drain();
    expect((await api("DELETE", `/knowledgebases/${kbId}/sources/${id}`, { key })).status).toBe(204);
    expect((await api("GET", `/knowledgebases/${kbId}/sources/${id}`, { key })).status).toBe(404);
    expect(await getDb().sourceChunk.count({ where: { sourceId: id } })).toBe(0);
  });
});

describe("adding sources (multipart)", () => {
  it("indexes PDF, CSV, TXT and MD files", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const files = [
      { name: "report.pdf", type: "application/pdf", bytes: await pdf(["Photosynthesis converts light"]) },
      { name: "prices.csv", type: "text/csv", bytes: "item,price\nwidget,3\n" },
      { name: "notes.txt", type: "text/plain", bytes: "plain notes about zebras" },
      { name: "guide.md", type: "", bytes: "# Guide\n\nAbout giraffes" },
    ];
    const ids: string[] = [];
    for (const file of files) {
      const response = await upload(key, kbId, file);
      expect(response.status, response.text).toBe(202);
      expect(response.body.source).toMatchObject({ name: file.name, createdVia: "upload", status: "processing" });
      expect(response.headers.get("x-request-id")).toBeTruthy();
      expect(response.headers.get("ratelimit-limit")).toBe("120");
      ids.push(response.body.source.id);
    }
    await drain();
    const rows = await getDb().source.findMany({ where: { id: { in: ids } } });
    const byName = Object.fromEntries(rows.map((row) => [row.name, row]));
    expect(rows.map((r) => r.status)).toEqual(["ready", "ready", "ready", "ready"]);
    expect(byName["report.pdf"]!.text).toContain("Photosynthesis converts light");
    expect(byName["prices.csv"]!.text).toBe("| item | price |\n| --- | --- |\n| widget | 3 |");
    expect(byName["notes.txt"]!.type).toBe("text");
    expect(byName["guide.md"]!.type).toBe("markdown");
  });

  it("refuses a request over 4.5 MB with 413 invalid_request, and unsupported files; nothing created", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const big = await upload(key, kbId, { name: "big.txt", bytes: "x".repeat(4.5 * 1024 * 1024 + 10) });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe("invalid_request");
    const exe = await upload(key, kbId, { name: "tool.exe", type: "application/octet-stream", bytes: "MZ" });
    expect({ status: exe.status, code: exe.body.error.code }).toEqual({ status: 400, code: "invalid_request" });
    const noAuth = await upload("sk_org_nope", kbId, { name: "a.txt", bytes: "x" });
    expect(noAuth.status).toBe(401);
    expect(noAuth.body.error.code).toBe("invalid_api_key");
    expect(await count(kbId)).toBe(0);
  });

  it("honours Idempotency-Key for uploads too", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const first = await upload(key, kbId, { name: "a.txt", bytes: "same" }, { headers: { "idempotency-key": "u1" } });
    const second = await upload(key, kbId, { name: "a.txt", bytes: "same" }, { headers: { "idempotency-key": "u1" } });
    expect(second.body).toEqual(first.body);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    const changed = await upload(
      key,
      kbId,
      { name: "a.txt", bytes: "changed" },
      { headers: { "idempotency-key": "u1" } },
    );
    expect(changed.status).toBe(409);
    expect(await count(kbId)).toBe(1);
  });
});

describe("failures and retry", () => {
  it("ends a PDF without text in failed with a reason, and retries it on request", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const empty = await PDFDocument.create();
    empty.addPage([100, 100]);
    const id = (await upload(key, kbId, { name: "scan.pdf", bytes: await empty.save() })).body.source.id;
    await drain();
    const failed = await sourceOf(key, kbId, id);
    expect(failed.status).toBe("failed");
    expect(failed.errorMessage).toMatch(/no extractable text/);

    const notFailed = await api("POST", `/knowledgebases/${kbId}/sources/${id}/retry`, { key });
    expect(notFailed.status).toBe(200);
    expect(notFailed.body.source.status).toBe("processing");
    const again = await api("POST", `/knowledgebases/${kbId}/sources/${id}/retry`, { key });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe("invalid_request");
    await drain();
    expect((await sourceOf(key, kbId, id)).status).toBe("failed");
  });

  it("ends a URL to a private address in failed with the reason, without hanging", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const response = await api("POST", `/knowledgebases/${kbId}/sources`, {
      key,
      body: { url: "http://169.254.169.254/latest/meta-data/" },
    });
    expect(response.status).toBe(202);
    await drain();
    const source = await sourceOf(key, kbId, response.body.source.id);
    expect(source.status).toBe("failed");
    expect(source.errorMessage).toMatch(/169\.254\.169\.254 is a cloud metadata address\. Only public addresses/);
  });
});
