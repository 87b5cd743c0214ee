// The lexical ranking statement of the one retrieval function (retrieve.ts): what agents, flows'
// knowledge_search and the search API find in knowledgebases for a query. Lexical ranking in
// PostgreSQL, in the knowledgebase's text-search configuration (its `language`):
// - a row matches if it has ANY of the query's terms (a question finds pages, not nothing);
// - its score is the share of the query it covers, each term weighted by its rarity in the
//   searched knowledgebases (BM25's idf: "the" or "file" count little, "pkcs12" a lot), with a
//   boost for terms in a heading or title (weight A of the tsvector) and in the source's name;
// - divided by a power of the passage's length, plus the coverage of its document's opening
//   passage (docs/knowledge.md, "How ranking works");
// - then the query as a phrase, and cover density (terms close together) as a smaller bonus.
// In an english knowledgebase the question's words also bring synonyms from outside the corpus
// (vocabulary.ts), each worth less than the word it stands for (a compound's two words as a phrase:
// "filesystem", "file system"), and when the question has other terms the words of
// how it is asked ("want", "need", "way") weigh 0.3 of their rarity, everyday words of speech
// ("every", "day", "keep") 0.3 to 1 by how common they are.
// Only knowledgebases of the organization count (it is part of the SQL), never an end user's
// private notebook. The statement is built from named fragments, each a few common table
// expressions, in the order PostgreSQL reads them; candidates-sql.ts holds those that bound what a
// search reads in a large knowledgebase.
import {
  boundedCandidates,
  CANDIDATE_BOUNDS,
  heldTerms,
  rowCounts,
  termEstimates,
  type CandidateBounds,
} from "./candidates-sql";
import { param } from "./statement-parameters";

/**
 * The tsvector of a short text (the question, its words and synonyms, a document's title: all
 * bounded by src/schemas/limits.ts): atrium_search_text keeps the parse linear, and such a text
 * can never reach a tsvector's 1 MB, so atrium_tsvector's fallback (a PL/pgSQL function whose
 * exception block opens a subtransaction on every call, tens of calls per question) is not needed.
 */
const shortTsvector = (config: string, text: string) => `to_tsvector(${config}, atrium_search_text(${text}))`;

/** Candidates re-scored with the costlier boosts (phrase, title, cover density). */
export const RESCORE = 40;
/**
 * Ranking weights, tuned on the evaluation sets' tuning halves only (eval/retrieval/sets.ts,
 * BENCHMARKS.md): a passage's coverage is divided by (bytes / 400)^0.3 (at least 350, so that a
 * one-line passage, such as a manual page's NAME line, counts at most 1.04 × its coverage; a page,
 * which is not cut into passages, at most 1,000), its document's opening passage (a page: the
 * page) adds 0.6 × its own coverage, terms in a heading add 0.25 × their share, terms in the
 * document's name (its title) add 1 × theirs, the question as a phrase adds 0.3 and cover density
 * (terms close together) 0.5 × ts_rank_cd.
 */
const PASSAGE_LENGTH_NORM = 0.3;
const REFERENCE_PASSAGE_CHARS = 400;
const MIN_PASSAGE_CHARS = 350;
const PAGE_CHARS = 1000;
const OPENING_WEIGHT = 0.6;
const HEADING_WEIGHT = 0.25;
const TITLE_WEIGHT = 1;
const PHRASE_BONUS = 0.3;
const PROXIMITY_WEIGHT = 0.5;
/**
 * Passages of equal score in a stable order, the same in every load of the same documents (row
 * ids are random): by the document's name, then the earlier passage of a document first.
 */
const TIES = "name, position, row_id";
/** Synonyms are numbered after the question's own terms (a question has far fewer than this). */
const SYNONYM_TERM_NUMBERS = 10_000;

/**
 * The ranking statement. `chunkTable` is a parameter only so that a test can make the document
 * index fail as an outage would; `bounds` so that a test can make a small knowledgebase large.
 * Its parameters are named in statement-parameters.ts.
 * The charge is part of the statement (no round trips for a transaction): without the credits
 * nothing is searched, and if the search fails the charge fails with it.
 * Text reaches the text-search parser only through atrium_tsvector, atrium_search_text and
 * atrium_headline (migration 20261204180000_linear_text_search), which keep its cost linear.
 */
