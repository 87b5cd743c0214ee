// The one retrieval function: what agents, flows' knowledge_search and the search API find in
// knowledgebases for a query. Lexical ranking in PostgreSQL, in the knowledgebase's text-search
// configuration (its `language`):
// - a row matches if it has ANY of the query's terms (a question finds pages, not nothing);
// - its score is the share of the query it covers, each term weighted by its rarity in the
//   searched knowledgebases (BM25's idf: "the" or "file" count little, "pkcs12" a lot), with a
//   boost for terms in a heading or title (weight A of the tsvector) and in the source's name;
// - then the query as a phrase, and cover density (terms close together) as a smaller bonus.
// Only knowledgebases of the organization count (it is part of the SQL), never an end user's
// private notebook.
import type { Db } from "@/server/db";

export type RetrievedKind = "page" | "source";

export interface RetrievedHit {
  kind: RetrievedKind;
  /** The page's id, or the source's id for a document chunk. */
  id: string;
  knowledgebaseId: string;
  title: string;
  /** Headings above the passage (" > "), "" for a page. */
  heading: string;
  text: string;
  /** The best fragments with the query's terms in **bold**. */
  snippet: string;
  score: number;
}

export interface RetrievalRequest {
  knowledgebaseIds: string[];
  query: string;
  limit: number;
  kinds?: { pages: boolean; sources: boolean };
  /** Search API: a document appears once, with its best chunk. Agents take several passages of one document. */
  onePerSource?: boolean;
  /** Characters of each passage's text returned. */
  textChars?: number;
}

const HEADLINE = "StartSel=**, StopSel=**, MaxWords=30, MinWords=12, ShortWord=2, MaxFragments=2, FragmentDelimiter=\" … \"";
/** Candidates re-scored with the costlier boosts (phrase, title, cover density). */
const RESCORE = 40;

/**
 * The ranking statement. `chunkTable` is a parameter only so that a test can make the document
 * index fail as an outage would. $1 knowledgebase ids, $2 organization, $3 query, $4 limit,
 * $5 pages?, $6 sources?, $7 one per source?, $8 text characters, $9 headline options.
 */
