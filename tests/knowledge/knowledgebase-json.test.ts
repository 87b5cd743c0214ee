// GET /knowledgebases/{id} answers the JSON text PostgreSQL writes, sent by the REST door as it
// is (services/knowledge/knowledgebases.ts, `queryJson` in src/server/trpc/service-procedures.ts):
// no answer is checked against the output schema at run time, so these tests hold the text to
// it. For awkward data (escapes, control characters, emoji, nulls, nested, cyclic and foreign
// parents, ties in time, every source status, many pages, nothing at all) the text must be byte
// for byte what JSON.stringify writes of the schema-checked object built here from Prisma's
// reads, and what the console's door answers.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Knowledgebase } from "@/schemas/knowledge/knowledgebase";
import { SOURCE_STATUSES } from "@/schemas/knowledge/source";
import { getDb } from "@/server/db";
import { api, issueKey, newOrganization, signInCookie, trpc, type Tenant } from "../helpers";
import { newKnowledgebase } from "../knowledge-helpers";

/** Text every field that holds text is given: what JSON must escape, and what it must not. */
const AWKWARD = [
  'quotes " and a \\ backslash',
  "tab\t, newline\n, return\r, backspace\b, form feed\f",
  "controls \u0001\u000b\u001f and delete \u007f",
  "separators \u2028 and \u2029",
  "emoji 📚👩🏽‍💻, 設定, مرحبا",
  "combining e\u0301, no-break\u00a0space",
  "</script><!-- -->",
  "",
];

/** The page index's paths as the API defines them: titles from the top level down, within the knowledgebase. */
function pathsOf(pages: { id: string; title: string; parentPageId: string | null }[]): Map<string, string[]> {
  const byId = new Map(pages.map((page) => [page.id, page]));
  return new Map(
    pages.map((page) => {
      const path: string[] = [];
      const seen = new Set<string>();
      for (let at: typeof page | undefined = page; at && !seen.has(at.id); at = byId.get(at.parentPageId ?? "")) {
        seen.add(at.id);
        path.unshift(at.title);
      }
      return [page.id, path];
    }),
  );
}

const refreshOf = (value: string | null) => (value === "daily" || value === "weekly" ? value : null);

/** The detail built from Prisma's reads, checked by the output schema and written by JSON.stringify. */
async function checkedBody(kbId: string): Promise<string> {
  const db = getDb();
  const kb = await db.knowledgebase.findUniqueOrThrow({ where: { id: kbId } });
  const oldestFirst = [{ createdAt: "asc" as const }, { id: "asc" as const }];
  const sources = await db.source.findMany({ where: { knowledgebaseId: kbId }, orderBy: oldestFirst });
  const crawls = await db.crawl.findMany({
    where: { knowledgebaseId: kbId },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    include: { _count: { select: { sources: true } } },
  });
  const pages = await db.page.findMany({ where: { knowledgebaseId: kbId }, orderBy: oldestFirst });
  const paths = pathsOf(pages);
  const detail = {
    ...kb,
    createdAt: kb.createdAt.toISOString(),
    updatedAt: kb.updatedAt.toISOString(),
    counts: { sources: sources.length, pages: pages.length },
    sources: sources.map((s) => ({
      ...s,
      url: s.url ?? "",
      updatedAt: s.updatedAt.toISOString(),
      createdAt: s.createdAt.toISOString(),
      errorMessage: s.errorMessage ?? "",
      refresh: refreshOf(s.refresh),
      checkedAt: s.checkedAt?.toISOString() ?? null,
      refreshError: s.refreshError ?? "",
    })),
    crawls: crawls.map((c) => ({
      ...c,
      refresh: refreshOf(c.refresh),
      pages: c._count.sources,
      startedAt: c.createdAt.toISOString(),
      finishedAt: c.finishedAt?.toISOString() ?? null,
    })),
    pages: pages.map((p) => ({ ...p, updatedAt: p.updatedAt.toISOString(), path: paths.get(p.id) })),
  };
  return JSON.stringify(Knowledgebase.parse(detail));
}