export function retrievalSql(chunkTable = "source_chunks", bounds: CandidateBounds = CANDIDATE_BOUNDS): string {
  const fragments = [
    chargeAndScope(),
    questionTerms(),
    synonymTerms(),
    rowCounts(chunkTable, bounds),
    termEstimates(chunkTable, bounds),
    boundedCandidates(chunkTable, bounds),
    matchingRows(chunkTable, "bounded"),
    termWeights("bounded"),
    coverage(),
    rescored(chunkTable),
  ];
  return `
    with ${fragments.join(",")}
${results()}`;
}

/**
 * The same ranking for knowledgebases of at most `exactRows` rows each, without the fragments
 * that bound a large one's candidates (candidates-sql.ts): there they read nothing and change
 * nothing (no term is estimated, no candidate picked), but a statement of twice the size costs
 * its planning and start every call. It sizes the knowledgebases first: when one is larger it
 * charges and searches nothing and answers `large`, and the caller runs retrievalSql().
 */
export function smallRetrievalSql(chunkTable = "source_chunks", bounds: CandidateBounds = CANDIDATE_BOUNDS): string {
  const fragments = [
    sizedScope(chunkTable, bounds),
    questionTerms(),
    synonymTerms(),
    matchingRows(chunkTable, "small"),
    termWeights("small"),
    coverage(),
    rescored(chunkTable),
  ];
  return `
    with ${fragments.join(",")}
${results("small")}`;
}

/**
 * `scope`, `charge` and `kbs`, scoring nothing: the knowledgebases asked for that are the
 * organization's own (never an end user's notebook), the credits taken when there is one (a
 * search of none charges nothing), and those searched only if the charge went through.
 */
function chargeAndScope(): string {
  return `
    scope as (
      select id, language::regconfig as cfg from knowledgebases
      where id = any(${param.knowledgebaseIds}::uuid[]) and organization_id = ${param.organizationId}::uuid and end_user_id is null
    ),
    charge as (
      update organizations set credits = credits - ${param.credits}::int where id = ${param.organizationId}::uuid and ${param.credits}::int > 0 and credits >= ${param.credits}::int
        and exists (select 1 from scope)
      returning 1
    ),
    kbs as (
      select id, cfg from scope where ${param.credits}::int = 0 or exists (select 1 from charge)
    )`;
}

/**
 * smallRetrievalSql's `scope`, `sizes`, `too_large`, `charge` and `kbs`: the organization's own
 * knowledgebases asked for, sized before anything is charged; none is searched (and nothing
 * charged) when one of them has more than exactRows rows, or when there is none.
 */
function sizedScope(chunkTable: string, bounds: CandidateBounds): string {
  return `
    scope as (
      select id, language::regconfig as cfg from knowledgebases
      where id = any(${param.knowledgebaseIds}::uuid[]) and organization_id = ${param.organizationId}::uuid and end_user_id is null
    ),${rowCounts(chunkTable, bounds, "small")},
    too_large as (
      select exists (select 1 from sizes where n > ${bounds.exactRows}) as yes
    ),
    charge as (
      update organizations set credits = credits - ${param.credits}::int where id = ${param.organizationId}::uuid and ${param.credits}::int > 0 and credits >= ${param.credits}::int
        and not (select yes from too_large) and exists (select 1 from scope)
      returning 1
    ),
    kbs as (
      select id, cfg from scope
      where not (select yes from too_large) and (${param.credits}::int = 0 or exists (select 1 from charge))
    )`;
}

/**
 * `question_terms` and `intent_terms`: the question's terms, stemmed in each knowledgebase's
 * language, and those that weigh a share of their rarity (intent and everyday words).
 */
