// The ranking statement's parameters (lexical-sql.ts). One list gives each its number: the
// statement's fragments name them (`${param.question}`) and rankLexically passes the values in
// the same order, so a fragment never counts placeholders.
export const STATEMENT_PARAMETERS = [
  /** uuid[]: the knowledgebases asked for (the statement keeps the organization's own). */
  "knowledgebaseIds",
  "organizationId",
  /** The question, cut to LEXICAL_QUESTION_CHARS. */
  "question",
  /** Results returned. */
  "limit",
  /** Booleans: search pages, search sources' chunks. */
  "pages",
  "sources",
  /** Boolean: a document appears once, with its best passage (the search API). */
  "onePerSource",
  /** Characters of each passage's text returned. */
  "textChars",
  /** atrium_headline's options for the snippet; null for no snippet. */
  "headline",
  /** Credits taken in the same statement (0: none). */
  "credits",
  /** text[] twice: the question's words and, at the same index, a synonym of each (vocabulary.ts). */
  "synonymWords",
  "synonyms",
  /** A synonym's share of its word's weight. */
  "synonymWeight",
  /** Boolean: widen only words the knowledgebase never uses. */
  "onlyAbsent",
  /** text[] and float8[]: the question's light words (intent and everyday words) and each one's share of its weight. */
  "lightWords",
  "lightWeights",
] as const;

export type StatementParameter = (typeof STATEMENT_PARAMETERS)[number];

/** Each parameter's placeholder ("$1", "$2", …) in the statement's text. */
export const param = Object.fromEntries(STATEMENT_PARAMETERS.map((name, index) => [name, `$${index + 1}`])) as Record<
  StatementParameter,
  string
>;

/** The values in the statement's order. */
export function statementValues(values: Record<StatementParameter, unknown>): unknown[] {
  return STATEMENT_PARAMETERS.map((name) => values[name]);
}
