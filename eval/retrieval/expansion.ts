// Prototypes of query expansion learned from the knowledgebase's own corpus (issue 34, scope 2),
// measured with `npm run eval:retrieval -- --expand "<variant>;<variant>"`. None is part of the
// ranking: each lowered the tuning or the unseen halves (BENCHMARKS.md, 2026-11-27 late night).
// They rewrite the question (expansion terms count as much as the question's own) or fuse the
// rewritten question's ranking with the original's; the fused variants keep no passage headings.
//
// A variant is "documents,minDocuments,terms,source[,fuseWeight]":
// - source `headings`: terms of the first pass's top `documents` documents' names and headings
//   (weight A) that at least `minDocuments` of them share (pseudo-relevance feedback on titles);
// - source `all`: the same from any of those documents' text;
// - source `assoc`: each rare question term (in at most `documents` passages) brings the heading
//   terms of the passages it occurs in that at least `minDocuments` documents share, ranked by
//   the share of the heading term's passages it accounts for (a heading ↔ body association);
// - fuseWeight 0 (default): the expanded question replaces the question; else both rankings are
//   fused (reciprocal rank with k = 5), the expanded one weighing fuseWeight.
import type { Db } from "@/server/db";
import type { Ranker } from "./sets";

export interface ExpansionVariant {
  label: string;
  documents: number;
  minDocuments: number;
  terms: number;
  source: "headings" | "all" | "assoc";
  fuseWeight: number;
}

export function parseExpansionVariants(spec: string | undefined): ExpansionVariant[] {
  if (!spec) return [];
  return spec.split(";").map((label) => {
    const [documents, minDocuments, terms, source, fuseWeight] = label.split(",");
    if (source !== "headings" && source !== "all" && source !== "assoc") throw new Error(`Unknown expansion source in ${label}`);
    return { label, documents: +documents!, minDocuments: +minDocuments!, terms: +terms!, source, fuseWeight: Number(fuseWeight ?? 0) };
  });
}

/** Lexemes worth no expansion: short ones and numbers. */
const USEFUL_LEXEME = `length(lexeme) > 2 and lexeme !~ '^[0-9.]+$'`;

async function feedbackTerms(db: Db, first: Ranker, variant: ExpansionVariant & { knowledgebaseId: string }, question: string): Promise<string[]> {
  const { titles } = await first(question);
  const top = [...new Set(titles)].slice(0, variant.documents);
  const { rows } = await db.pool.query<{ lexeme: string }>(
    `with q as (select array(select lexeme from unnest(to_tsvector('english', $2::text))) as lx),
      docs as (select id, name from sources where name = any($1::text[]) and knowledgebase_id = $6::uuid),
      terms as (
        select d.id, t.lexeme from docs d, unnest(to_tsvector('english', regexp_replace(d.name, '[-_.]', ' ', 'g'))) t
        union
        select c.source_id, t.lexeme from source_chunks c join docs d on d.id = c.source_id,
          unnest(case when $5 = 'all' then c.tsv else ts_filter(c.tsv, '{a}') end) t
      )
      select lexeme from terms, q where not lexeme = any(q.lx) and ${USEFUL_LEXEME}
      group by lexeme having count(distinct id) >= $3 order by count(distinct id) desc, lexeme limit $4`,
    [top, question, variant.minDocuments, variant.terms, variant.source, variant.knowledgebaseId],
  );
  return rows.map((row) => row.lexeme);
}

async function associatedTerms(db: Db, variant: ExpansionVariant & { knowledgebaseId: string }, question: string): Promise<string[]> {
  const { rows } = await db.pool.query<{ lexeme: string }>(
    `with q as (select t.lexeme, t.lexeme::tsquery as tq from unnest(to_tsvector('english', $1::text)) t),
      hits as (
        select q.lexeme as term, c.source_id, c.tsv, count(*) over (partition by q.lexeme) as df
        from q join source_chunks c on c.tsv @@ q.tq and c.knowledgebase_id = $5::uuid
      ),
      related as (
        select r.term, h.lexeme, count(distinct r.source_id) as docs
        from hits r, unnest(ts_filter(r.tsv, '{a}')) h
        where r.df <= $2 and h.lexeme not in (select lexeme from q) and ${USEFUL_LEXEME}
        group by r.term, h.lexeme having count(distinct r.source_id) >= $3
      ),
      scored as (
        select distinct on (lexeme) lexeme, docs::float8 / (
          select count(*) from source_chunks c where c.knowledgebase_id = $5::uuid and c.tsv @@ lexeme::tsquery) as share
        from related order by lexeme, docs desc
      )
      select lexeme from scored order by share desc, lexeme limit $4`,
    [question, variant.documents, variant.minDocuments, variant.terms, variant.knowledgebaseId],
  );
  return rows.map((row) => row.lexeme);
}

/** The first ranker, asked the question with the variant's expansion terms. */
export function expandedRanker(db: Db, knowledgebaseId: string, first: Ranker, spec: ExpansionVariant): Ranker {
  const variant = { ...spec, knowledgebaseId };
  const rewritten: Ranker = async (question) => {
    const terms =
      variant.source === "assoc" ? await associatedTerms(db, variant, question) : await feedbackTerms(db, first, variant, question);
    return first(terms.length === 0 ? question : `${question} ${terms.join(" ")}`);
  };
  if (variant.fuseWeight === 0) return rewritten;
  return async (question) => {
    const scores = new Map<string, number>();
    const add = (titles: string[], weight: number) =>
      [...new Set(titles)].forEach((title, index) => scores.set(title, (scores.get(title) ?? 0) + weight / (5 + index)));
    add((await first(question)).titles, 1);
    add((await rewritten(question)).titles, variant.fuseWeight);
    const titles = [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([title]) => title);
    return { titles, headings: titles.map(() => "") };
  };
}
