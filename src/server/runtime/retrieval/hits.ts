// What a retrieval is asked and what it returns: the request, the passages found, which ranking
// answered and why, and a passage's title as an agent reads it.
import { HEADING_SEPARATOR } from "@/server/jobs/chunking";
import { readableTitle } from "@/server/runtime/citations";
import type { VocabularyOptions } from "./vocabulary";

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
  /** False: no snippet is made, and each hit's is "" (a run reads the passage's text, never its snippet). */
  snippets?: boolean;
  /** How the question's words are widened with synonyms; VOCABULARY_DEFAULTS unless the evaluation tries others. */
  vocabulary?: VocabularyOptions;
}

/**
 * Which ranking answered and why (the console's retrieval test shows it): lexical when there is
 * nothing to search, no embedding model, every knowledgebase is set to searchMode "lexical", no
 * vectors of the model in them yet, or the question could not be embedded in time; hybrid when
 * both rankings were fused.
 */
export type RankingPath =
  | { method: "lexical"; reason: "nothing_to_search" | "no_embedding_model" | "lexical_by_setting" }
  | { method: "lexical"; reason: "no_vectors" | "question_not_embedded"; model: string }
  | { method: "hybrid"; reason: "fused"; model: string };

export interface Retrieval {
  /** False when the balance could not cover the credits: then nothing was searched. */
  charged: boolean;
  hits: RetrievedHit[];
  /** Which of the (well-formed) knowledgebase ids asked for are the organization's own. */
  found: Set<string>;
  path: RetrievalPath;
}

export type RankedHit = RetrievedHit & { rowId: string };

/**
 * Which ranking answered and why, and, when a searched knowledgebase has `rerank` on, what became
 * of reranking (absent otherwise).
 */
export type RetrievalPath = RankingPath & { rerank?: RerankOutcome };

/**
 * Reranking by the organization's chat model: done (`ms`: the call's duration); skipped before any
 * call (not every searched knowledgebase has it on, or one is set to searchMode lexical; no chat
 * model; fewer than two results); or failed, in which case the ranking stands as it was.
 */
export type RerankOutcome =
  | { status: "reranked"; model: string; ms: number }
  | {
      status: "skipped";
      reason: "not_every_knowledgebase" | "lexical_by_setting" | "no_chat_model" | "nothing_to_rerank";
    }
  | { status: "failed"; reason: "timed_out" | "provider_error" | "not_a_ranking"; model: string; ms: number };

/** How many passages an agent or a knowledge_search node receives for a message. */
export const AGENT_PASSAGES = 5;

/** A passage's title as an agent reads it: its document as a person knows it, then the headings above it. */
export function passageTitle(hit: Pick<RetrievedHit, "kind" | "title" | "heading">): string {
  const title = hit.kind === "source" ? readableTitle(hit.title) : hit.title;
  return hit.heading ? `${title}${HEADING_SEPARATOR}${hit.heading}` : title;
}