function questionTerms(): string {
  return `
    question_terms as (
      select k.id as kb, k.cfg, t.lexeme, t.term_no::int as term_no
      from kbs k, unnest(${shortTsvector("k.cfg", `${param.question}::text`)}) with ordinality as t(lexeme, positions, weights, term_no)
    ),
    -- The question's light words (lightWords, each weighing its share in lightWeights of its rarity: vocabulary.ts),
    -- in an english knowledgebase when the question has other terms. Only those whose first letter begins one of the
    -- question's terms are stemmed: an english stem keeps a word's first letter (not always its second: "dying" is
    -- "die"; ranking-features.test.ts checks every light word), so no other can be one of its terms. Stemming all
    -- thirty-odd took 0.07 ms a question.
    light_words as (
      select l.weight, tsvector_to_array(${shortTsvector("'english'::regconfig", "l.word")}) as lexemes
      from unnest(${param.lightWords}::text[], ${param.lightWeights}::float8[]) as l(word, weight)
      where left(l.word, 1) in (select left(q.lexeme, 1) from question_terms q where q.cfg = 'english'::regconfig)
    ),
    -- Materialized: read for each term of the question, it would otherwise run once per term.
    intent_terms as materialized (
      select q.kb, q.term_no, min(l.weight) as weight from question_terms q join light_words l on q.lexeme = any(l.lexemes)
      where q.cfg = 'english'::regconfig
        and exists (select 1 from question_terms o where o.kb = q.kb and not exists (select 1 from light_words m where o.lexeme = any(m.lexemes)))
      group by q.kb, q.term_no
    )`;
}

/**
 * `terms` and `any_terms`: the question's terms and their synonyms, each synonym standing for the
 * term it widens (its origin), each term a tsquery (a synonym of several words a phrase).
 */
function synonymTerms(): string {
  return `
    -- Synonyms of the question's words (synonymWords, and at the same index in synonyms each one's synonym: vocabulary.ts),
    -- for english knowledgebases only, each standing for the question term it widens (origin);
    -- a synonym that is one of the question's own terms is that term. A synonym of several words
    -- ("file system" for "filesystem") is a phrase: its words next to each other, in order.
    -- Each word and synonym is stemmed once per question (materialized): joined with the question's
    -- terms, the word's stemming ran once per synonym and term.
    synonym_words as materialized (
      select e.n, tsvector_to_array(${shortTsvector("'english'::regconfig", "e.word")}) as word_lexemes, s.lexeme, s.phrase
      from unnest(${param.synonymWords}::text[], ${param.synonyms}::text[]) with ordinality as e(word, synonym, n)
      cross join lateral (
        select w.lexeme, null::tsquery as phrase from unnest(${shortTsvector("'english'::regconfig", "e.synonym")}) as w where strpos(e.synonym, ' ') = 0
        union all
        select p::text, p from phraseto_tsquery('english'::regconfig, atrium_search_text(e.synonym)) as p where strpos(e.synonym, ' ') > 0 and numnode(p) > 1
      ) s
    ),
    synonym_terms as (
      select kb, cfg, lexeme, phrase, origin from (
        select k.id as kb, k.cfg, s.lexeme, s.phrase, q.term_no as origin, row_number() over (partition by k.id, s.lexeme order by s.n, q.term_no) as nth
        from kbs k
        join question_terms q on q.kb = k.id
        join synonym_words s on q.lexeme = any(s.word_lexemes)
        where k.cfg = 'english'::regconfig and not exists (select 1 from question_terms o where o.kb = k.id and o.lexeme = s.lexeme)
      ) firsts where nth = 1
    ),
    terms as (
      select t.kb, t.cfg, t.lexeme, t.term_no, t.origin, t.phrase is not null as is_phrase,
        coalesce(t.phrase, ('''' || replace(replace(t.lexeme, '\\', '\\\\'), '''', '''''') || '''')::tsquery) as tq from (
        select kb, cfg, lexeme, term_no, term_no as origin, null::tsquery as phrase from question_terms
        union all
        select kb, cfg, lexeme, (${SYNONYM_TERM_NUMBERS} + row_number() over (partition by kb order by lexeme))::int, origin, phrase from synonym_terms
      ) t
    ),
    -- All terms as one tsquery, and what heldTerms() reads: how many, their names, the one-word terms' lexemes, any phrases.
    any_terms as (
      select kb, string_agg(tq::text, ' | ')::tsquery as tq, count(*) as n, array_agg(lexeme) as names,
        coalesce(array_agg(lexeme) filter (where not is_phrase), '{}') as lexemes, bool_or(is_phrase) as phrases
      from terms group by kb
    )`;
}

