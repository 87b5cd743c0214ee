// The one retrieval function of the search API, runs and the console's retrieval test: the
// lexical ranking (lexical.ts), fused with the ranking by meaning when the organization has an
// embedding model (vector.ts), then reranked when the knowledgebases ask for it (rerank.ts).
import { isUuid } from "@/schemas/common";
import type { Db } from "@/server/db";
import { hasChatModel, type ProviderRow } from "@/server/runtime/models";
import type { Retrieval, RetrievalRequest, RetrievedHit } from "./hits";
import { DEFAULT_SQL, rankLexically } from "./lexical";
import { RERANK_DEPTH, rerankHits, rerankSetting } from "./rerank";
import { embeddingModelWithVectors, embedQuestion, fuse, FUSED_DEPTH, rankByVector } from "./vector";

/** Ranked passages for a query. `sql` is retrievalSql() unless a test injects an outage. */
export async function retrieve(
  db: Db,
  organizationId: string,
  request: RetrievalRequest,
  sql = DEFAULT_SQL,
): Promise<RetrievedHit[]> {
  return (await retrieveCharging(db, organizationId, request, 0, { sql })).hits;
}

export interface RetrievalOptions {
  /** retrievalSql() unless a test injects an outage. */
  sql?: string;
  /** The organization's model providers, when the caller has read them (a run reads them with its app). */
  providers?: ProviderRow[];
}

/** A retrieval whose `found` is null when no ranking statement ran, or its charge did not go through. */
type Ranked = Omit<Retrieval, "found"> & { found: Set<string> | null };

/**
 * Takes `credits` from the organization and retrieves, in one statement: `charged` is false (and
 * nothing was searched) when the balance cannot cover them. With an embedding model and vectors
 * in the knowledgebases, the lexical ranking is fused with the vector ranking (hybrid search).
 */
async function rankCharging(
  db: Db,
  organizationId: string,
  request: RetrievalRequest,
  credits: number,
  { sql = DEFAULT_SQL, providers }: RetrievalOptions = {},
): Promise<Ranked> {
  const ids = request.knowledgebaseIds.filter((id) => isUuid(id));
  // Nothing to search and nothing to charge; a charge always goes through the statement.
  if (credits === 0 && (ids.length === 0 || request.query.trim() === "" || request.limit <= 0))
    return { charged: true, hits: [], found: null, path: { method: "lexical", reason: "nothing_to_search" } };
  const {
    model,
    embedded,
    path: lexicalPath,
  } = ids.length > 0 && request.limit > 0
    ? await embeddingModelWithVectors(db, organizationId, ids, providers)
    : { model: null, embedded: [], path: { method: "lexical", reason: "nothing_to_search" } as const };
  const lexical = await rankLexically(
    db.pool,
    organizationId,
    { ...request, knowledgebaseIds: ids, limit: model ? Math.max(request.limit, FUSED_DEPTH) : request.limit },
    credits,
    sql,
  );
  const found = lexical.charged ? lexical.found : null;
  if (!model || !lexical.charged)
    return { charged: lexical.charged, hits: lexical.hits.slice(0, request.limit), found, path: lexicalPath };
  const question = await embedQuestion(model, request.query);
  if (!question)
    return {
      charged: true,
      hits: lexical.hits.slice(0, request.limit),
      found,
      path: { method: "lexical", reason: "question_not_embedded", model: model.modelKey },
    };
  const semantic = await rankByVector(
    db.pool,
    organizationId,
    { ...request, knowledgebaseIds: embedded },
    model.modelKey,
    question,
  );
  return {
    charged: true,
    hits: fuse([lexical.hits, semantic], request.limit, request.onePerSource ?? false),
    found,
    path: { method: "hybrid", reason: "fused", model: model.modelKey },
  };
}

/**
 * The one retrieval of the search API, runs (agents' knowledge, flows' knowledge_search) and the
 * console's retrieval test: the ranking (rankCharging), then, when every searched knowledgebase
 * has `rerank` on, the best RERANK_DEPTH results reordered by the organization's chat model.
 * `found` comes from the ranking statement; when none ran, or its charge could not go through,
 * from a lookup of its own.
 */
export async function retrieveCharging(
  db: Db,
  organizationId: string,
  request: RetrievalRequest,
  credits: number,
  options: RetrievalOptions = {},
): Promise<Retrieval> {
  const retrieval = await rerankedRetrieval(db, organizationId, request, credits, options);
  return {
    ...retrieval,
    found: retrieval.found ?? (await organizationKnowledgebases(db, organizationId, request.knowledgebaseIds)),
  };
}

/** Which of `knowledgebaseIds` are the organization's own knowledgebases (never an end user's notebook). */
async function organizationKnowledgebases(
  db: Db,
  organizationId: string,
  knowledgebaseIds: string[],
): Promise<Set<string>> {
  const { rows } = await db.pool.query<{ id: string }>({
    name: "atrium_organization_knowledgebases",
    text: "select id from knowledgebases where id = any($1::uuid[]) and organization_id = $2 and end_user_id is null",
    values: [knowledgebaseIds.filter((id) => isUuid(id)), organizationId],
  });
  return new Set(rows.map((row) => row.id));
}

async function rerankedRetrieval(
  db: Db,
  organizationId: string,
  request: RetrievalRequest,
  credits: number,
  options: RetrievalOptions,
): Promise<Ranked> {
  const ids = request.knowledgebaseIds.filter((id) => isUuid(id));
  // A run that read its providers with its app and found no chat model saves a statement: no
  // setting could make it rerank (the console's retrieval test reads them here, and says why).
  const cannotRerank = options.providers !== undefined && !options.providers.some(hasChatModel);
  if (ids.length === 0 || request.limit <= 0 || request.query.trim() === "" || cannotRerank)
    return rankCharging(db, organizationId, request, credits, options);
  const setting = await rerankSetting(db, organizationId, ids, options.providers);
  const ranking = { ...options, providers: setting.providers };
  if (!setting.requested) return rankCharging(db, organizationId, request, credits, ranking);
  const limit = setting.eligible ? Math.max(request.limit, RERANK_DEPTH) : request.limit;
  const ranked = await rankCharging(db, organizationId, { ...request, limit }, credits, ranking);
  if (!ranked.charged) return ranked;
  const { hits, rerank } = await rerankHits(request.query, ranked.hits, setting);
  return { ...ranked, hits: hits.slice(0, request.limit), path: { ...ranked.path, rerank } };
}
