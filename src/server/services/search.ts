// Knowledgebase search: PostgreSQL full-text search (websearch syntax, ts_rank_cd, ts_headline)
// over pages and indexed source chunks, both GIN-indexed tsvector columns. Searching sources
// costs 1 credit, charged in the same transaction as the search: if the document index cannot
// answer, nothing is charged.
import type { SearchInput, SearchOutput } from "@/schemas/knowledgebase";
import type { Actor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError, isAppError } from "@/server/errors";
import { chargeCredits } from "./credits";
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
    kinds.has("pages") ? searchPages(db, input) : [],
    kinds.has("sources") ? searchSources(db, actor, input) : [],
  ]);
  const results = [...pages, ...sources];
  results.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  return { results: results.slice(0, input.limit).map((hit) => ({ ...hit, score: Number(hit.score.toFixed(6)) })) };
}

function searchPages(db: Db, input: SearchInput): Promise<Hit[]> {
  return db.$queryRaw<Hit[]>`
    with q as (select websearch_to_tsquery('english', ${input.query}) as query),
    hits as (
      select p.id, p.title, p.markdown, ts_rank(p.tsv, q.query) as score
      from pages p, q
      where p.knowledgebase_id = ${input.knowledgebaseId}::uuid and p.tsv @@ q.query
      order by score desc, p.id
      limit ${input.limit}
    )
    select 'page' as kind, h.id, h.title, ts_headline('english', h.markdown, q.query, ${HEADLINE}) as snippet, h.score::float8 as score
    from hits h, q`;
}

async function searchSources(db: Db, actor: Actor, input: SearchInput): Promise<Hit[]> {
  try {
    return await db.$transaction(async (tx) => {
      await chargeCredits(tx, actor.organizationId, SOURCE_SEARCH_CREDITS);
      if (searchFaults.documentIndexDown) throw new Error("document index unavailable (injected)");
      // Score every matching chunk by id only (no text carried through the sort), keep each
      // source's best chunk, and build snippets for the final few alone.
      return tx.$queryRaw<Hit[]>`
        with q as (select websearch_to_tsquery('english', ${input.query}) as query),
        hits as (
          select c.id, c.source_id, ts_rank(c.tsv, q.query) as score
          from source_chunks c, q
          where c.knowledgebase_id = ${input.knowledgebaseId}::uuid and c.tsv @@ q.query
        ),
        best as (select distinct on (source_id) id, source_id, score from hits order by source_id, score desc),
        top as (
          select b.id, b.source_id, b.score from best b
          join sources s on s.id = b.source_id
          where s.status = 'ready' and s.searchable and not s.disabled
          order by b.score desc, b.source_id
          limit ${input.limit}
        )
        select 'source' as kind, s.id, s.name as title, ts_headline('english', c.text, q.query, ${HEADLINE}) as snippet, t.score::float8 as score
        from top t join source_chunks c on c.id = t.id join sources s on s.id = t.source_id, q`;
    });
  } catch (error) {
    if (isAppError(error)) throw error;
    console.error("Document search failed:", error);
    throw new AppError("search_unavailable", "Document search could not answer just now; nothing was charged. Retry, or search pages only with kinds: [\"pages\"].");
  }
}
