// What a search reads in a large knowledgebase (docs/knowledge.md, "What a search costs in a
// large knowledgebase"): the fragments of the ranking statement (lexical-sql.ts) that size each
// searched knowledgebase, estimate its terms' rarity from a sample, and pick a bounded set of
// candidate rows. They score nothing themselves; a small knowledgebase skips them.
import { param } from "./statement-parameters";

/**
 * Bounds on what a search reads in a large knowledgebase (docs/knowledge.md, "What a search costs
 * in a large knowledgebase"). Up to `exactRows` rows (chunks and pages) every row holding a term
 * of the question is ranked. Above it, the candidates are at most `candidateRows` rows: the
 * openings holding every term, the rows holding every term, then the rows holding each term,
 * rarest first (plus the opening passages of their documents). A term's rows are counted up to
 * `countedRows`; past that its document frequency is estimated from a sample of `sampleRows`
 * chunks, whose ids also give the number of chunks.
 */
export interface CandidateBounds {
  exactRows: number;
  candidateRows: number;
  countedRows: number;
  sampleRows: number;
}

export const CANDIDATE_BOUNDS: CandidateBounds = {
  exactRows: 5000,
  candidateRows: 1500,
  countedRows: 300,
  sampleRows: 1000,
};

/** Where a uuid falls between the smallest and the largest, in (0, 1]. */
function place(id: string): string {
  return `((('x' || substr(replace(${id}::text, '-', ''), 1, 12))::bit(48)::bigint + 1)::numeric / 281474976710656)`;
}

/**
 * `sizes`: the rows of each searched knowledgebase (the N of every term's rarity). Chunks are
 * counted up to exactRows + 1; past that, the id of the sampleRows-th in id order (ids are random:
 * gen_random_uuid()) says how many there are by where it falls, and bounds the sample below
 * (every row when there are fewer). Each read also names the searched knowledgebases as a constant:
 * PostgreSQL plans the lateral `k.id` with the table's average rows per knowledgebase, and in a
 * table of a few large ones that read every organization's chunks to count a one-page
 * knowledgebase's none (4 ms a question, and growing with the table).
 */
export function rowCounts(
  chunkTable: string,
  { exactRows, sampleRows }: CandidateBounds,
  statement: "bounded" | "small" = "bounded",
): string {
  // The small statement (lexical-sql.ts) sizes the knowledgebases in its `scope` before charging,
  // and only asks whether one has more than exactRows rows: no estimate, no sample's bound.
  const small = statement === "small";
  const knowledgebases = small ? "scope" : "kbs";
  const n = small
    ? "pc.n + cc.n"
    : `pc.n + (case when cc.n <= ${exactRows} then cc.n
          else coalesce(round(${sampleRows} / ${place("f.last")}), (select count(*) from ${chunkTable} c where c.knowledgebase_id = k.id)) end)`;
  const sample = small
    ? ""
    : `
      left join lateral (
        select c.id as last from ${chunkTable} c
        where ${param.sources}::boolean and c.knowledgebase_id = k.id and c.knowledgebase_id = any(${param.knowledgebaseIds}::uuid[])
        order by c.id offset ${sampleRows - 1} limit 1
      ) f on pc.n + cc.n > ${exactRows}`;
  const bound = small ? "" : ", coalesce(f.last, 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid) as sample_bound";
  return `
    sizes as materialized (
      select k.id as kb, ${n} as n${bound}
      from ${knowledgebases} k
      cross join lateral (
        select case when ${param.pages}::boolean then (select count(*) from pages p where p.knowledgebase_id = k.id and p.organization_id = ${param.organizationId}::uuid) else 0 end as n
      ) pc
      cross join lateral (
        select count(*) as n from (
          select 1 from ${chunkTable} c
          where ${param.sources}::boolean and c.knowledgebase_id = k.id and c.knowledgebase_id = any(${param.knowledgebaseIds}::uuid[])
          limit ${exactRows + 1}
        ) c
      ) cc${sample}
    )`;
}

/**
 * The question's terms a row's tsvector holds (`any_terms a` in scope), as the lexemes that name
 * them (`terms.lexeme`; a phrase its tsquery's text). A row that `matched` the question holds
 * its term when it has one; otherwise the one-word terms are found in a few passes over the
 * tsvector, in C (every lexeme weighted A, the terms' D, then those kept), the phrases tested one
 * by one. Testing every term on every row (`tsv @@ tq` for each of a question's twenty-odd terms
 * and synonyms) was a quarter of the statement's time over two thousand matching passages.
 */
export function heldTerms(tsv: string, { matched }: { matched: boolean }): string {
  const held = `tsvector_to_array(ts_filter(setweight(setweight(${tsv}, 'A'), 'D', a.lexemes), '{d}'))
          || case when a.phrases then array(select t.lexeme from terms t where t.kb = a.kb and t.is_phrase and ${tsv} @@ t.tq) else '{}'::text[] end`;
  return matched ? `case when a.n = 1 then a.names else ${held} end` : held;
}

/**
 * `estimates`: each term's document frequency in a knowledgebase of more than exactRows rows,
 * which is not read whole for a question of common words. Rows holding each term are counted up
 * to countedRows; the document frequency of a term in more rows is estimated from a sample of the
 * knowledgebase, read only then.
 */
