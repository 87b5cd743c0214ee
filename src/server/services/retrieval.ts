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
const RESCORE = 100;

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
      select k.id as kb, k.cfg, ('''' || replace(replace(t.lexeme, '\\', '\\\\'), '''', '''''') || '''')::tsquery as tq
      from kbs k, unnest(to_tsvector(k.cfg, $3::text)) as t
    ),
    sizes as (
      select k.id as kb,
        (case when $5::boolean then (select count(*) from pages p where p.knowledgebase_id = k.id and p.organization_id = $2::uuid) else 0 end)
        + (case when $6::boolean then (select count(*) from ${chunkTable} c where c.knowledgebase_id = k.id) else 0 end) as n
      from kbs k
    ),
    weighted as (
      select t.kb, t.cfg, t.tq, (t.tq::text || ':A')::tsquery as tq_heading,
        ln(1 + (s.n - d.df + 0.5) / (d.df + 0.5)) as idf
      from terms t join sizes s on s.kb = t.kb
      cross join lateral (select
        (case when $5::boolean then (select count(*) from pages p where p.knowledgebase_id = t.kb and p.organization_id = $2::uuid and p.tsv @@ t.tq) else 0 end)
        + (case when $6::boolean then (select count(*) from ${chunkTable} c where c.knowledgebase_id = t.kb and c.tsv @@ t.tq) else 0 end) as df) d
    ),
    queries as (
      select kb, cfg, string_agg(tq::text, ' | ')::tsquery as any_term, sum(idf) as total, count(*) as term_count,
        phraseto_tsquery(cfg, $3::text) as phrase
      from weighted group by kb, cfg
    ),
    matches as (
      select 'page' as kind, p.id as row_id, p.id, p.knowledgebase_id as kb, p.title, '' as heading, p.markdown as text, p.tsv
      from pages p join queries q on q.kb = p.knowledgebase_id
      where $5::boolean and p.organization_id = $2::uuid and p.tsv @@ q.any_term
      union all
      select 'source', c.id, c.source_id, c.knowledgebase_id, s.name, c.heading, c.text, c.tsv
      from ${chunkTable} c join queries q on q.kb = c.knowledgebase_id join sources s on s.id = c.source_id
      where $6::boolean and s.organization_id = $2::uuid and s.status = 'ready' and s.searchable and not s.disabled and c.tsv @@ q.any_term
    ),
    covered as (
      select m.*, (
        select sum(w.idf * (case when m.tsv @@ w.tq_heading then 1.5 else 1 end)) from weighted w where w.kb = m.kb and m.tsv @@ w.tq
      ) / q.total as coverage
      from matches m join queries q on q.kb = m.kb
    ),
    best as (
      select * from (
        select c.*, row_number() over (partition by c.kind, c.id order by c.coverage desc, c.row_id) as nth from covered c
      ) ranked
      where not $7::boolean or nth = 1
      order by coverage desc, row_id
      limit ${RESCORE}
    ),
    scored as (
      select b.*, q.any_term, q.cfg, b.coverage
        + coalesce((select sum(w.idf) from weighted w where w.kb = b.kb and to_tsvector(q.cfg, b.title) @@ w.tq), 0) / q.total * 0.5
        + (case when q.term_count > 1 and b.tsv @@ q.phrase then 0.3 else 0 end)
        + ts_rank_cd(b.tsv, q.any_term, 2) * 0.5 as score
      from best b join queries q on q.kb = b.kb
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
