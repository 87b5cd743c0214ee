// The ranking by meaning (hybrid search): the question embedded by the organization's embedding
// model, the nearest passages by cosine, and their fusion with the lexical ranking.
import type { Db } from "@/server/db";
import { EMBEDDING_DEFAULTS, unitLength } from "@/server/jobs/embedding";
import { logger } from "@/server/observability/log";
import type { EmbeddingModel } from "@/server/runtime/model-types";
import { embeddingModelFor, type ProviderRow } from "@/server/runtime/models";
import type { RankedHit, RetrievalPath, RetrievalRequest, RetrievedHit } from "./hits";
import type { Queryable } from "./lexical";
import { RESCORE } from "./lexical-sql";

/** Reciprocal rank fusion's constant: a passage's share is 1 / (k + rank) in each ranking. */
export const RRF_K = 60;
/** Passages taken from each ranking before fusion. */
export const FUSED_DEPTH = RESCORE;
/** Nearest vectors whose passages are read, before the rules on documents and one per document. */
const VECTOR_CANDIDATES = 5 * FUSED_DEPTH;
/**
 * Below this cosine a passage is not near the question: vector search would otherwise rank every
 * passage, and unrelated ones would fill the results of a question nothing answers.
 */
export const MIN_COSINE = 0.2;
/** Time allowed to embed the question; past it, or on any failure, search is lexical. */
export const QUESTION_EMBED_TIMEOUT_MS = 3000;

/**
 * The organization's embedding model and the knowledgebases whose vectors it may rank (searchMode
 * "auto" and holding vectors made by it); else why the search is lexical.
 */
export async function embeddingModelWithVectors(
  db: Db,
  organizationId: string,
  knowledgebaseIds: string[],
  providers?: ProviderRow[],
): Promise<{ model: EmbeddingModel | null; embedded: string[]; path: RetrievalPath }> {
  const model = await embeddingModelFor(db, organizationId, providers);
  if (!model) return { model: null, embedded: [], path: { method: "lexical", reason: "no_embedding_model" } };
  const { rows } = await db.pool.query<{ id: string; auto: boolean; embedded: boolean }>(
    `select k.id::text, k.search_mode = 'auto' as auto,
       k.search_mode = 'auto' and exists (
         select 1 from embeddings e
         where e.organization_id = $1::uuid and e.knowledgebase_id = k.id and e.model_key = $3 and e.vector is not null
       ) as embedded
     from knowledgebases k where k.id = any($2::uuid[]) and k.organization_id = $1::uuid and k.end_user_id is null`,
    [organizationId, knowledgebaseIds, model.modelKey],
  );
  const embedded = rows.filter((row) => row.embedded).map((row) => row.id);
  if (embedded.length > 0)
    return { model, embedded, path: { method: "hybrid", reason: "fused", model: model.modelKey } };
  if (rows.length > 0 && !rows.some((row) => row.auto))
    return { model: null, embedded, path: { method: "lexical", reason: "lexical_by_setting" } };
  return { model: null, embedded, path: { method: "lexical", reason: "no_vectors", model: model.modelKey } };
}

export async function embedQuestion(model: EmbeddingModel, query: string): Promise<number[] | null> {
  try {
    // No retry: a searcher waits for the answer, and the lexical ranking stands in at once.
    const [vector] = await model.embed([query.slice(0, EMBEDDING_DEFAULTS.maxChars)], {
      signal: AbortSignal.timeout(QUESTION_EMBED_TIMEOUT_MS),
      retries: 0,
    });
    return vector ? unitLength(vector) : null;
  } catch (error) {
    logger().warn({ err: error, modelKey: model.modelKey }, "Embedding the question failed; searching lexically");
    return null;
  }
}

/**
 * The passages nearest the question by cosine (vectors are stored at unit length: a dot product),
 * over the organization's vectors of these knowledgebases made by the current model, with the
 * lexical ranking's rules: no end user's notebook, only ready, searchable, enabled documents.
 */