export function retrievalSql(chunkTable = "source_chunks"): string {
  return `
    with kbs as (
      select id, language::regconfig as cfg from knowledgebases
      where id = any($1::uuid[]) and organization_id = $2::uuid and end_user_id is null
    ),
    terms as (
      select k.id as kb, k.cfg, t.lexeme, ('''' || replace(replace(t.lexeme, '\\', '\\\\'), '''', '''''') || '''')::tsquery as tq
      from kbs k, unnest(to_tsvector(k.cfg, $3::text)) as t
    ),
    -- Every (term, row) pair, found through the GIN indexes (one lookup per term: "offset 0" keeps
    -- the planner from turning it into a scan that tests every row): frequencies and coverage come from here.
    hits as materialized (
      select t.kb, t.lexeme, 'page' as kind, p.id as row_id
      from terms t cross join lateral (
        select p.id from pages p where $5::boolean and p.tsv @@ t.tq and p.knowledgebase_id = t.kb and p.organization_id = $2::uuid offset 0
      ) p
      union all
      select t.kb, t.lexeme, 'source', c.id
      from terms t cross join lateral (
        select c.id from ${chunkTable} c where $6::boolean and c.tsv @@ t.tq and c.knowledgebase_id = t.kb offset 0
      ) c
    ),
    sizes as materialized (
      select k.id as kb,
        (case when $5::boolean then (select count(*) from pages p where p.knowledgebase_id = k.id and p.organization_id = $2::uuid) else 0 end)
        + (case when $6::boolean then (select count(*) from ${chunkTable} c where c.knowledgebase_id = k.id) else 0 end) as n
      from kbs k
    ),
    -- A term weighs by its rarity (BM25's idf): a term in every row says nothing, one in few rows says a lot.
    weighted as materialized (
      select t.kb, t.lexeme, t.tq, (t.tq::text || ':A')::tsquery as tq_heading,
        ln(1 + (s.n - coalesce(d.df, 0) + 0.5) / (coalesce(d.df, 0) + 0.5)) as idf
      from terms t join sizes s on s.kb = t.kb
      left join (select kb, lexeme, count(*) as df from hits group by kb, lexeme) d on d.kb = t.kb and d.lexeme = t.lexeme
    ),
    queries as (
      select kb, cfg, string_agg(tq::text, ' | ')::tsquery as any_term, sum(idf) as total, count(*) as term_count,
        phraseto_tsquery(cfg, $3::text) as phrase
      from weighted join kbs on kbs.id = weighted.kb group by kb, cfg
    ),
    covered as (
      select h.kind, h.row_id, h.kb, sum(w.idf) / nullif(q.total, 0) as coverage
      from hits h join weighted w on w.kb = h.kb and w.lexeme = h.lexeme join queries q on q.kb = h.kb
      group by h.kind, h.row_id, h.kb, q.total
    ),
    -- Ids only through the sort; text and tsvectors are read for the best few.
    candidates as (
      select c.kind, c.row_id, c.row_id as id, c.kb, c.coverage from covered c where c.kind = 'page'
      union all
      select c.kind, c.row_id, ch.source_id, c.kb, c.coverage
      from covered c join ${chunkTable} ch on ch.id = c.row_id join sources s on s.id = ch.source_id
      where c.kind = 'source' and s.organization_id = $2::uuid and s.status = 'ready' and s.searchable and not s.disabled
    ),
    best as (
      select * from (
        select r.*, row_number() over (partition by r.kind, r.id order by r.coverage desc, r.row_id) as nth from candidates r
      ) ranked
      where not $7::boolean or nth = 1
      order by coverage desc, row_id
      limit ${RESCORE}
    ),
    passages as (
      select b.*, p.title, '' as heading, p.markdown as text, p.tsv
      from best b join pages p on p.id = b.row_id where b.kind = 'page'
      union all
      select b.*, s.name, ch.heading, ch.text, ch.tsv
      from best b join ${chunkTable} ch on ch.id = b.row_id join sources s on s.id = ch.source_id where b.kind = 'source'
    ),
    -- The best few are scored again with costlier signals: terms in a heading or the title, the phrase, proximity.
    scored as (
      select b.*, q.any_term, q.cfg, b.coverage
        + coalesce((select sum(w.idf) from weighted w where w.kb = b.kb and b.tsv @@ w.tq_heading), 0) / q.total * 0.5
        + coalesce((select sum(w.idf) from weighted w where w.kb = b.kb and t.title_tsv @@ w.tq), 0) / q.total * 0.5
        + (case when q.term_count > 1 and b.tsv @@ q.phrase then 0.3 else 0 end)
        + ts_rank_cd(b.tsv, q.any_term, 2) * 0.5 as score
      from passages b join queries q on q.kb = b.kb cross join lateral (select to_tsvector(q.cfg, b.title) as title_tsv) t
    )
    select kind, id::text, kb::text as "knowledgebaseId", title, heading, left(text, $8::int) as text,
      ts_headline(cfg, text, any_term, $9::text) as snippet, score::float8 as score
    from (select * from scored order by score desc, row_id limit $4::int) top
    order by score desc, row_id`;
}

const DEFAULT_SQL = retrievalSql();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Queryable = Pick<Db["pool"], "query">;

/** Ranked passages for a query. `sql` is retrievalSql() unless a test injects an outage. */
export async function retrieve(db: Queryable, organizationId: string, request: RetrievalRequest, sql = DEFAULT_SQL): Promise<RetrievedHit[]> {
  const ids = request.knowledgebaseIds.filter((id) => UUID.test(id));
  if (ids.length === 0 || request.query.trim() === "" || request.limit <= 0) return [];
  const kinds = request.kinds ?? { pages: true, sources: true };
  const { rows } = await db.query<RetrievedHit>({
    text: sql,
    values: [ids, organizationId, request.query, request.limit, kinds.pages, kinds.sources, request.onePerSource ?? false, request.textChars ?? 4000, HEADLINE],
  });
  return rows.map((row) => ({ ...row, score: Number(row.score) }));
}
