// Knowledgebase search (POST /knowledgebases/{id}/search, the MCP search tool): the shared
// retrieval function over pages and indexed source chunks, one result per document. Searching
// sources costs 1 credit, charged in the same statement as the search: if the document index
// cannot answer, nothing is charged.
import type { SearchInput, SearchOutput } from "@/schemas/knowledge/knowledgebase";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError, isUnstorableTextError, toAppError } from "@/server/errors";
import { metrics } from "@/server/observability/metrics";
import { logger } from "@/server/observability/log";
import { knowledgebaseNotFound } from "../support/knowledge-access";
import { recordUsage } from "../runs/usage-records";
import type { RetrievalRequest } from "@/server/runtime/retrieval/hits";
import { retrievalSql } from "@/server/runtime/retrieval/lexical-sql";
import { retrieveCharging } from "@/server/runtime/retrieval/retrieve";

export const SOURCE_SEARCH_CREDITS = 1;

/** Test hook: makes the document index fail, as an outage would. */
export const searchFaults = { documentIndexDown: false };

/** The injected outage: the chunk index is missing, so the statement fails (and its charge with it). */
const SEARCH_SQL_DOWN = retrievalSql("source_chunks_unavailable");

export const searchKnowledgebase = guarded(
  { scope: "knowledge:read" },
  async function searchKnowledgebase(db: Db, actor: Actor, input: SearchInput): Promise<SearchOutput> {
    const kinds = new Set(input.kinds ?? ["pages", "sources"]);
    const request: RetrievalRequest = {
      knowledgebaseIds: [input.knowledgebaseId],
      query: input.query,
      limit: input.limit,
      kinds: { pages: kinds.has("pages"), sources: kinds.has("sources") },
      onePerSource: true,
    };
    // Pages are free to search. The statement charges only a knowledgebase of the organization,
    // and says whether it is one: no lookup before it.
    const credits = kinds.has("sources") ? SOURCE_SEARCH_CREDITS : 0;
    const result =
      credits > 0
        ? await searchCharging(db, actor, request)
        : await retrieveCharging(db, actor.organizationId, request, 0);
    if (!result.found.has(input.knowledgebaseId)) throw knowledgebaseNotFound();
    if (!result.charged) {
      throw new AppError(
        "insufficient_credits",
        `Searching documents costs ${SOURCE_SEARCH_CREDITS} credit and the organization's balance cannot cover it; nothing was charged. Search pages only with kinds: ["pages"], which is free.`,
      );
    }
    if (credits > 0) {
      metrics().creditsSpent.inc(credits);
      await recordUsage(db, { organizationId: actor.organizationId, metrics: { searches: 1, credits } });
    }
    return {
      results: result.hits.map((hit) => ({
        kind: hit.kind,
        id: hit.id,
        title: hit.title,
        heading: hit.heading,
        snippet: hit.snippet,
        score: Number(hit.score.toFixed(6)),
      })),
    };
  },
);

/** Takes the credit and searches in one statement: a failed search takes nothing. */
async function searchCharging(db: Db, actor: Actor, request: RetrievalRequest) {
  try {
    return await retrieveCharging(db, actor.organizationId, request, SOURCE_SEARCH_CREDITS, {
      sql: searchFaults.documentIndexDown ? SEARCH_SQL_DOWN : undefined,
    });
  } catch (error) {
    // A query the database refuses as text is the client's to fix: retrying cannot help.
    if (isUnstorableTextError(error)) throw toAppError(error);
    logger().error({ err: error }, "Document search failed");
    throw new AppError(
      "search_unavailable",
      'Document search could not answer just now; nothing was charged. Retry, or search pages only with kinds: ["pages"].',
    );
  }
}
