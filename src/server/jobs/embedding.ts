// Background embedding for hybrid search. For each organization with an embedding model, pages
// and document chunks whose vector is missing, or was made from other content or by another
// model, are claimed in bounded batches (a lease in the embeddings row, so two workers do not
// embed the same rows), embedded in one call, and stored at unit length. A failed call leaves
// the rows waiting with a backoff, at most EMBEDDING_DEFAULTS.maxAttempts attempts per content
// and model; a change of either starts again. Search meanwhile stays lexical for rows without
// a vector. Stale vectors do not outlive their reason: a page's goes when its content changes (a
// trigger, migration 20261123141000_stale_embeddings), a chunk's with the chunk, and an
// organization's vectors of another model when its embedding model changes.
import type { Db } from "@/server/db";
import { logger } from "@/server/observability/log";
import { embeddingModelFor, embeddingModelKey } from "@/server/runtime/models";
import type { EmbeddingModel } from "@/server/runtime/model-types";

export const EMBEDDING_DEFAULTS = {
  /** Rows embedded per call to the model. */
  batch: 32,
  maxAttempts: 3,
  leaseMs: 60_000,
  callTimeoutMs: 30_000,
  /** Characters of a row's text sent to the model. */
  maxChars: 8000,
};

export type EmbeddingOptions = Partial<typeof EMBEDDING_DEFAULTS>;

interface Claimed {
  id: string;
  text: string;
  hash: string;
  attempts: number;
}

/** Scales a vector to unit length, so a dot product is the cosine. */
export function unitLength(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  return norm > 0 ? vector.map((x) => x / norm) : vector;
}

/**
 * Claims up to `batch` rows of the organization to embed with `modelKey`. A row is due when it has
 * no embedding, when its content or model changed (attempts start again), or when a failed
 * attempt's backoff has passed and attempts are left; never while another worker's lease holds.
 */
async function claim(
  db: Db,
  organizationId: string,
  modelKey: string,
  o: typeof EMBEDDING_DEFAULTS,
): Promise<Claimed[]> {
  const { rows } = await db.pool.query<Claimed>(
    `with due as (
       select 'page' as kind, p.id as row_id, p.knowledgebase_id as kb, left(p.title || E'\\n\\n' || p.markdown, $4::int) as text
       from pages p left join embeddings e on e.page_id = p.id
       where p.organization_id = $1::uuid and not p.is_folder
         and (e.id is null or ((e.lease_until is null or e.lease_until < now()) and (
           e.content_hash <> md5(left(p.title || E'\\n\\n' || p.markdown, $4::int)) or e.model_key <> $2
           or (e.vector is null and e.attempts < $5::int and e.run_after <= now()))))
       union all
       select 'chunk', c.id, c.knowledgebase_id, left(case when c.heading = '' then c.text else c.heading || E'\\n\\n' || c.text end, $4::int)
       from source_chunks c join sources s on s.id = c.source_id left join embeddings e on e.chunk_id = c.id
       where s.organization_id = $1::uuid
         and (e.id is null or ((e.lease_until is null or e.lease_until < now()) and (
           e.content_hash <> md5(left(case when c.heading = '' then c.text else c.heading || E'\\n\\n' || c.text end, $4::int)) or e.model_key <> $2
           or (e.vector is null and e.attempts < $5::int and e.run_after <= now()))))
       limit $3::int
     ),
     claimed as (
       insert into embeddings as e (id, organization_id, knowledgebase_id, page_id, chunk_id, content_hash, model_key, attempts, lease_until)
       select gen_random_uuid(), $1::uuid, d.kb, case when d.kind = 'page' then d.row_id end, case when d.kind = 'chunk' then d.row_id end,
         md5(d.text), $2, 1, now() + ($6::int * interval '1 millisecond')
       from due d
       on conflict (coalesce(page_id, chunk_id)) do update set
         attempts = case when e.content_hash = excluded.content_hash and e.model_key = excluded.model_key then e.attempts + 1 else 1 end,
         vector = case when e.content_hash = excluded.content_hash and e.model_key = excluded.model_key then e.vector end,
         content_hash = excluded.content_hash, model_key = excluded.model_key, lease_until = excluded.lease_until, updated_at = now()
       where e.lease_until is null or e.lease_until < now()
       returning e.id, e.content_hash as hash, e.attempts
     )
     select c.id, d.text, c.hash, c.attempts from claimed c join due d on md5(d.text) = c.hash`,
    [organizationId, modelKey, o.batch, o.maxChars, o.maxAttempts, o.leaseMs],
  );
  // Two rows with the same text join twice; keep one line per claimed row.
  return [...new Map(rows.map((row) => [row.id, row])).values()];
}