/**
 * `matches`: the rows scored, each with the set of the question's terms it holds (heldTerms): in
 * a small knowledgebase every row holding any term, in a large one its candidates. The constant
 * test on the knowledgebase ids lets the planner read only the searched knowledgebases' rows by
 * their index, never the whole table (every organization's documents). Nothing else is read per
 * row: the ranking below needs only which terms each row holds.
 */
function matchingRows(chunkTable: string, statement: "bounded" | "small"): string {
  // Only the bounded statement has large knowledgebases, and their candidates.
  const small = (kb: string) =>
    statement === "bounded" ? `\n        and ${kb} not in (select kb from estimates)` : "";
  const large = statement === "bounded" ? largeMatchingRows(chunkTable) : "";
  return `
    matches as materialized (
      select 'page' as kind, p.id as row_id, p.id, a.kb, p.title as name, 0 as position, least(octet_length(p.markdown), ${PAGE_CHARS}) as chars,
        ${heldTerms("p.tsv", { matched: true })} as has
      from any_terms a join pages p on p.knowledgebase_id = a.kb
      where ${param.pages}::boolean and p.knowledgebase_id = any(${param.knowledgebaseIds}::uuid[]) and p.organization_id = ${param.organizationId}::uuid and p.tsv @@ a.tq${small("a.kb")}
      union all
      select 'source', c.id, c.source_id, a.kb, null, c.position, octet_length(c.text),
        ${heldTerms("c.tsv", { matched: true })}
      from any_terms a join ${chunkTable} c on c.knowledgebase_id = a.kb
      where ${param.sources}::boolean and c.knowledgebase_id = any(${param.knowledgebaseIds}::uuid[]) and c.tsv @@ a.tq${small("a.kb")}${large}
    )`;
}

/** matchingRows' rows of a large knowledgebase: its candidates. */
function largeMatchingRows(chunkTable: string): string {
  return `
      -- A large knowledgebase: its candidates.
      union all
      select 'page', p.id, p.id, x.kb, p.title, 0, least(octet_length(p.markdown), ${PAGE_CHARS}),
        ${heldTerms("p.tsv", { matched: true })}
      from picked x join pages p on p.id = x.row_id
      join any_terms a on a.kb = x.kb
      where x.kind = 'page' and p.knowledgebase_id = any(${param.knowledgebaseIds}::uuid[]) and p.organization_id = ${param.organizationId}::uuid
      union all
      select 'source', c.id, c.source_id, x.kb, null, c.position, octet_length(c.text),
        ${heldTerms("c.tsv", { matched: true })}
      from (select row_id, kb, false as opening from picked where kind = 'source' union all select row_id, kb, true from openings) x
      join ${chunkTable} c on c.id = x.row_id
      join any_terms a on a.kb = x.kb
      where c.knowledgebase_id = any(${param.knowledgebaseIds}::uuid[]) and (not x.opening or c.tsv @@ a.tq)`;
}

/**
 * `weighted` and `queries`: what holding each term is worth, its rarity (BM25's idf), a light
 * word's share of it, a synonym's share of its word's; and the question's tsqueries for the rescoring.
 */
