// Knowledgebase search: PostgreSQL full-text search (websearch syntax, ts_rank, ts_headline)
// over pages and indexed source chunks, both GIN-indexed tsvector columns. Searching sources
// costs 1 credit, charged in the same statement as the search: if the document index cannot
// answer, nothing is charged.
import type { SearchInput, SearchOutput } from "@/schemas/knowledgebase";
import type { Actor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError, isUnstorableTextError, toAppError } from "@/server/errors";
import { metrics } from "@/server/observability/metrics";
import { logger } from "@/server/observability/log";
import { findKnowledgebase } from "./knowledgebases";

export const SOURCE_SEARCH_CREDITS = 1;

/** Test hook: makes the document index fail, as an outage would. */
export const searchFaults = { documentIndexDown: false };

const HEADLINE = "StartSel=**, StopSel=**, MaxWords=30, MinWords=12, ShortWord=2, MaxFragments=2, FragmentDelimiter=\" … \"";

type Hit = { kind: "page" | "source"; id: string; title: string; snippet: string; score: number };

export async function searchKnowledgebase(db: Db, actor: Actor, input: SearchInput): Promise<SearchOutput> {
  await findKnowledgebase(db, actor, input.knowledgebaseId);
  const kinds = new Set(input.kinds ?? ["pages", "sources"]);
  // Pages and documents are searched side by side.
  const [pages, sources] = await Promise.all([
    kinds.has("pages") ? searchPages(db, actor, input) : [],
    kinds.has("sources") ? searchSources(db, actor, input) : [],
  ]);
  const results = [...pages, ...sources];
  results.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  return { results: results.slice(0, input.limit).map((hit) => ({ ...hit, score: Number(hit.score.toFixed(6)) })) };
}

function searchPages(db: Db, actor: Actor, input: SearchInput): Promise<Hit[]> {
  return db.$queryRaw<Hit[]>`
    with q as (select websearch_to_tsquery('english', ${input.query}) as query),
    hits as (
      select p.id, p.title, p.markdown, ts_rank(p.tsv, q.query) as score
      from pages p, q
      where p.knowledgebase_id = ${input.knowledgebaseId}::uuid and p.organization_id = ${actor.organizationId}::uuid and p.tsv @@ q.query
      order by score desc, p.id
      limit ${input.limit}
    )
    select 'page' as kind, h.id, h.title, ts_headline('english', h.markdown, q.query, ${HEADLINE}) as snippet, h.score::float8 as score
    from hits h, q`;
}

/**
 * Charges the credit and searches in ONE statement (the conditional UPDATE of chargeCredits in
 * credits.ts, inlined to save three round trips): the UPDATE in the first CTE either takes the
 * credit or matches nothing (then the search does no work and we answer insufficient_credits),
 * and if anything in the statement fails, PostgreSQL rolls the charge back with it.
 */
function sourceSearchSql(chunkTable: string): string {
  return `
    with charge as (
      update organizations set credits = credits - $3 where id = $2 and credits >= $3 returning 1
    ),
    q as (select websearch_to_tsquery('english', $4) as query),
    -- Score matching chunks by id only (no text carried through the sort)...
    hits as (
      select c.id, c.source_id, ts_rank(c.tsv, q.query) as score
      from ${chunkTable} c, q
      where c.knowledgebase_id = $1 and c.tsv @@ q.query and exists (select 1 from charge)
    ),
    -- ...keep each source's best chunk...
    best as (select distinct on (source_id) id, source_id, score from hits order by source_id, score desc),
    top as (
      select b.id, b.source_id, b.score from best b
      join sources s on s.id = b.source_id
      where s.organization_id = $2 and s.status = 'ready' and s.searchable and not s.disabled
      order by b.score desc, b.source_id
      limit $5
    ),
    -- ...and build snippets for the final few alone.
    results as (
      select 'source' as kind, s.id, s.name as title, ts_headline('english', c.text, q.query, $6) as snippet, t.score::float8 as score
      from top t join source_chunks c on c.id = t.id join sources s on s.id = t.source_id, q
    )
    select (select count(*) from charge)::int as charged, r.kind, r.id, r.title, r.snippet, r.score
    from (select 1) as one left join results r on true`;
}

const SOURCE_SEARCH_SQL = sourceSearchSql("source_chunks");
/** The injected outage: the chunk index is missing, so the statement fails (and its charge with it). */
const SOURCE_SEARCH_SQL_DOWN = sourceSearchSql("source_chunks_unavailable");

async function searchSources(db: Db, actor: Actor, input: SearchInput): Promise<Hit[]> {
  let rows: (Omit<Hit, "kind"> & { kind: Hit["kind"] | null; charged: number })[];
  try {
    ({ rows } = await db.pool.query({
      text: searchFaults.documentIndexDown ? SOURCE_SEARCH_SQL_DOWN : SOURCE_SEARCH_SQL,
      values: [input.knowledgebaseId, actor.organizationId, SOURCE_SEARCH_CREDITS, input.query, input.limit, HEADLINE],
    }));
  } catch (error) {
    // A query the database refuses as text is the client's to fix: retrying cannot help.
    if (isUnstorableTextError(error)) throw toAppError(error);
    logger().error({ err: error }, "Document search failed");
    throw new AppError("search_unavailable", "Document search could not answer just now; nothing was charged. Retry, or search pages only with kinds: [\"pages\"].");
  }
  if (rows[0]?.charged !== 1) {
    throw new AppError(
      "insufficient_credits",
      `Searching documents costs ${SOURCE_SEARCH_CREDITS} credit and the organization's balance cannot cover it; nothing was charged. Search pages only with kinds: ["pages"], which is free.`,
    );
  }
  metrics().creditsSpent.inc(SOURCE_SEARCH_CREDITS);
  return rows.filter((row) => row.kind !== null).map(({ charged: _charged, ...hit }) => ({ ...hit, kind: "source" as const, score: Number(hit.score) }));
}
