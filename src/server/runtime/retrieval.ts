// What an agent knows for a message: the best-matching pages and source chunks of its
// knowledgebases, by PostgreSQL full-text search (any of the message's words, ranked).
import type { Db } from "@/server/db";
import type { Passage } from "./models";

const RETRIEVE_SQL = `
  with q as (select replace(plainto_tsquery('english', $2)::text, '&', '|')::tsquery as query)
  select title, text from (
    (select p.title, p.markdown as text, ts_rank(p.tsv, q.query) as score
     from pages p, q
     where p.knowledgebase_id = any($1::uuid[]) and p.tsv @@ q.query
     order by score desc limit $3)
    union all
    (select s.name as title, c.text, ts_rank(c.tsv, q.query) as score
     from source_chunks c join sources s on s.id = c.source_id, q
     where c.knowledgebase_id = any($1::uuid[]) and c.tsv @@ q.query and s.status = 'ready' and s.searchable and not s.disabled
     order by score desc limit $3)
  ) hits
  order by score desc limit $3`;

export async function retrievePassages(db: Db, knowledgebaseIds: string[], query: string, limit = 5): Promise<Passage[]> {
  if (knowledgebaseIds.length === 0 || query.trim() === "") return [];
  const { rows } = await db.pool.query<Passage>({ name: "atrium_retrieve", text: RETRIEVE_SQL, values: [knowledgebaseIds, query, limit] });
  return rows;
}
