// Lexical ranking on small fixed corpora, through POST /knowledgebases/{id}/search and the
// agents' retrieval (one function), and the knowledgebase language setting.
import { describe, expect, it, vi } from "vitest";
import { closeDb, createDb, getDb } from "@/server/db";
import { retrievePassages } from "@/server/runtime/retrieval/passages";
import { retrieve } from "@/server/runtime/retrieval/retrieve";
import { retrievalTest } from "@/server/services/knowledge/retrieval";
import { api } from "../helpers";
import { drain, newKnowledgebase, newPage, tenantWithKnowledgebase } from "../knowledge-helpers";

type Result = { id: string; title: string; heading: string };

async function search(key: string, kbId: string, query: string, kinds = ["pages"]): Promise<Result[]> {
  const response = await api("POST", `/knowledgebases/${kbId}/search`, { key, body: { query, kinds } });
  expect(response.status).toBe(200);
  return response.body.results;
}

describe("lexical ranking", () => {
  it("answers a question in natural language (any of its words), the page matching more of its terms first", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const both = await newPage(key, kbId, {
      title: "Keys",
      markdown: "To rotate an API key, create a new key and revoke the old one.",
    });
    const one = await newPage(key, kbId, { title: "Glossary", markdown: "A key opens a door." });
    await newPage(key, kbId, { title: "Cooking", markdown: "Bread and butter." });
    const ids = (await search(key, kbId, "how do I rotate my key?")).map((r) => r.id);
    expect(ids).toEqual([both, one]);
  });

  it("weighs rare terms above common ones", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    for (let i = 0; i < 6; i++)
      await newPage(key, kbId, { title: `Note ${i}`, markdown: `The server restarts every night (${i}).` });
    const rare = await newPage(key, kbId, {
      title: "Certificates",
      markdown: "Renew the certificate before it expires.",
    });
    const [first] = await search(key, kbId, "server certificate");
    expect(first!.id).toBe(rare);
  });

  it("boosts a title match and an exact phrase", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const body = await newPage(key, kbId, {
      title: "Misc",
      markdown: "Some words about billing, and more words about many other things entirely.",
    });
    const titled = await newPage(key, kbId, {
      title: "Billing",
      markdown: "Some words about invoices, and more words about many other things entirely.",
    });
    expect((await search(key, kbId, "billing"))[0]!.id).toBe(titled);
    expect((await search(key, kbId, "billing")).map((r) => r.id)).toContain(body);

    const scattered = await newPage(key, kbId, {
      title: "A",
      markdown: "Reset it. Later, the password of the admin is different.",
    });
    const phrase = await newPage(key, kbId, {
      title: "B",
      markdown: "Someone may need a password reset for the admin today.",
    });
    const ids = (await search(key, kbId, "password reset")).map((r) => r.id);
    expect(ids.indexOf(phrase)).toBeLessThan(ids.indexOf(scattered));
  });

  it("finds the page for a question made mostly of stop words, and an all-stop-word query finds nothing without failing", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const page = await newPage(key, kbId, { title: "Vacation", markdown: "Holidays are requested in the HR tool." });
    expect((await search(key, kbId, "where and how do I ask for my holidays?")).map((r) => r.id)).toEqual([page]);
    expect(await search(key, kbId, "what is it that you are")).toEqual([]);
  });

  it("returns a document's passage with its heading path, to the search API and to agents alike", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const markdown =
      "# Handbook\n\n## Travel\n\n### Expenses\n\nKeep every receipt for taxis and hotels.\n\n## Security\n\nLock your screen.";
    const source = (
      await api("POST", `/knowledgebases/${kbId}/sources`, {
        key,
        body: { name: "Handbook", contentMarkdown: markdown },
      })
    ).body.source.id;
    await drain();
    const results = await search(key, kbId, "receipts for a taxi", ["sources"]);
    expect(results).toEqual([
      expect.objectContaining({ id: source, title: "Handbook", heading: "Handbook > Travel > Expenses" }),
    ]);
    const { passages } = await retrievePassages(getDb(), tenant.organization.id, [kbId], "receipts for a taxi");
    expect(passages[0]).toMatchObject({
      title: "Handbook > Handbook > Travel > Expenses",
      text: expect.stringContaining("Keep every receipt"),
    });
  });

  it("adds a quarter of a term's share to a passage whose heading holds it", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const post = async (name: string, contentMarkdown: string): Promise<string> =>
      (await api("POST", `/knowledgebases/${kbId}/sources`, { key, body: { name, contentMarkdown } })).body.source.id;
    const inHeading = await post("Guide one", "# Refunds\n\nMoney goes back to the card within five days.");
    const inText = await post("Guide two", "# Payments\n\nMoney goes back as refunds within five days.");
    await drain();
    const response = await api("POST", `/knowledgebases/${kbId}/search`, {
      key,
      body: { query: "refunds", kinds: ["sources"] },
    });
    const [first, second] = response.body.results as { id: string; score: number }[];
    expect([first!.id, second!.id]).toEqual([inHeading, inText]);
    // The heading's quarter, beside a smaller difference in how close the terms stand (cover density).
    expect(first!.score - second!.score).toBeGreaterThan(0.25);
  });

  it("orders passages of equal score the same in every load: by the document's name, its earlier passage first", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const other = await newKnowledgebase(tenant, "Handbook again");
    // Every passage holds the same words, so every score is equal; the two loads add the documents in opposite orders.
    const markdown = "## Monday\n\nRotate the signing key.\n\n## Tuesday\n\nRotate the signing key.";
    const names = ["Delta", "Alpha", "Foxtrot", "Charlie", "Echo", "Bravo"];
    for (const [kb, order] of [
      [kbId, names],
      [other, [...names].reverse()],
    ] as const)
      for (const name of order)
        expect(
          (await api("POST", `/knowledgebases/${kb}/sources`, { key, body: { name, contentMarkdown: markdown } }))
            .status,
        ).toBe(202);
    await drain();
    const sorted = [...names].sort();
    for (const kb of [kbId, other]) {
      const results = await search(key, kb, "rotate the signing key", ["sources"]);
      expect(results.map((r) => [r.title, r.heading])).toEqual(sorted.map((name) => [name, "Monday"]));
      const hits = await retrieve(getDb(), tenant.organization.id, {
        knowledgebaseIds: [kb],
        query: "signing key",
        limit: 4,
      });
      expect(hits.map((hit) => [hit.title, hit.heading])).toEqual([
        ["Alpha", "Monday"],
        ["Alpha", "Tuesday"],
        ["Bravo", "Monday"],
        ["Bravo", "Tuesday"],
      ]);
    }
  });

  it("the console's retrieval test shows what an agent receives, and only for the organization's knowledgebase", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    await newPage(key, kbId, {
      title: "Keys",
      markdown: "To rotate an API key, create a new key and revoke the old one.",
    });
    await newPage(key, kbId, { title: "Glossary", markdown: "A key opens a door." });
    const actor = { kind: "operator" as const, organizationId: tenant.organization.id };
    const question = "how do I rotate my key?";
    const { passages: agentPassages } = await retrievePassages(getDb(), tenant.organization.id, [kbId], question);
    const { passages } = await retrievalTest(getDb(), actor, { knowledgebaseId: kbId, question });
    expect(passages.map((p) => ({ title: p.passageTitle, text: p.text }))).toEqual(
      agentPassages.map(({ title, text }) => ({ title, text })),
    );
    expect(passages.map((p) => p.title)).toEqual(["Keys", "Glossary"]);

    const { tenant: other } = await tenantWithKnowledgebase();
    const outsider = { kind: "operator" as const, organizationId: other.organization.id };
    await expect(retrievalTest(getDb(), outsider, { knowledgebaseId: kbId, question })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("an agent's retrieval names the knowledgebases that are not its organization's, in the ranking statement itself or, for a blank query, in one of its own", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    await newPage(tenant.orgKey.secret, kbId, {
      title: "Keys",
      markdown: "To rotate an API key, create a new key and revoke the old one.",
    });
    const { kbId: foreign } = await tenantWithKnowledgebase();
    const asked = [kbId, foreign, "not-an-id"];
    const query = vi.spyOn(getDb().pool, "query");
    try {
      const answered = await retrievePassages(getDb(), tenant.organization.id, asked, "rotate a key");
      expect(answered.passages.map((p) => p.title)).toEqual(["Keys"]);
      expect(answered.missing).toEqual([foreign, "not-an-id"]);
      // The organization's providers are read for an embedding model, with the knowledgebases'
      // reranking settings; none runs the ownership check alone.
      expect(query.mock.calls.map(([config]) => (config as { name?: string }).name)).toEqual([
        "atrium_rerank_setting_providers",
        "atrium_retrieve_small",
      ]);

      query.mockClear();
      expect(await retrievePassages(getDb(), tenant.organization.id, asked, "   ")).toEqual({
        passages: [],
        missing: [foreign, "not-an-id"],
        path: { method: "lexical", reason: "nothing_to_search" },
      });
      expect(query.mock.calls.map(([config]) => (config as { name?: string }).name)).toEqual([
        "atrium_organization_knowledgebases",
      ]);
    } finally {
      query.mockRestore();
    }
  });
});