export function termEstimates(chunkTable: string, { exactRows, countedRows, sampleRows }: CandidateBounds): string {
  return `
    counted as materialized (
      select t.kb, t.term_no, t.lexeme, r.df from terms t join sizes s on s.kb = t.kb
      cross join lateral (
        select count(*)::numeric as df from (
          select 1 from pages p where ${param.pages}::boolean and p.knowledgebase_id = t.kb and p.organization_id = ${param.organizationId}::uuid and p.tsv @@ t.tq
          union all
          select 1 from ${chunkTable} c where ${param.sources}::boolean and c.knowledgebase_id = t.kb and c.knowledgebase_id = any(${param.knowledgebaseIds}::uuid[]) and c.tsv @@ t.tq
          limit ${countedRows + 1}
        ) held
      ) r
      where s.n > ${exactRows}
    ),
    sample as materialized (
      select s.kb, ${heldTerms("x.tsv", { matched: false })} as has
      from sizes s join any_terms a on a.kb = s.kb cross join lateral (
        select p.tsv from pages p
        where ${param.pages}::boolean and p.knowledgebase_id = s.kb and p.organization_id = ${param.organizationId}::uuid and p.id <= s.sample_bound
        union all
        (select c.tsv from ${chunkTable} c
          where ${param.sources}::boolean and c.knowledgebase_id = s.kb and c.knowledgebase_id = any(${param.knowledgebaseIds}::uuid[]) order by c.id limit ${sampleRows})
      ) x
      where s.kb in (select kb from counted where df > ${countedRows})
    ),
    estimates as materialized (
      select c.kb, c.term_no, case when c.df <= ${countedRows} then c.df else greatest(c.df, e.df) end as df
      from counted c join sizes s on s.kb = c.kb
      cross join lateral (
        select round(s.n * (count(*) filter (where c.lexeme = any(x.has)))::numeric / nullif(count(*), 0)) as df
        from sample x where x.kb = c.kb
      ) e
    )`;
}

/**
 * `picked` and `openings`: in a large knowledgebase, the candidates, at most candidateRows rows,
 * read in this order until there are enough: the opening passages holding every term of the
 * question (an opening's coverage adds to its document's score; source_chunks_opening_tsv_idx),
 * the rows holding every term, then the rows holding each term, rarest first, the question's own
 * terms before synonyms. Common terms and synonyms count in the score, and in the candidates only
 * when the others leave room.
 */
export function boundedCandidates(chunkTable: string, { candidateRows }: CandidateBounds): string {
  return `
    every_term as (
      select kb, string_agg(tq::text, ' & ')::tsquery as tq from terms
      where term_no = origin and kb in (select kb from estimates) and (kb, term_no) not in (select kb, term_no from intent_terms) group by kb
    ),
    by_rarity as (
      select t.kb, t.tq, row_number() over (order by t.term_no <> t.origin, (t.kb, t.term_no) in (select kb, term_no from intent_terms), e.df, t.kb, t.term_no) as nth
      from estimates e join terms t on t.kb = e.kb and t.term_no = e.term_no
    ),
    layers as materialized (
      (select 'page' as kind, p.id as row_id, p.id, a.kb from every_term a join pages p on p.knowledgebase_id = a.kb
        where ${param.pages}::boolean and p.knowledgebase_id = any(${param.knowledgebaseIds}::uuid[]) and p.organization_id = ${param.organizationId}::uuid and p.tsv @@ a.tq)
      union all
      (select 'source', c.id, c.source_id, a.kb from every_term a join ${chunkTable} c on c.knowledgebase_id = a.kb
        where ${param.sources}::boolean and c.knowledgebase_id = any(${param.knowledgebaseIds}::uuid[]) and c.position = 0 and c.tsv @@ a.tq)
      union all
      (select 'source', c.id, c.source_id, a.kb from every_term a join ${chunkTable} c on c.knowledgebase_id = a.kb
        where ${param.sources}::boolean and c.knowledgebase_id = any(${param.knowledgebaseIds}::uuid[]) and c.tsv @@ a.tq)
      union all
      (select x.* from (select * from by_rarity order by nth) r cross join lateral (
        select 'page' as kind, p.id as row_id, p.id, r.kb from pages p
        where ${param.pages}::boolean and p.knowledgebase_id = r.kb and p.knowledgebase_id = any(${param.knowledgebaseIds}::uuid[]) and p.organization_id = ${param.organizationId}::uuid and p.tsv @@ r.tq
        union all
        select 'source', c.id, c.source_id, r.kb from ${chunkTable} c
        where ${param.sources}::boolean and c.knowledgebase_id = r.kb and c.knowledgebase_id = any(${param.knowledgebaseIds}::uuid[]) and c.tsv @@ r.tq
      ) x)
      limit ${candidateRows}
    ),
    picked as materialized (
      select distinct kind, row_id, id, kb from layers
    ),
    -- Whether the bound cut the candidates short; if not, they are every row holding a term.
    truncated as (
      select count(*) >= ${candidateRows} as yes from layers
    ),
    -- The opening passage of each candidate document, for the score it gives the document (when
    -- every row holding a term is a candidate, so is every opening that counts).
    openings as (
      select o.id as row_id, p.kb from (select distinct id, kb from picked where kind = 'source') p
      join ${chunkTable} o on o.source_id = p.id and o.position = 0
      where (select yes from truncated) and o.id not in (select row_id from picked)
    )`;
}