/** The REST door's text, checked against the schema-checked body and the console's answer. */
async function expectTheCheckedBody(tenant: Tenant, kbId: string): Promise<string> {
  const rest = await api("GET", `/knowledgebases/${kbId}`, { key: tenant.orgKey.secret });
  expect(rest.status).toBe(200);
  expect(rest.headers.get("content-type")).toBe("application/json");
  expect(rest.text).toBe(JSON.stringify(Knowledgebase.parse(JSON.parse(rest.text))));
  expect(rest.text).toBe(await checkedBody(kbId));
  const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
  const consoleAnswer = await trpc("query", "knowledge.get", { knowledgebaseId: kbId }, { cookie });
  expect(consoleAnswer.status).toBe(200);
  expect(JSON.stringify(consoleAnswer.body.result.data)).toBe(rest.text);
  return rest.text;
}

/** A time `ms` milliseconds after a fixed instant, so that order and ties are the test's. */
const at = (ms: number) => new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6) + ms);

describe("the knowledgebase's JSON text", () => {
  it("is the checked body for an empty knowledgebase", async () => {
    const tenant = await newOrganization();
    const kbId = await newKnowledgebase(tenant, "Empty");
    const text = await expectTheCheckedBody(tenant, kbId);
    expect(text).toMatch(/"counts":\{"sources":0,"pages":0\},"sources":\[\],"crawls":\[\],"pages":\[\]\}$/);
  });

  it("is the checked body with escapes, unicode, nulls, every status, crawls and every shape of page tree", async () => {
    const tenant = await newOrganization();
    const organizationId = tenant.organization.id;
    const kbId = await newKnowledgebase(tenant, "Awkward");
    const otherKb = await newKnowledgebase(tenant, "Elsewhere");
    const db = getDb();
    await db.knowledgebase.update({
      where: { id: kbId },
      data: {
        name: AWKWARD[4]!,
        description: AWKWARD.join(" | "),
        language: "simple",
        searchMode: "lexical",
        rerank: true,
      },
    });
    const inKb = { organizationId, knowledgebaseId: kbId };

    const crawlDone = await db.crawl.create({
      data: {
        ...inKb,
        startUrl: 'https://example.test/docs?q="x"&y=設定',
        maxPages: 500,
        maxDepth: 5,
        refresh: "daily",
        status: "done",
        createdVia: "api",
        createdAt: at(10),
        finishedAt: at(20),
      },
    });
    await db.crawl.create({
      data: {
        ...inKb,
        startUrl: "https://example.test/",
        maxPages: 1,
        maxDepth: 0,
        createdVia: "api",
        createdAt: at(30),
      },
    });
    const statuses = [...SOURCE_STATUSES, ...SOURCE_STATUSES];
    for (const [n, status] of statuses.entries()) {
      await db.source.create({
        data: {
          ...inKb,
          name: AWKWARD[n % AWKWARD.length]!,
          type: n % 2 ? "url" : "markdown",
          status,
          searchable: n % 3 !== 0,
          disabled: n % 4 === 0,
          url: n % 2 ? `https://example.test/${n}` : null,
          sizeBytes: n === 0 ? 2_147_483_647 : n,
          errorMessage: n % 2 ? AWKWARD[(n + 1) % AWKWARD.length] : null,
          createdVia: "api",
          refresh: ["daily", "weekly", null, "monthly"][n % 4],
          checkedAt: n % 2 ? at(n) : null,
          refreshError: n % 3 ? AWKWARD[(n + 2) % AWKWARD.length] : null,
          crawlId: n % 3 === 1 ? crawlDone.id : null,
          // Two sources at the same instant: their ids order them.
          createdAt: at(Math.min(n, 5)),
        },
      });
    }

    const page = (title: string, ms: number, extra: { parentPageId?: string; isFolder?: boolean } = {}) =>
      db.page.create({
        data: {
          ...inKb,
          title,
          templateKey: title.slice(0, 20),
          hook: AWKWARD[ms % AWKWARD.length]!,
          createdAt: at(ms),
          ...extra,
        },
      });
    const folder = await page(AWKWARD[0]!, 1, { isFolder: true });
    const child = await page(AWKWARD[3]!, 2, { parentPageId: folder.id });
    await page(AWKWARD[4]!, 3, { parentPageId: child.id });
    for (const title of AWKWARD) await page(title, 4);
    // Each the other's parent: each path stops where it meets itself.
    const first = await page("Cycle one", 5);
    const second = await page("Cycle two", 6, { parentPageId: first.id });
    await db.page.update({ where: { id: first.id }, data: { parentPageId: second.id } });
    // A parent in another knowledgebase is not on the path.
    const foreign = await db.page.create({ data: { organizationId, knowledgebaseId: otherKb, title: "Foreign" } });
    await page("Adopted", 7, { parentPageId: foreign.id });

    const body = JSON.parse(await expectTheCheckedBody(tenant, kbId)) as Knowledgebase;
    const pathOf = (title: string) => body.pages.find((p) => p.title === title)?.path;
    expect(pathOf(AWKWARD[4]!)).toEqual([AWKWARD[0], AWKWARD[3], AWKWARD[4]]);
    expect(pathOf("Cycle one")).toEqual(["Cycle two", "Cycle one"]);
    expect(pathOf("Cycle two")).toEqual(["Cycle one", "Cycle two"]);
    expect(pathOf("Adopted")).toEqual(["Adopted"]);
    expect(body.counts).toEqual({ sources: statuses.length, pages: 3 + AWKWARD.length + 3 });
    expect(body.crawls.map((c) => [c.status, c.pages, c.finishedAt === null])).toEqual([
      ["running", 0, true],
      ["done", 3, false],
    ]);
  });

  it("is the checked body for 600 pages in a chain 40 deep", async () => {
    const tenant = await newOrganization();
    const kbId = await newKnowledgebase(tenant, "Many");
    const ids = Array.from({ length: 600 }, () => randomUUID());
    await getDb().page.createMany({
      data: ids.map((id, n) => ({
        id,
        organizationId: tenant.organization.id,
        knowledgebaseId: kbId,
        title: `Page ${n} ${AWKWARD[n % AWKWARD.length]}`,
        parentPageId: n > 0 && n < 40 ? ids[n - 1] : null,
        isFolder: n < 39,
        createdAt: at(n),
      })),
    });
    const body = JSON.parse(await expectTheCheckedBody(tenant, kbId)) as Knowledgebase;
    expect(body.pages).toHaveLength(600);
    expect(body.pages[39]!.path).toHaveLength(40);
  });
});