describe("the cost of a search", () => {
  // Issue 25: short questions stalled search for a second, one for 44 s. The ranking joined the
  // matching rows with their sets of query terms; planned from PostgreSQL's guesses about those
  // intermediate results, the join could become a nested loop over sets × rows, quadratic when
  // the question's words give most rows a set of their own. Here every one of 8,192 passages
  // holds a different subset of the question's 13 words, and the search runs with hash joins
  // turned off, the plan PostgreSQL chose on a freshly loaded knowledgebase: it took minutes.
  it("stays linear in the matching passages whatever join the planner picks", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const source = (
      await api("POST", `/knowledgebases/${kbId}/sources`, {
        key,
        body: { name: "Words", contentMarkdown: "placeholder" },
      })
    ).body.source.id;
    await drain();
    const words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split(" ");
    await getDb().$executeRaw`
      with passages as (
        select n, (select string_agg(w, ' ') from unnest(${words}::text[]) with ordinality as t(w, i) where n & (1 << (i::int - 1)) <> 0) as text
        from generate_series(1, 8191) as n
      )
      insert into source_chunks (id, source_id, knowledgebase_id, position, text)
      select gen_random_uuid(), ${source}::uuid, ${kbId}::uuid, n, text || ' passage ' || n from passages`;
    const url = new URL(process.env.DATABASE_URL!);
    url.searchParams.set("options", "-c enable_hashjoin=off");
    const nestedLoops = createDb(url.toString(), 1);
    try {
      const started = performance.now();
      const hits = await retrieve(nestedLoops, tenant.organization.id, {
        knowledgebaseIds: [kbId],
        query: words.join(" "),
        limit: 5,
      });
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(hits[0]!.text).toContain(words.join(" "));
    } finally {
      await closeDb(nestedLoops);
    }
  }, 120_000);
});