function termWeights(statement: "bounded" | "small"): string {
  // A term's rows are all counted in a small knowledgebase; a large one's may be estimated.
  const df =
    statement === "bounded"
      ? "coalesce((select e.df from estimates e where e.kb = t.kb and e.term_no = t.term_no and (select yes from truncated)), sum(ts.n), 0)"
      : "coalesce(sum(ts.n), 0)";
  return `
    -- A query has few distinct sets of terms however many rows match: document frequencies are
    -- counted from them.
    term_sets as materialized (
      select kb, has, count(*) as n from matches group by kb, has
    ),
    -- A term weighs by its rarity (BM25's idf): a term in every row says nothing, one in few rows
    -- says a lot. Its document frequency counts every row that holds it (all of them are in matches).
    -- Computed in float8: numeric's logarithm took a twentieth of a small knowledgebase's statement.
    term_weights as materialized (
      select t.kb, t.term_no, t.origin, t.lexeme, t.tq,
        ln(1 + (s.n - d.df + 0.5)::float8 / (d.df + 0.5)::float8)
          * coalesce((select i.weight from intent_terms i where i.kb = t.kb and i.term_no = t.term_no), 1) as idf, d.df
      from terms t join sizes s on s.kb = t.kb
      cross join lateral (select ${df} as df
        from term_sets ts where ts.kb = t.kb and t.lexeme = any(ts.has)) d
    ),
    -- What holding a term is worth: a question term its idf; a synonym synonymWeight × the smaller of its
    -- own idf and its word's (with onlyAbsent, nothing when the knowledgebase uses the word itself). A
    -- row counts the best term of each question word it holds, so a synonym never outranks the word.
    weighted as materialized (
      select w.*, case when w.term_no = w.origin then w.idf when ${param.onlyAbsent}::boolean and o.df > 0 then 0
        else ${param.synonymWeight}::float8 * least(w.idf, o.idf) end as credit
      from term_weights w join term_weights o on o.kb = w.kb and o.term_no = w.origin
    ),
    queries as materialized (
      select kb, cfg, (string_agg(tq::text, ' | ') filter (where term_no = origin))::tsquery as any_term,
        string_agg(tq::text, ' | ')::tsquery as all_terms, sum(idf) filter (where term_no = origin) as total,
        count(*) filter (where term_no = origin) as term_count, phraseto_tsquery(cfg, atrium_search_text(${param.question}::text)) as phrase
      from weighted join kbs on kbs.id = weighted.kb group by kb, cfg
    )`;
}

/**
 * `best`: each row's score by coverage (the share of the question's weight its terms hold),
 * divided by a power of its length, plus its document opening's coverage; the best RESCORE rows
 * (one a document when asked), ids only.
 */
function coverage(): string {
  return `
    -- The coverage of each set of terms rows hold: the share of the query the set covers, each
    -- term by its weight, its best term per question word. Rows share few sets, so each is
    -- computed once: the float8s in an array, each set's place in it in a jsonb object by the
    -- set (float8 itself in jsonb would be rounded to numeric's 15 digits).
    set_coverage as materialized (
      select s.kb, jsonb_object_agg(s.has::text, s.slot) as slots, array_agg(s.coverage order by s.slot) as coverages
      from (
        select ts.kb, ts.has, row_number() over (partition by ts.kb) as slot,
          (select (sum(g.credit) / nullif(sum(g.idf), 0))::float8 from (
            select max(w.credit) filter (where w.lexeme = any(ts.has)) as credit, max(w.idf) filter (where w.term_no = w.origin) as idf
            from weighted w where w.kb = ts.kb group by w.origin) g) as coverage
        from term_sets ts
      ) s
      group by s.kb
    ),
    -- Each row's coverage (float8: cheap to sort), its set's looked up by key. It is never a join
    -- of the matching rows with their sets of terms: planned from the guesses PostgreSQL makes
    -- about these intermediate results, that join became a nested loop over sets × rows, and a
    -- question whose common words gave most rows a set of their own took seconds (docs/knowledge.md).
    -- Ids only through the sort; text and tsvectors are read for the best few. A source's row
    -- counts when its document may answer (ready, searchable, enabled; matches holds rows of the
    -- organization's knowledgebases only), its document looked up by id for each row (the limit
    -- keeps it a lookup): planned as a join, a generic plan once tested every row against every
    -- document of the knowledgebase, 45 ms over the manual pages (BENCHMARKS.md, 2026-12-06).
    candidates as (
      select m.kind, m.row_id, m.id, m.kb, coalesce(d.name, m.name) as name, m.position, m.chars,
        (select c.coverages[(c.slots ->> m.has::text)::int] from set_coverage c where c.kb = m.kb) as coverage
      from matches m left join lateral (
        select s.name from sources s
        where m.kind = 'source' and s.id = m.id and ${param.sources}::boolean
          and s.knowledgebase_id = any(${param.knowledgebaseIds}::uuid[]) and s.organization_id = ${param.organizationId}::uuid
          and s.status = 'ready' and s.searchable and not s.disabled
        limit 1
      ) d on true
      where m.kind = 'page' or d.name is not null
    ),
    -- A passage's coverage per its length in bytes (a long passage holds more words by chance;
    -- octet_length reads no TOASTed text), plus the coverage of its document's opening passage
    -- (its title and summary lines) when that passage matches: the document says it is about the
    -- question, whatever passage answers. A page is one passage, its own opening.
    passage_scores as (
      select c.kind, c.row_id, c.id, c.kb, c.name, c.position,
        c.coverage / power(greatest(c.chars, ${MIN_PASSAGE_CHARS})::float8 / ${REFERENCE_PASSAGE_CHARS}, ${PASSAGE_LENGTH_NORM})
        + ${OPENING_WEIGHT} * coalesce(max(c.coverage) filter (where c.position = 0) over (partition by c.kind, c.id), 0) as coverage
      from candidates c
    ),
    best as (
      select * from (
        select r.*, row_number() over (partition by r.id, r.kind order by r.coverage desc, ${TIES}) as nth from passage_scores r
      ) ranked
      where not ${param.onePerSource}::boolean or nth = 1
      order by coverage desc, ${TIES}
      limit ${RESCORE}
    )`;
}

