// Issue 53: a question to small knowledgebases runs a shorter statement (smallRetrievalSql) than
// the bounded one (retrievalSql), which must rank exactly as the bounded one does: the same
// passages, titles, snippets and scores. A knowledgebase that is not small is handed to the bounded
// statement, charged once.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import type { RetrievalRequest } from "@/server/runtime/retrieval/hits";
import { DEFAULT_SQL, rankLexically, type Queryable } from "@/server/runtime/retrieval/lexical";
import { retrievalSql, smallRetrievalSql } from "@/server/runtime/retrieval/lexical-sql";
import { createOrganization } from "@/server/services/org/organizations";
import { statementValues } from "@/server/runtime/retrieval/statement-parameters";
import { listSets, loadSet } from "../../eval/retrieval/sets";
import { newPage, tenantWithKnowledgebase } from "../knowledge-helpers";

/** The pool, recording the name of each statement sent. */
function recording(): { db: Queryable; names: (string | undefined)[] } {
  const names: (string | undefined)[] = [];
  const db: Queryable = {
    query: ((config: { name?: string }) => {
      names.push(config.name);
      return getDb().pool.query(config as never);
    }) as Queryable["query"],
  };
  return { db, names };
}

describe("the small statement", () => {
  it(
    "ranks an evaluation set's every question exactly as the bounded statement does",
    { timeout: 180_000 },
    async () => {
      const db = getDb();
      const set = listSets().find((candidate) => candidate.name === "council-services")!;
      const organization = await createOrganization(db, { name: "Evaluation", credits: 1_000 });
      const knowledgebaseId = await loadSet(db, organization.id, set);
      // And a page, which the statement reads from its own table.
      await db.page.create({
        data: {
          organizationId: organization.id,
          knowledgebaseId,
          title: "Council tax refunds",
          markdown: "# Refunds\n\nA refund of council tax is paid within 14 days of the request.",
        },
      });
      const small = recording();
      const bounded = recording();
      const requests: RetrievalRequest[] = set.questions.flatMap(({ question }) => [
        { knowledgebaseIds: [knowledgebaseId], query: question, limit: 10, onePerSource: true },
        { knowledgebaseIds: [knowledgebaseId], query: question, limit: 4 },
      ]);
      for (const request of requests) {
        const byBounded = await rankLexically(bounded.db, organization.id, request, 0, DEFAULT_SQL, null);
        const bySmall = await rankLexically(small.db, organization.id, request, 0, DEFAULT_SQL);
        expect(bySmall).toEqual(byBounded);
      }
      expect(new Set(small.names)).toEqual(new Set(["atrium_retrieve_small"]));
      expect(new Set(bounded.names)).toEqual(new Set(["atrium_retrieve"]));
      // Most questions find something, pages among them: the comparison is not of empty lists.
      const found = await Promise.all(
        requests.map((request) => rankLexically(small.db, organization.id, request, 0, DEFAULT_SQL)),
      );
      expect(found.filter(({ hits }) => hits.length > 0).length).toBeGreaterThan(requests.length * 0.9);
      expect(found.some(({ hits }) => hits.some((hit) => hit.kind === "page"))).toBe(true);
    },
  );

  it("ranks a run's question as the search API does, without making snippets", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    await newPage(key, kbId, {
      title: "Refund policy",
      markdown: "Refunds are paid within 14 days. Shipping is not refunded.",
    });
    await newPage(key, kbId, {
      title: "Shipping",
      markdown: "Parcels ship within 2 days; shipping costs depend on weight.",
    });
    const request: RetrievalRequest = { knowledgebaseIds: [kbId], query: "are shipping costs refunded", limit: 5 };
    const organizationId = tenant.organization.id;
    const withSnippets = await rankLexically(getDb().pool, organizationId, request, 0, DEFAULT_SQL);
    const without = await rankLexically(getDb().pool, organizationId, { ...request, snippets: false }, 0, DEFAULT_SQL);
    expect(withSnippets.hits).toHaveLength(2);
    expect(withSnippets.hits.every((hit) => hit.snippet.includes("**"))).toBe(true);
    expect(without.hits).toEqual(withSnippets.hits.map((hit) => ({ ...hit, snippet: "" })));
  });

  it("hands a knowledgebase that is not small to the bounded statement, charged once", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    for (let i = 0; i < 4; i++)
      await newPage(key, kbId, { title: `Refunds ${i}`, markdown: `Refunds are paid within ${i + 10} days.` });
    // Bounds under which four pages are a large knowledgebase.
    const bounds = { exactRows: 3, candidateRows: 2, countedRows: 1, sampleRows: 2 };
    const [boundedSql, smallSql] = [retrievalSql("source_chunks", bounds), smallRetrievalSql("source_chunks", bounds)];
    const credits = async () =>
      (await getDb().organization.findUniqueOrThrow({ where: { id: tenant.organization.id } })).credits;
    const request: RetrievalRequest = { knowledgebaseIds: [kbId], query: "how long do refunds take", limit: 3 };

    const before = await credits();
    const expected = await rankLexically(getDb().pool, tenant.organization.id, request, 2, boundedSql, null);
    expect(expected.charged).toBe(true);
    expect(expected.hits).toHaveLength(2);
    expect(await credits()).toBe(before - 2);

    const asked = recording();
    const ranked = await rankLexically(asked.db, tenant.organization.id, request, 2, boundedSql, smallSql);
    expect(ranked).toEqual(expected);
    expect(asked.names).toHaveLength(2);
    expect(await credits()).toBe(before - 4);
    // Asked again, the process goes to the bounded statement at once.
    const again = recording();
    expect(await rankLexically(again.db, tenant.organization.id, request, 2, boundedSql, smallSql)).toEqual(expected);
    expect(again.names).toHaveLength(1);
    expect(await credits()).toBe(before - 6);
  });

  it("charges nothing for a knowledgebase that is not the organization's, in either statement", async () => {
    const victim = await tenantWithKnowledgebase();
    await newPage(victim.tenant.orgKey.secret, victim.kbId, { title: "Refunds", markdown: "Refunds take 14 days." });
    const organization = await createOrganization(getDb(), { name: "Asker", credits: 10 });
    const credits = async () =>
      (await getDb().organization.findUniqueOrThrow({ where: { id: organization.id } })).credits;
    const request: RetrievalRequest = { knowledgebaseIds: [victim.kbId], query: "refunds", limit: 3 };
    for (const small of [smallRetrievalSql(), null]) {
      const ranked = await rankLexically(getDb().pool, organization.id, request, 2, retrievalSql(), small);
      expect(ranked).toEqual({ charged: false, hits: [], found: new Set() });
    }
    expect(await credits()).toBe(10);
  });

  it("sizes a one-page knowledgebase without reading another knowledgebase's chunks", async () => {
    const db = getDb();
    // A knowledgebase of 3,000 chunks, in statistics as autovacuum would gather them.
    const large = await tenantWithKnowledgebase();
    const [source] = await db.$queryRaw<{ id: string }[]>`
      insert into sources (id, organization_id, knowledgebase_id, name, type, status, created_via, size_bytes, text, updated_at)
      values (gen_random_uuid(), ${large.tenant.organization.id}::uuid, ${large.kbId}::uuid, 'Manual', 'markdown', 'ready', 'api', 100, '', now())
      returning id::text`;
    await db.$executeRaw`
      insert into source_chunks (id, source_id, knowledgebase_id, position, text)
      select gen_random_uuid(), ${source!.id}::uuid, ${large.kbId}::uuid, n, 'refunds are paid within days ' || n
      from generate_series(0, 2999) as n`;
    await db.$executeRawUnsafe("analyze source_chunks");
    const { tenant, kbId } = await tenantWithKnowledgebase();
    await newPage(tenant.orgKey.secret, kbId, { title: "Refunds", markdown: "Refunds are paid within 14 days." });

    const values = statementValues({
      knowledgebaseIds: [kbId],
      organizationId: tenant.organization.id,
      question: "how long do refunds take",
      limit: 10,
      pages: true,
      sources: true,
      onePerSource: false,
      textChars: 4000,
      headline: "",
      credits: 0,
      synonymWords: [],
      synonyms: [],
      synonymWeight: 0.5,
      onlyAbsent: false,
      lightWords: [],
      lightWeights: [],
    });
    const { rows } = await db.pool.query<{ "QUERY PLAN": { Plan: Record<string, unknown> }[] }>(
      `explain (analyze, format json) ${smallRetrievalSql()}`,
      values,
    );
    // Every row the statement's reads of source_chunks returned or filtered out.
    let chunksRead = 0;
    const walk = (node: Record<string, unknown>) => {
      if (node["Relation Name"] === "source_chunks")
        chunksRead +=
          (Number(node["Actual Rows"]) + Number(node["Rows Removed by Filter"] ?? 0)) * Number(node["Actual Loops"]);
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    walk(rows[0]!["QUERY PLAN"][0]!.Plan);
    expect(chunksRead).toBe(0);
    // And it finds the page.
    const ranked = await rankLexically(
      db.pool,
      tenant.organization.id,
      { knowledgebaseIds: [kbId], query: "how long do refunds take", limit: 3 },
      0,
      DEFAULT_SQL,
    );
    expect(ranked.hits.map((hit) => hit.title)).toEqual(["Refunds"]);
  });
});