describe("knowledgebase language", () => {
  it("defaults to english, is set on create and PATCH, and a change re-indexes what is stored", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    expect((await api("GET", `/knowledgebases/${kbId}`, { key })).body.language).toBe("english");
    const page = await newPage(key, kbId, { title: "Paperwork", markdown: "The documents were signed yesterday." });
    // English stems: "signing" finds "signed".
    expect((await search(key, kbId, "signing")).map((r) => r.id)).toEqual([page]);

    const patched = await api("PATCH", `/knowledgebases/${kbId}`, { key, body: { language: "simple" } });
    expect(patched.status).toBe(200);
    expect(patched.body.knowledgebase.language).toBe("simple");
    // Simple only lowercases: the stored page was re-indexed, so "signing" no longer finds "signed".
    expect(await search(key, kbId, "signing")).toEqual([]);
    expect((await search(key, kbId, "signed")).map((r) => r.id)).toEqual([page]);

    const german = await api("POST", "/knowledgebases", { key, body: { name: "Handbuch", language: "german" } });
    expect(german.status).toBe(201);
    expect(german.body.knowledgebase.language).toBe("german");
    const germanPage = await newPage(key, german.body.knowledgebase.id, {
      title: "Reisen",
      markdown: "Die Reisekosten werden erstattet.",
    });
    expect(
      (await search(key, german.body.knowledgebase.id, "werden die Reisekosten erstattet?")).map((r) => r.id),
    ).toEqual([germanPage]);
  });

  it("refuses a language PostgreSQL does not know, and changes nothing", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const refused = await api("PATCH", `/knowledgebases/${kbId}`, { key, body: { language: "klingon" } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("invalid_request");
    expect((await api("GET", `/knowledgebases/${kbId}`, { key })).body.language).toBe("english");
    const created = await api("POST", "/knowledgebases", {
      key,
      body: { name: "X", language: "english; drop table pages" },
    });
    expect(created.status).toBe(400);
  });

  it("keeps another organization's knowledgebase out of reach", async () => {
    const { kbId } = await tenantWithKnowledgebase();
    const { tenant: other } = await tenantWithKnowledgebase();
    const response = await api("PATCH", `/knowledgebases/${kbId}`, {
      key: other.orgKey.secret,
      body: { language: "simple" },
    });
    expect(response.status).toBe(404);
    expect((await getDb().knowledgebase.findUniqueOrThrow({ where: { id: kbId } })).language).toBe("english");
  });
});
