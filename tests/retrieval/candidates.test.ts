// Issue 36: in a knowledgebase too large to rank every row holding a word of the question, the
// ranking reads a bounded set of candidates (runtime/retrieval/candidates-sql.ts, CandidateBounds). Here the
// bounds are made small enough for 600 rows to count as large, and the bounded statement is
// compared with the ranking of every matching row (what the default bounds do at this size).
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import type { RetrievalRequest } from "@/server/runtime/retrieval/hits";
import { CANDIDATE_BOUNDS } from "@/server/runtime/retrieval/candidates-sql";
import { retrievalSql } from "@/server/runtime/retrieval/lexical-sql";
import { retrieve } from "@/server/runtime/retrieval/retrieve";
import { lightWordsOf, VOCABULARY_DEFAULTS } from "@/server/runtime/retrieval/vocabulary";
import { tenantWithKnowledgebase } from "../knowledge-helpers";

const DOCUMENTS = 60;
const PASSAGES = 10;
const BOUNDS = { exactRows: 100, candidateRows: 60, countedRows: 30, sampleRows: 200 };
const BOUNDED_SQL = retrievalSql("source_chunks", BOUNDS);
/** Passages holding the rare word, as [document, position]. */
const DISHWASHER = [
  [50, 0],
  [7, 4],
  [21, 2],
  [33, 8],
];

/**
 * Passage (d, p): "account" when d + p is even (half of all rows), "billing" at positions 0, 3, 6
 * and 9 (40%), "dishwasher" in four. An opening passage is its document's shortest, and openings
 * grow with the document's number; every passage is longer than the ranking's minimum length.
 */
function passageText(d: number, p: number): string {
  const words = [
    (d + p) % 2 === 0 ? "account" : "",
    p % 3 === 0 ? "billing" : "",
    DISHWASHER.some(([dd, pp]) => dd === d && pp === p) ? "dishwasher" : "",
  ].filter(Boolean);
  const filler = 20 + (p === 0 ? d : DOCUMENTS + p * 7 + (d % 5));
  return [...words, ...Array.from({ length: filler }, () => "filler")].join(" ");
}

let organizationId = "";
let knowledgebaseId = "";
const documentIds: string[] = [];

beforeAll(async () => {
  const { tenant, kbId } = await tenantWithKnowledgebase();
  organizationId = tenant.organization.id;
  knowledgebaseId = kbId;
  const db = getDb();
  for (let d = 0; d < DOCUMENTS; d++) {
    const [source] = await db.$queryRaw<{ id: string }[]>`
      insert into sources (id, organization_id, knowledgebase_id, name, type, status, created_via, size_bytes, text, updated_at)
      values (gen_random_uuid(), ${organizationId}::uuid, ${kbId}::uuid, ${`Document ${d}`}, 'markdown', 'ready', 'api', 100, '', now())
      returning id::text`;
    const id = source!.id;
    documentIds.push(id);
    const texts = Array.from({ length: PASSAGES }, (_, p) => passageText(d, p));
    await db.$executeRaw`
      insert into source_chunks (id, source_id, knowledgebase_id, position, text)
      select gen_random_uuid(), ${id}::uuid, ${kbId}::uuid, t.position - 1, t.text
      from unnest(${texts}::text[]) with ordinality as t(text, position)`;
  }
}, 60_000);

function request(query: string, limit: number): RetrievalRequest {
  return { knowledgebaseIds: [knowledgebaseId], query, limit, onePerSource: true };
}

async function bothRankings(query: string, limit: number) {
  const exact = await retrieve(getDb(), organizationId, request(query, limit));
  const bounded = await retrieve(getDb(), organizationId, request(query, limit), BOUNDED_SQL);
  return { exact, bounded };
}

/**
 * The rows of each CTE of the bounded statement, from EXPLAIN ANALYZE; `synonyms` pairs question
 * words with synonyms at half weight (runtime/retrieval/vocabulary.ts gives them to the statement so).
 */