/** `scored`: the best few scored again with costlier signals, read from their text. */
function rescored(chunkTable: string): string {
  return `
    passages as (
      select b.*, b.name as title, '' as heading, p.markdown as text, p.tsv
      from best b join pages p on p.id = b.row_id where b.kind = 'page'
      union all
      select b.*, b.name, ch.heading, ch.text, ch.tsv
      from best b join ${chunkTable} ch on ch.id = b.row_id where b.kind = 'source'
    ),
    -- The best few are scored again with costlier signals: terms in a heading or the title, the phrase, proximity.
    -- The title's tsvector once a passage (offset 0): inlined, it was parsed again for each term. The terms
    -- in a heading are those of the passage's weight-A positions, kept once a passage: a query of weight A
    -- for each term was a tsquery parsed per term and question.
    scored as (
      select b.*, q.all_terms, q.cfg, b.coverage
        + coalesce(${bestCredits("t.heading_tsv @@ w.tq")}, 0) / q.total * ${HEADING_WEIGHT}
        + coalesce(${bestCredits("t.title_tsv @@ w.tq")}, 0) / q.total * ${TITLE_WEIGHT}
        + (case when q.term_count > 1 and b.tsv @@ q.phrase then ${PHRASE_BONUS} else 0 end)
        + ts_rank_cd(b.tsv, q.any_term, 2) * ${PROXIMITY_WEIGHT} as score
      from passages b join queries q on q.kb = b.kb
      cross join lateral (select ${shortTsvector("q.cfg", "b.title")} as title_tsv, ts_filter(b.tsv, '{a}') as heading_tsv offset 0) t
    )`;
}

/**
 * The statement's one result set: the best `limit` passages with their text and snippet, or one
 * row even when nothing matches, to tell whether the credits were taken and which of the
 * knowledgebases asked for are the organization's.
 */
function results(statement: "bounded" | "small" = "bounded"): string {
  const large = statement === "small" ? " (select yes from too_large) as large," : "";
  return `    select (select count(*) from charge)::int as charged, array(select id::text from kbs) as found,${large} top.*
    from (select 1) as one left join (
      select kind, id::text, kb::text as "knowledgebaseId", title, heading, position, left(text, ${param.textChars}::int) as text,
        atrium_headline(cfg, text, all_terms, ${param.headline}::text) as snippet, score::float8 as score, row_id
      from (select * from scored order by score desc, ${TIES} limit ${param.limit}::int) best_few
    ) top on true
    order by top.score desc, top.title, top.position, top.row_id`;
}

/**
 * The credits of the terms a row holds where `held` is true, the best one per question word (its
 * own term or one of its synonyms): SQL over `weighted w`, for the row being scored.
 */
function bestCredits(held: string): string {
  return `(select sum(g.credit) from (select max(w.credit) as credit from weighted w where w.kb = b.kb and ${held} group by w.origin) g)`;
}
