// The lexical ranking: the question's synonyms and light words (vocabulary.ts) and the ranking
// statement (lexical-sql.ts), run with the request's parameters.
import type { Db } from "@/server/db";
import type { RankedHit, RetrievalRequest, RetrievedHit, RetrievedKind } from "./hits";
import { retrievalSql, smallRetrievalSql } from "./lexical-sql";
import { statementValues } from "./statement-parameters";
import { lightWordsOf, synonymsOf, VOCABULARY_DEFAULTS } from "./vocabulary";

const HEADLINE =
  'StartSel=**, StopSel=**, MaxWords=30, MinWords=12, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "';

export const DEFAULT_SQL = retrievalSql();
const DEFAULT_SMALL_SQL = smallRetrievalSql();

/**
 * Knowledgebases of questions this process found one larger than the small statement takes in:
 * asked again, they go straight to the bounded one, which ranks a small (or since shrunk)
 * knowledgebase the same, only at its own cost.
 */
const largeKnowledgebases = new Set<string>();
const LARGE_KNOWLEDGEBASES_KEPT = 10_000;

export type Queryable = Pick<Db["pool"], "query">;

/**
 * Characters of a question the lexical ranking reads (a search's query is at most 500, a run's
 * message up to 32,000): the question as a phrase of 16,000 words once exceeded PostgreSQL's
 * stack, and every term costs the statement a few index reads.
 */
const LEXICAL_QUESTION_CHARS = 2000;

/**
 * The ranking of `sql` (the bounded statement, retrievalSql()). With the default statement, a
 * question to small knowledgebases runs `small` (smallRetrievalSql(): the same ranking, a shorter
 * statement), which answers `large` instead when one of them is not small.
 */
export async function rankLexically(
  db: Queryable,
  organizationId: string,
  request: RetrievalRequest,
  credits: number,
  sql: string,
  small = sql === DEFAULT_SQL ? DEFAULT_SMALL_SQL : null,
): Promise<{ charged: boolean; hits: RankedHit[]; found: Set<string> }> {
  const kinds = request.kinds ?? { pages: true, sources: true };
  const vocabulary = request.vocabulary ?? VOCABULARY_DEFAULTS;
  const question = request.query.slice(0, LEXICAL_QUESTION_CHARS);
  const { words, synonyms } = await synonymsOf(question, vocabulary);
  const light = lightWordsOf(question, vocabulary);
  const values = statementValues({
    knowledgebaseIds: request.knowledgebaseIds,
    organizationId,
    question,
    limit: request.limit,
    pages: kinds.pages,
    sources: kinds.sources,
    onePerSource: request.onePerSource ?? false,
    textChars: request.textChars ?? 4000,
    // atrium_headline is strict: without its options it is not called.
    headline: request.snippets === false ? null : HEADLINE,
    credits,
    synonymWords: words,
    synonyms,
    synonymWeight: vocabulary.weight,
    onlyAbsent: vocabulary.onlyAbsent,
    lightWords: light.words,
    lightWeights: light.weights,
  });
  type Row = {
    charged: number;
    found: string[];
    large?: boolean;
    kind: RetrievedKind | null;
    row_id: string | null;
    position: number | null;
    snippet: string | null;
  } & Omit<RetrievedHit, "kind" | "snippet">;
  let rows: Row[] | null = null;
  if (small !== null && !request.knowledgebaseIds.some((id) => largeKnowledgebases.has(id))) {
    // Named, so that each connection parses and plans the statement once.
    const answer = await db.query<Row>({
      name: small === DEFAULT_SMALL_SQL ? "atrium_retrieve_small" : undefined,
      text: small,
      values,
    });
    if (answer.rows[0]?.large) {
      if (largeKnowledgebases.size >= LARGE_KNOWLEDGEBASES_KEPT) largeKnowledgebases.clear();
      for (const id of request.knowledgebaseIds) largeKnowledgebases.add(id);
    } else rows = answer.rows;
  }
  rows ??= (await db.query<Row>({ name: sql === DEFAULT_SQL ? "atrium_retrieve" : undefined, text: sql, values })).rows;
  return {
    charged: credits === 0 || rows[0]?.charged === 1,
    hits: rows.flatMap(
      ({ charged: _charged, found: _found, large: _large, row_id: rowId, position: _position, kind, ...hit }) =>
        kind === null || rowId === null
          ? []
          : [{ ...hit, kind, rowId, snippet: hit.snippet ?? "", score: Number(hit.score) }],
    ),
    found: new Set(rows[0]?.found ?? []),
  };
}