async function cteRows(query: string, synonyms: [string, string][] = []): Promise<Record<string, number>> {
  const light = lightWordsOf(query, VOCABULARY_DEFAULTS);
  const { rows } = await getDb().pool.query<{ "QUERY PLAN": unknown }>(
    `explain (analyze, format json) ${BOUNDED_SQL}`,
    [
      [knowledgebaseId],
      organizationId,
      query,
      10,
      true,
      true,
      true,
      4000,
      "",
      0,
      synonyms.map(([word]) => word),
      synonyms.map(([, synonym]) => synonym),
      0.5,
      false,
      light.words,
      light.weights,
    ],
  );
  const found: Record<string, number> = {};
  const walk = (node: Record<string, unknown>) => {
    if (typeof node["Subplan Name"] === "string")
      found[node["Subplan Name"].replace(/^CTE /, "")] = Number(node["Actual Rows"]);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk((rows[0]!["QUERY PLAN"] as { Plan: Record<string, unknown> }[])[0]!.Plan);
  return found;
}

describe("search in a large knowledgebase: a bounded set of candidates", () => {
  it("ranks by default every matching row of a knowledgebase this size", () => {
    expect(DOCUMENTS * PASSAGES).toBeLessThan(CANDIDATE_BOUNDS.exactRows);
  });

  it("gives the same results, scores included, for a rare word: every row holding it is a candidate", async () => {
    const { exact, bounded } = await bothRankings("dishwasher", 10);
    expect(new Set(exact.map((hit) => hit.id))).toEqual(new Set(DISHWASHER.map(([d]) => documentIds[d!])));
    expect(bounded).toEqual(exact);
  });

  it("with rare and common words, finds what the full ranking finds first: the rare word's documents", async () => {
    const { exact, bounded } = await bothRankings("dishwasher account billing", 4);
    // Document 50's opening holds all three words; the others hold the rare one alone.
    expect(exact[0]!.id).toBe(documentIds[50]);
    expect(new Set(exact.map((hit) => hit.id))).toEqual(new Set(DISHWASHER.map(([d]) => documentIds[d!])));
    expect(bounded.map((hit) => hit.id)).toEqual(exact.map((hit) => hit.id));
  });

  it("with only common words, finds the documents whose opening holds them all, in the same order", async () => {
    const { exact, bounded } = await bothRankings("account billing", 5);
    // Every even document's opening holds both words; the shorter the opening, the higher.
    expect(exact.map((hit) => hit.id)).toEqual([0, 2, 4, 6, 8].map((d) => documentIds[d]));
    expect(bounded.map((hit) => hit.id)).toEqual(exact.map((hit) => hit.id));
    expect(bounded.map((hit) => hit.snippet)).toEqual(exact.map((hit) => hit.snippet));
  });

  it("reads at most the bound's candidates and their documents' openings, however common the words", async () => {
    const rows = await cteRows("account billing filler");
    expect(rows.layers).toBe(BOUNDS.candidateRows);
    expect(rows.picked).toBeLessThanOrEqual(BOUNDS.candidateRows);
    expect(rows.matches).toBeLessThanOrEqual(2 * BOUNDS.candidateRows);
    // A term counted past countedRows has its frequency from the sample.
    expect(rows.sample).toBeGreaterThan(0);
    expect(rows.sample).toBeLessThanOrEqual(BOUNDS.sampleRows);
  });

  it("keeps to the bound when the question's words bring synonyms, however common", async () => {
    const plain = await cteRows("account billing");
    // "filler" is in every passage: as a synonym it weighs in the score, never past the bound.
    const widened = await cteRows("account billing", [
      ["account", "filler"],
      ["billing", "filler"],
    ]);
    expect(widened.terms).toBe(plain.terms! + 1);
    expect(widened.layers).toBe(BOUNDS.candidateRows);
    expect(widened.matches).toBeLessThanOrEqual(2 * BOUNDS.candidateRows);
    expect(widened.matches).toBeLessThanOrEqual(plain.matches! + BOUNDS.candidateRows);
  });
});
