// The lexical ranking: the question's synonyms and light words (vocabulary.ts) and the ranking
// statement (lexical-sql.ts), run with the request's parameters.
import type { Db } from "@/server/db";
import type { RankedHit, RetrievalRequest, RetrievedHit, RetrievedKind } from "./hits";
import { retrievalSql } from "./lexical-sql";
import { statementValues } from "./statement-parameters";
import { lightWordsOf, synonymsOf, VOCABULARY_DEFAULTS } from "./vocabulary";

const HEADLINE =
  'StartSel=**, StopSel=**, MaxWords=30, MinWords=12, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "';

export const DEFAULT_SQL = retrievalSql();

export type Queryable = Pick<Db["pool"], "query">;

/**
 * Characters of a question the lexical ranking reads (a search's query is at most 500, a run's
 * message up to 32,000): the question as a phrase of 16,000 words once exceeded PostgreSQL's
 * stack, and every term costs the statement a few index reads.
 */
const LEXICAL_QUESTION_CHARS = 2000;

export async function rankLexically(
  db: Queryable,
  organizationId: string,
  request: RetrievalRequest,
  credits: number,
  sql: string,
): Promise<{ charged: boolean; hits: RankedHit[]; found: Set<string> }> {
  const kinds = request.kinds ?? { pages: true, sources: true };
  const vocabulary = request.vocabulary ?? VOCABULARY_DEFAULTS;
  const question = request.query.slice(0, LEXICAL_QUESTION_CHARS);
  const { words, synonyms } = await synonymsOf(question, vocabulary);
  const light = lightWordsOf(question, vocabulary);
  const { rows } = await db.query<
    { charged: number; found: string[]; kind: RetrievedKind | null; row_id: string | null } & Omit<RetrievedHit, "kind">
  >({
    // Named, so that each connection parses and plans the statement once.
    name: sql === DEFAULT_SQL ? "atrium_retrieve" : undefined,
    text: sql,
    values: statementValues({
      knowledgebaseIds: request.knowledgebaseIds,
      organizationId,
      question,
      limit: request.limit,
      pages: kinds.pages,
      sources: kinds.sources,
      onePerSource: request.onePerSource ?? false,
      textChars: request.textChars ?? 4000,
      headline: HEADLINE,
      credits,
      synonymWords: words,
      synonyms,
      synonymWeight: vocabulary.weight,
      onlyAbsent: vocabulary.onlyAbsent,
      lightWords: light.words,
      lightWeights: light.weights,
    }),
  });
  return {
    charged: credits === 0 || rows[0]?.charged === 1,
    hits: rows.flatMap(({ charged: _charged, found: _found, row_id: rowId, kind, ...hit }) =>
      kind === null || rowId === null ? [] : [{ ...hit, kind, rowId, score: Number(hit.score) }],
    ),
    found: new Set(rows[0]?.found ?? []),
  };
}
