// Search (ranked, snippets, credits, search_unavailable) and export (cap, own rate limit).
import SwaggerParser from "@apidevtools/swagger-parser";
import { afterEach, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { EXPORT_LIMITS } from "@/server/services/knowledge/knowledgebases";
import { searchFaults } from "@/server/services/knowledge/search";
import { api, issueKey } from "../helpers";
import { drain, newPage, tenantWithKnowledgebase } from "../knowledge-helpers";

const credits = async (organizationId: string) =>
  (await getDb().organization.findUniqueOrThrow({ where: { id: organizationId } })).credits;

afterEach(() => {
  searchFaults.documentIndexDown = false;
  EXPORT_LIMITS.maxBytes = 50 * 1024 * 1024;
});

async function seeded(options: { credits?: number } = {}) {
  const { tenant, kbId } = await tenantWithKnowledgebase(options);
  const key = tenant.orgKey.secret;
  const strong = await newPage(key, kbId, {
    title: "Volcano safety",
    markdown: "Volcano eruptions: keep away from the volcano crater. Volcano ash is dangerous.",
  });
  const weak = await newPage(key, kbId, { title: "Travel", markdown: "Our trip passed a volcano on day two." });
  await newPage(key, kbId, { title: "Cooking", markdown: "Bread and butter." });
  const source = (
    await api("POST", `/knowledgebases/${kbId}/sources`, {
      key,
      body: { name: "Geology notes", contentMarkdown: "Lava flows from a volcano vent." },
    })
  ).body.source.id;
  await drain();
  return { tenant, kbId, key, strong, weak, source };
}

describe("search", () => {
  it("ranks pages and sources with marked snippets, and charges 1 credit for sources only", async () => {
    const { tenant, kbId, key, strong, weak, source } = await seeded();
    const before = await credits(tenant.organization.id);
    const both = await api("POST", `/knowledgebases/${kbId}/search`, { key, body: { query: "volcano" } });
    expect(both.status).toBe(200);
    const ids = both.body.results.map((r: { id: string }) => r.id);
    expect(ids).toHaveLength(3);
    expect(ids.indexOf(strong)).toBeLessThan(ids.indexOf(weak));
    expect(ids).toContain(source);
    expect(both.body.results[0]).toMatchObject({
      kind: "page",
      id: strong,
      title: "Volcano safety",
      snippet: expect.stringContaining("**Volcano**"),
    });
    expect(await credits(tenant.organization.id)).toBe(before - 1);

    const pagesOnly = await api("POST", `/knowledgebases/${kbId}/search`, {
      key,
      body: { query: "volcano", kinds: ["pages"], limit: 1 },
    });
    expect(pagesOnly.body.results.map((r: { id: string }) => r.id)).toEqual([strong]);
    expect(await credits(tenant.organization.id)).toBe(before - 1);
  });

  it("marks only the question's words: a passage's own bold is not shown as a match", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const markdown =
      "Before the hike, pack **sunscreen** and water. The volcano trail is steep; call `a ** b` a climb.";
    const page = await newPage(key, kbId, { title: "Hiking", markdown });
    const source = (
      await api("POST", `/knowledgebases/${kbId}/sources`, {
        key,
        body: { name: "Hike notes", contentMarkdown: markdown },
      })
    ).body.source.id;
    await drain();

    const found = await api("POST", `/knowledgebases/${kbId}/search`, { key, body: { query: "volcano" } });
    expect(found.status).toBe(200);
    const snippets = Object.fromEntries(
      found.body.results.map((r: { id: string; snippet: string }) => [r.id, r.snippet] as const),
    );
    for (const id of [page, source]) {
      expect(snippets[id]).toContain("pack sunscreen and water");
      expect(snippets[id]).toContain("a  b");
      // Split on the marks, as a client does: every marked part is the question's word.
      const marked = (snippets[id] as string).split("**").filter((_, index) => index % 2 === 1);
      expect(marked).toEqual(["volcano"]);
    }
  });

  it("answers insufficient_credits when sources cannot be paid for; nothing charged; pages still free", async () => {
    const { tenant, kbId, key } = await seeded({ credits: 0 });
    const response = await api("POST", `/knowledgebases/${kbId}/search`, {
      key,
      body: { query: "volcano", kinds: ["sources"] },
    });
    expect(response.status).toBe(402);
    expect(response.body.error.code).toBe("insufficient_credits");
    expect(await credits(tenant.organization.id)).toBe(0);
    expect(
      (await api("POST", `/knowledgebases/${kbId}/search`, { key, body: { query: "volcano", kinds: ["pages"] } }))
        .status,
    ).toBe(200);
  });

  it("answers search_unavailable when the document index cannot answer; nothing charged", async () => {
    const { tenant, kbId, key } = await seeded();
    const before = await credits(tenant.organization.id);
    searchFaults.documentIndexDown = true;
    const response = await api("POST", `/knowledgebases/${kbId}/search`, { key, body: { query: "volcano" } });
    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe("search_unavailable");
    expect(await credits(tenant.organization.id)).toBe(before);
    expect(
      (await api("POST", `/knowledgebases/${kbId}/search`, { key, body: { query: "volcano", kinds: ["pages"] } }))
        .status,
    ).toBe(200);
  });

  it("validates the query and answers not_found for an unknown knowledgebase", async () => {
    const { kbId, key } = await seeded();
    expect((await api("POST", `/knowledgebases/${kbId}/search`, { key, body: { query: "" } })).body.error.code).toBe(
      "invalid_request",
    );
    expect(
      (await api("POST", `/knowledgebases/${kbId}/search`, { key, body: { query: "x", limit: 51 } })).body.error.code,
    ).toBe("invalid_request");
    expect(
      (await api("POST", "/knowledgebases/00000000-0000-4000-8000-000000000000/search", { key, body: { query: "x" } }))
        .status,
    ).toBe(404);
  });
});

