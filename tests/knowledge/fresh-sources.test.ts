// Sources that stay fresh: URL sources refreshed with conditional requests (an unchanged page is
// not re-indexed, a failed refresh keeps the last good text and says why), and crawls within one
// host that honour robots.txt and their page bound. Served by a loopback site of our own, reached
// through the fetcher's test allowance (fetchLimits.allow), as the other URL-source tests do.
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { runCrawlOnce } from "@/server/jobs/crawl";
import { drainIndexJobs, type IndexingOptions } from "@/server/jobs/indexing";
import { runRefreshOnce } from "@/server/jobs/refresh";
import { api } from "../helpers";
import { sourceOf, tenantWithKnowledgebase } from "../knowledge-helpers";

const page = (title: string, body: string, links: string[] = []) =>
  `<html><head><title>${title}</title></head><body><article><h1>${title}</h1><p>${body}</p>
  ${links.map((link) => `<p><a href="${link}">${link}</a></p>`).join("")}</article></body></html>`;

/** path → HTML (or a [status, body, type] answer); requests are recorded. */
const site = new Map<string, string | [number, string, string]>();
const requests: { path: string; ifNoneMatch?: string }[] = [];
let server: http.Server;
let base: string;
let options: IndexingOptions;

beforeAll(async () => {
  server = http.createServer((request: http.IncomingMessage, response: http.ServerResponse) => {
    const path = request.url ?? "/";
    requests.push({ path, ifNoneMatch: request.headers["if-none-match"] });
    const entry = site.get(path);
    if (entry === undefined) {
      response.writeHead(404).end("not found");
      return;
    }
    const [status, body, type]: [number, string, string] =
      typeof entry === "string" ? [200, entry, "text/html; charset=utf-8"] : entry;
    const etag = `"${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`;
    if (status === 200 && request.headers["if-none-match"] === etag) {
      response.writeHead(304).end();
      return;
    }
    response.writeHead(status, { "content-type": type, etag });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  options = { fetchLimits: { allow: [new URL(base).host] } };
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function addUrl(key: string, kbId: string, body: Record<string, unknown>) {
  const response = await api("POST", `/knowledgebases/${kbId}/sources`, { key, body });
  expect(response.status, response.text).toBe(202);
  return response.body as { source: { id: string }; crawl: { id: string } | null };
}

async function refreshAllDue() {
  while ((await runRefreshOnce(getDb(), options)) > 0);
}

async function crawlAll() {
  while ((await runCrawlOnce(getDb(), options)) > 0);
}

async function search(key: string, kbId: string, query: string) {
  const response = await api("POST", `/knowledgebases/${kbId}/search`, { key, body: { query, kinds: ["sources"] } });
  return response.body.results as { id: string }[];
}

const chunkIds = async (sourceId: string) =>
  (await getDb().sourceChunk.findMany({ where: { sourceId }, orderBy: { position: "asc" } })).map((c) => c.id);

describe("refreshed URL sources", () => {
  it("refetches three pages conditionally: the one that changed is re-indexed, the others are not", async () => {
    site.set("/fresh/a", page("Apples", "Apples grow in orchards on every continent but Antarctica."));
    site.set("/fresh/b", page("Bananas", "Bananas are harvested green and ripen on the way to market."));
    site.set("/fresh/c", page("Cherries", "Cherries blossom in spring and are picked in early summer."));
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const ids: Record<string, string> = {};
    for (const name of ["a", "b", "c"])
      ids[name] = (await addUrl(key, kbId, { url: `${base}/fresh/${name}`, refresh: "daily" })).source.id;
    await drainIndexJobs(getDb(), options, 120_000);
    for (const name of ["a", "b", "c"]) {
      const source = await sourceOf(key, kbId, ids[name]!);
      expect(source).toMatchObject({ status: "ready", refresh: "daily", refreshError: "" });
      expect(source.checkedAt).toEqual(expect.any(String));
    }
    const row = await getDb().source.findUniqueOrThrow({ where: { id: ids.a } });
    // Due in a day.
    expect(row.refreshDueAt!.getTime() - Date.now()).toBeGreaterThan(23 * 3600_000);
    const before = { a: await chunkIds(ids.a!), c: await chunkIds(ids.c!) };

    site.set("/fresh/b", page("Bananas", "Bananas now come from the Saffronia plantation cooperative."));
    await getDb().source.updateMany({ where: { id: { in: Object.values(ids) } }, data: { refreshDueAt: new Date(0) } });
    requests.length = 0;
    await refreshAllDue();

    // Every request was conditional; two pages answered 304.
    expect(requests.map((r) => [r.path, Boolean(r.ifNoneMatch)]).sort()).toEqual([
      ["/fresh/a", true],
      ["/fresh/b", true],
      ["/fresh/c", true],
    ]);
    const checks = await getDb().sourceRefresh.findMany({ where: { sourceId: { in: Object.values(ids) } } });
    const outcome = Object.fromEntries(checks.map((check) => [check.sourceId, check]));
    expect(outcome[ids.a!]).toMatchObject({ outcome: "unchanged", summary: expect.stringMatching(/304/) });
    expect(outcome[ids.c!]).toMatchObject({ outcome: "unchanged" });
    expect(outcome[ids.b!]).toMatchObject({
      outcome: "changed",
      summary: expect.stringMatching(/^1 line added, 1 removed\n\+ Bananas now come from the Saffronia/),
    });
    expect(await chunkIds(ids.a!)).toEqual(before.a);
    expect(await chunkIds(ids.c!)).toEqual(before.c);
    expect((await search(key, kbId, "saffronia plantation"))[0]?.id).toBe(ids.b);
    expect(await search(key, kbId, "harvested green")).toEqual([]);

    // The console's source page shows what changed and when.
    const detail = await api("GET", `/knowledgebases/${kbId}/sources/${ids.b}`, { key });
    expect(detail.body.source.checkedAt).not.toBe(row.checkedAt?.toISOString());
    const { getSourceDetail } = await import("@/server/services/knowledge/sources");
    const shown = await getSourceDetail(getDb(), tenant.operator, { knowledgebaseId: kbId, sourceId: ids.b! });
    expect(shown.refreshes).toEqual([
      { at: expect.any(String), outcome: "changed", summary: expect.stringContaining("Saffronia") },
    ]);
  }, 240_000);

  it("keeps the last good text when a refresh fails, and says why", async () => {
    site.set("/fresh/d", page("Dates", "Dates ripen on palms in the Tamarisk oasis."));
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const id = (await addUrl(key, kbId, { url: `${base}/fresh/d`, refresh: "weekly" })).source.id;
    await drainIndexJobs(getDb(), options, 120_000);
    site.set("/fresh/d", [500, "down for maintenance", "text/plain"]);
    await getDb().source.update({ where: { id }, data: { refreshDueAt: new Date(0) } });
    await refreshAllDue();
    const source = await sourceOf(key, kbId, id);
    expect(source).toMatchObject({ status: "ready", refresh: "weekly" });
    expect(source.refreshError).toMatch(/HTTP 500/);
    expect((await search(key, kbId, "tamarisk oasis"))[0]?.id).toBe(id);
    const check = await getDb().sourceRefresh.findFirstOrThrow({ where: { sourceId: id } });
    expect(check).toMatchObject({ outcome: "failed", summary: expect.stringMatching(/HTTP 500/) });
    // Due again on its schedule, not at once.
    const row = await getDb().source.findUniqueOrThrow({ where: { id } });
    expect(row.refreshDueAt!.getTime() - Date.now()).toBeGreaterThan(6 * 24 * 3600_000);
  }, 240_000);

  it("changes a URL source's refresh over REST: weekly, then off; a source without a URL is refused", async () => {
    site.set("/fresh/e", page("Elderberries", "Elderberries grow along the Wendmoor hedges."));
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const id = (await addUrl(key, kbId, { url: `${base}/fresh/e` })).source.id;
    const patch = (sourceId: string, body: unknown) =>
      api("PATCH", `/knowledgebases/${kbId}/sources/${sourceId}`, { key, body });

    const weekly = await patch(id, { refresh: "weekly" });
    expect(weekly.status, weekly.text).toBe(200);
    expect(weekly.body.source).toMatchObject({ id, refresh: "weekly" });
    let row = await getDb().source.findUniqueOrThrow({ where: { id } });
    expect(row.refreshDueAt!.getTime() - Date.now()).toBeGreaterThan(6 * 24 * 3600_000);

    const off = await patch(id, { refresh: null });
    expect(off.body.source).toMatchObject({ id, refresh: null });
    row = await getDb().source.findUniqueOrThrow({ where: { id } });
    expect(row.refreshDueAt).toBeNull();
    const events = await getDb().auditEvent.findMany({
      where: { organizationId: tenant.organization.id, action: "source.update" },
      orderBy: { occurredAt: "asc" },
    });
    expect(events.map((event) => event.changes)).toEqual([
      { refresh: [null, "weekly"] },
      { refresh: ["weekly", null] },
    ]);

    // Bad values and a source with no URL: refused, nothing changed.
    expect((await patch(id, { refresh: "hourly" })).status).toBe(400);
    const { source: inline } = (
      await api("POST", `/knowledgebases/${kbId}/sources`, { key, body: { name: "Notes", contentMarkdown: "# Notes" } })
    ).body as { source: { id: string } };
    const refused = await patch(inline.id, { refresh: "daily" });
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 400, code: "invalid_request" });
    expect((await getDb().source.findUniqueOrThrow({ where: { id: inline.id } })).refresh).toBeNull();
    expect((await patch("00000000-0000-4000-8000-000000000000", { refresh: "daily" })).status).toBe(404);
  });

  it("refuses refresh and crawl without a url, and crawl bounds past the contract's; nothing is created", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    for (const body of [
      { contentMarkdown: "# x", refresh: "daily" },
      { url: `${base}/x`, refresh: "hourly" },
      { url: `${base}/x`, crawl: { maxPages: 501, sameHost: true } },
      { url: `${base}/x`, crawl: { maxPages: 10, sameHost: false } },
      { url: `${base}/x`, crawl: { maxPages: 10, sameHost: true, maxDepth: 6 } },
    ]) {
      const response = await api("POST", `/knowledgebases/${kbId}/sources`, { key, body });
      expect({ body, status: response.status, code: response.body.error?.code }).toEqual({
        body,
        status: 400,
        code: "invalid_request",
      });
    }
    expect(await getDb().source.count({ where: { knowledgebaseId: kbId } })).toBe(0);
  });
});

describe("crawls", () => {
  it("follows links within the host up to maxPages, honouring robots.txt; each page is a source of the crawl", async () => {
    site.set("/robots.txt", [200, "User-agent: *\nDisallow: /site/private\nAllow: /", "text/plain"]);
    site.set(
      "/site/start",
      page("Start", "The start page of the gardening guide for allotments.", [
        "/site/private/secret",
        "/site/soil",
        "/site/water",
        "http://other.example/away",
        "/site/light#section",
      ]),
    );
    site.set("/site/private/secret", page("Secret", "Nobody should index the Obsidian vault page."));
    site.set("/site/soil", page("Soil", "Loam holds water and air for roots.", ["/site/compost"]));
    site.set("/site/water", page("Water", "Water deeply and rarely so roots grow down."));
    site.set("/site/light", page("Light", "Most vegetables want six hours of sun."));
    site.set("/site/compost", page("Compost", "Compost feeds the soil."));
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;

    requests.length = 0;
    const small = await addUrl(key, kbId, { url: `${base}/site/start`, crawl: { maxPages: 3, sameHost: true } });
    expect(small.crawl).toMatchObject({ id: expect.any(String), maxPages: 3, maxDepth: 2 });
    await crawlAll();
    const smallSources = await getDb().source.findMany({ where: { crawlId: small.crawl!.id } });
    expect(smallSources).toHaveLength(3);
    expect(smallSources.every((source) => source.status === "ready")).toBe(true);
    expect(await getDb().crawlPage.count({ where: { crawlId: small.crawl!.id } })).toBe(3);
    expect(await getDb().crawl.findUniqueOrThrow({ where: { id: small.crawl!.id } })).toMatchObject({
      status: "done",
    });

    const large = await addUrl(key, kbId, { url: `${base}/site/start`, crawl: { maxPages: 50, sameHost: true } });
    await crawlAll();
    const urls = (await getDb().source.findMany({ where: { crawlId: large.crawl!.id } })).map((s) => s.url).sort();
    expect(urls).toEqual(
      ["/site/compost", "/site/light", "/site/soil", "/site/start", "/site/water"].map((path) => base + path),
    );
    // robots.txt was read, and the disallowed page never requested, by either crawl.
    expect(requests.some((r) => r.path === "/robots.txt")).toBe(true);
    expect(requests.some((r) => r.path.startsWith("/site/private"))).toBe(false);
    expect(await search(key, kbId, "obsidian vault")).toEqual([]);
    expect((await search(key, kbId, "compost feeds"))[0]).toBeDefined();
  }, 240_000);

  it("honours the depth bound, and crawls from a sitemap", async () => {
    site.set("/robots.txt", [404, "", "text/plain"]);
    site.set("/map.xml", [
      200,
      `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${base}/deep/1</loc></url><url><loc>${base}/deep/3</loc></url></urlset>`,
      "application/xml",
    ]);
    site.set("/deep/0", page("Zero", "Level zero of the staircase.", ["/deep/1"]));
    site.set("/deep/1", page("One", "Level one of the staircase.", ["/deep/2"]));
    site.set("/deep/2", page("Two", "Level two of the staircase.", ["/deep/3"]));
    site.set("/deep/3", page("Three", "Level three of the staircase."));
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const shallow = await addUrl(key, kbId, {
      url: `${base}/deep/0`,
      crawl: { maxPages: 10, sameHost: true, maxDepth: 1 },
    });
    await crawlAll();
    const shallowUrls = (await getDb().source.findMany({ where: { crawlId: shallow.crawl!.id } })).map((s) => s.url);
    expect(shallowUrls.sort()).toEqual([`${base}/deep/0`, `${base}/deep/1`]);
    // The knowledgebase lists the crawl with its bounds and its run, and its pages name it.
    const detail = await api("GET", `/knowledgebases/${kbId}`, { key });
    expect(detail.body.crawls).toEqual([
      {
        id: shallow.crawl!.id,
        startUrl: `${base}/deep/0`,
        maxPages: 10,
        maxDepth: 1,
        refresh: null,
        status: "done",
        pages: 2,
        startedAt: expect.any(String),
        finishedAt: expect.any(String),
      },
    ]);
    expect(detail.body.sources.filter((s: { crawlId: string | null }) => s.crawlId === shallow.crawl!.id)).toHaveLength(
      2,
    );

    const mapped = await addUrl(key, kbId, {
      url: `${base}/map.xml`,
      crawl: { maxPages: 10, sameHost: true, maxDepth: 1 },
    });
    await crawlAll();
    const sources = await getDb().source.findMany({ where: { crawlId: mapped.crawl!.id }, orderBy: { url: "asc" } });
    expect(sources.map((s) => [s.url, s.type, s.searchable])).toEqual([
      [`${base}/deep/1`, "html", true],
      [`${base}/deep/3`, "html", true],
      [`${base}/map.xml`, "sitemap", false],
    ]);
  }, 240_000);
});