async function embedClaimed(
  db: Db,
  model: EmbeddingModel,
  rows: Claimed[],
  o: typeof EMBEDDING_DEFAULTS,
): Promise<void> {
  let vectors: number[][];
  try {
    // No retry inside the call: a failed batch waits for its backoff here and is claimed again.
    vectors = await model.embed(
      rows.map((row) => row.text),
      { signal: AbortSignal.timeout(o.callTimeoutMs), retries: 0 },
    );
    if (vectors.length !== rows.length)
      throw new Error(`the model answered ${vectors.length} vectors for ${rows.length} texts`);
  } catch (error) {
    const reason = error instanceof Error ? error.message.slice(0, 300) : "the embedding call failed";
    logger().warn({ err: error, modelKey: model.modelKey }, "Embedding call failed");
    await db.pool.query(
      `update embeddings set lease_until = null, last_error = $2, run_after = now() + (1000 * power(2, attempts) * interval '1 millisecond')
       where id = any($1::uuid[])`,
      [rows.map((row) => row.id), reason],
    );
    return;
  }
  await db.pool.query(
    `update embeddings e set vector = v.vector::real[], lease_until = null, last_error = null, updated_at = now()
     from (select unnest($1::uuid[]) as id, unnest($2::text[]) as hash, unnest($3::text[]) as vector) v
     where e.id = v.id and e.content_hash = v.hash and e.model_key = $4`,
    [
      rows.map((row) => row.id),
      rows.map((row) => row.hash),
      vectors.map((vector) => `{${unitLength(vector).join(",")}}`),
      model.modelKey,
    ],
  );
}

/**
 * Removes the organization's vectors that its current embedding model did not make (all of them
 * when it has none): search never uses them, and the worker embeds afresh with the new model.
 */
export async function dropStaleEmbeddings(db: Db, organizationId: string): Promise<void> {
  const modelKey = await embeddingModelKey(db, organizationId);
  await db.pool.query(
    `delete from embeddings where organization_id = $1::uuid and model_key is distinct from $2::text`,
    [organizationId, modelKey],
  );
}

/** One round over the organizations with an embedding model; returns how many rows were claimed. */
export async function runEmbeddingOnce(db: Db, options: EmbeddingOptions = {}): Promise<number> {
  const o = { ...EMBEDDING_DEFAULTS, ...options };
  const organizations = await db.modelProvider.findMany({
    distinct: ["organizationId"],
    select: { organizationId: true },
  });
  let claimed = 0;
  for (const { organizationId } of organizations) {
    const model = await embeddingModelFor(db, organizationId);
    if (!model) continue;
    const rows = await claim(db, organizationId, model.modelKey, o);
    claimed += rows.length;
    if (rows.length > 0) await embedClaimed(db, model, rows, o);
  }
  return claimed;
}

/** Embeds until nothing is due (tests, the evaluation). */
export async function drainEmbeddings(db: Db, options: EmbeddingOptions = {}, rounds = 1000): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    if ((await runEmbeddingOnce(db, options)) === 0) return;
  }
  throw new Error("Embedding did not drain");
}