describe("the REST door's answer of the knowledgebase's JSON text", () => {
  it("takes and refuses the input as the procedure does, and answers HEAD without the body", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const kbId = await newKnowledgebase(tenant);
    const read = await api("GET", `/knowledgebases/${kbId}`, { key });
    expect(read.headers.get("x-request-id")).toBeTruthy();
    expect(read.headers.get("ratelimit-limit")).toBeTruthy();

    const head = await api("HEAD", `/knowledgebases/${kbId}`, { key });
    expect([head.status, head.text, head.headers.get("content-type")]).toEqual([200, "", "application/json"]);

    const unknownParameter = await api("GET", `/knowledgebases/${kbId}?expand=pages`, { key });
    expect(unknownParameter.status).toBe(400);
    expect(unknownParameter.body.error.code).toBe("invalid_request");
    expect(JSON.stringify(unknownParameter.body.error)).toContain("expand");

    // A name Object.prototype has (trpc-to-openapi's own query reading fails on it with a 500).
    const prototypeName = await api("GET", `/knowledgebases/${kbId}?__proto__=1`, { key });
    expect([prototypeName.status, prototypeName.body.error.code]).toEqual([400, "invalid_request"]);

    const notAnId = await api("GET", "/knowledgebases/not-an-id", { key });
    expect(notAnId.status).toBe(400);
    expect(notAnId.body.error.code).toBe("invalid_request");

    const unstorable = await api("GET", `/knowledgebases/${kbId}?note=%00`, { key });
    expect(unstorable.status).toBe(400);
    expect(unstorable.body.error.code).toBe("invalid_request");

    const other = await newOrganization();
    const elsewhere = await api("GET", `/knowledgebases/${kbId}`, { key: other.orgKey.secret });
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([404, "not_found"]);

    const withoutScope = await issueKey(tenant.operator, { kind: "organization", scopes: ["end_users:read"] });
    const refused = await api("GET", `/knowledgebases/${kbId}`, { key: withoutScope.secret });
    expect([refused.status, refused.body.error.code]).toEqual([403, "insufficient_scope"]);
  });
});