export async function rankByVector(
  db: Queryable,
  organizationId: string,
  request: RetrievalRequest,
  modelKey: string,
  question: number[],
): Promise<RankedHit[]> {
  const kinds = request.kinds ?? { pages: true, sources: true };
  const { rows } = await db.query<Omit<RankedHit, "snippet">>({
    name: "atrium_retrieve_vector",
    text: `
      with nearest as (
        select e.page_id, e.chunk_id, e.knowledgebase_id as kb,
          (select sum(a * b) from unnest(e.vector, $3::real[]) as t(a, b)) as cosine
        from embeddings e join knowledgebases k on k.id = e.knowledgebase_id and k.organization_id = $1::uuid and k.end_user_id is null
        where e.organization_id = $1::uuid and e.knowledgebase_id = any($2::uuid[]) and e.model_key = $4 and e.vector is not null
          and ((e.page_id is not null and $5::boolean) or (e.chunk_id is not null and $6::boolean))
        -- Text is read for the nearest few only (several chunks of one document may come first).
        order by cosine desc limit ${VECTOR_CANDIDATES}
      ),
      passages as (
        select 'page' as kind, p.id as "rowId", p.id::text as id, n.kb, p.title, '' as heading, p.markdown as text, n.cosine
        from nearest n join pages p on p.id = n.page_id and p.organization_id = $1::uuid
        union all
        select 'source', c.id, s.id::text, n.kb, s.name, c.heading, c.text, n.cosine
        from nearest n join source_chunks c on c.id = n.chunk_id join sources s on s.id = c.source_id
        where s.organization_id = $1::uuid and s.status = 'ready' and s.searchable and not s.disabled
      )
      select kind, "rowId"::text, id, kb::text as "knowledgebaseId", title, heading, left(text, $8::int) as text, cosine::float8 as score
      from (select *, row_number() over (partition by kind, id order by cosine desc, "rowId") as nth from passages) ranked
      where (not $7::boolean or nth = 1) and cosine >= ${MIN_COSINE}
      order by cosine desc, "rowId"
      limit ${FUSED_DEPTH}`,
    values: [
      organizationId,
      request.knowledgebaseIds,
      `{${question.join(",")}}`,
      modelKey,
      kinds.pages,
      kinds.sources,
      request.onePerSource ?? false,
      request.textChars ?? 4000,
    ],
  });
  return rows.map((row) => ({ ...row, score: Number(row.score), snippet: plainSnippet(row.text) }));
}

/**
 * A passage found by meaning alone has no query terms to highlight: its opening words, without
 * its own "**" (which would read as marks, as atrium_headline drops them too).
 */
function plainSnippet(text: string): string {
  const words = text.replaceAll("**", "").split(/\s+/).filter(Boolean);
  return words.slice(0, 30).join(" ") + (words.length > 30 ? " …" : "");
}

/**
 * Reciprocal rank fusion: each passage (each document, when a document appears once) scores the
 * sum of 1 / (RRF_K + rank) over the rankings that found it; the lexical hit, with its highlighted
 * snippet, stands for it.
 */
export function fuse(rankings: RankedHit[][], limit: number, onePerSource: boolean): RetrievedHit[] {
  const fused = new Map<string, { hit: RankedHit; score: number }>();
  for (const ranking of rankings) {
    ranking.forEach((hit, index) => {
      const key = `${hit.kind}:${onePerSource ? hit.id : hit.rowId}`;
      const share = 1 / (RRF_K + index + 1);
      const seen = fused.get(key);
      if (seen) seen.score += share;
      else fused.set(key, { hit, score: share });
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || (a.hit.rowId < b.hit.rowId ? -1 : 1))
    .slice(0, limit)
    .map(({ hit: { rowId: _rowId, ...hit }, score }) => ({ ...hit, score }));
}