describe("export", () => {
  it("exports the knowledgebase, every page and every source with its text", async () => {
    const { kbId, key, strong, source } = await seeded();
    const response = await api("GET", `/knowledgebases/${kbId}/export`, { key });
    expect(response.status).toBe(200);
    expect(response.body.knowledgebase.id).toBe(kbId);
    expect(response.body.pages).toHaveLength(3);
    expect(response.body.pages.find((p: { id: string }) => p.id === strong).markdown).toContain("crater");
    expect(response.body.sources).toEqual([
      expect.objectContaining({ id: source, text: "Lava flows from a volcano vent." }),
    ]);
  });

  it("refuses a knowledgebase over the export cap with export_too_large", async () => {
    const { kbId, key } = await seeded();
    EXPORT_LIMITS.maxBytes = 100;
    const response = await api("GET", `/knowledgebases/${kbId}/export`, { key });
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe("export_too_large");
  });

  it("limits exports to 3 per minute per key, with Retry-After", async () => {
    const { tenant, kbId, key } = await seeded();
    for (let i = 0; i < 3; i++) expect((await api("GET", `/knowledgebases/${kbId}/export`, { key })).status).toBe(200);
    const refused = await api("GET", `/knowledgebases/${kbId}/export`, { key });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const other = await issueKey(tenant.operator, { kind: "organization" });
    expect((await api("GET", `/knowledgebases/${kbId}/export`, { key: other.secret })).status).toBe(200);
    expect((await api("GET", `/knowledgebases/${kbId}`, { key })).status).toBe(200);
  });
});

describe("OpenAPI", () => {
  it("documents the knowledge endpoints, the retry route and the multipart form", async () => {
    // Error responses are shared components ($ref); read them resolved.
    const document: any = await SwaggerParser.dereference((await api("GET", "/openapi.json")).body);
    for (const path of [
      "/knowledgebases",
      "/knowledgebases/{knowledgebaseId}",
      "/knowledgebases/{knowledgebaseId}/export",
      "/knowledgebases/{knowledgebaseId}/search",
      "/knowledgebases/{knowledgebaseId}/sources",
      "/knowledgebases/{knowledgebaseId}/sources/{sourceId}",
      "/knowledgebases/{knowledgebaseId}/sources/{sourceId}/retry",
      "/knowledgebases/{knowledgebaseId}/pages",
      "/knowledgebases/{knowledgebaseId}/pages/{pageId}",
      "/knowledgebases/{knowledgebaseId}/pages/{pageId}/move",
    ]) {
      expect(document.paths[path], path).toBeDefined();
    }
    const addSource = document.paths["/knowledgebases/{knowledgebaseId}/sources"].post;
    expect(Object.keys(addSource.requestBody.content).sort()).toEqual(["application/json", "multipart/form-data"]);
    expect(addSource.responses["202"]).toBeDefined();
    expect(addSource.responses["413"]).toBeDefined();
    expect(addSource.parameters.map((p: { name: string }) => p.name)).toContain("Idempotency-Key");
    expect(document.paths["/knowledgebases/{knowledgebaseId}/pages"].post.responses["202"]).toBeDefined();
    expect(document.paths["/knowledgebases/{knowledgebaseId}/export"].get.responses["413"].description).toContain(
      "export_too_large",
    );
    expect(document.paths["/knowledgebases/{knowledgebaseId}/search"].post.responses["503"]).toBeDefined();
  });
});

describe("routes", () => {
  it("matches the static segments and answers 405 with Allow for a wrong method", async () => {
    const { kbId, key } = await seeded();
    const wrong = await api("DELETE", `/knowledgebases/${kbId}/export`, { key });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET");
    const retry = await api("GET", `/knowledgebases/${kbId}/sources/00000000-0000-4000-8000-000000000000/retry`, {
      key,
    });
    expect(retry.status).toBe(405);
    expect(retry.headers.get("allow")).toBe("POST");
    const multipartPage = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key,
      rawBody: "--x--",
      headers: { "content-type": "multipart/form-data; boundary=x" },
    });
    expect(multipartPage.status).toBe(400);
    expect(multipartPage.body.error.code).toBe("invalid_request");
  });
});
