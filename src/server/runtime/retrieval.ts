// What an agent or a knowledge_search node knows for a message: the best-matching pages and
// source chunks of its knowledgebases, by PostgreSQL full-text search (any of the message's
// words, ranked). Only knowledgebases of the run's organization count, never an end user's
// private notebook: the organization is part of the SQL, not a check made earlier.
import { isUuid } from "@/schemas/common";
import type { Db } from "@/server/db";
import { RUN_LIMITS } from "./limits";
import type { Passage } from "./models";

const RETRIEVE_SQL = `
  with kbs as (
    select id from knowledgebases where id = any($1::uuid[]) and organization_id = $2::uuid and end_user_id is null
  ),
  q as (select replace(plainto_tsquery('english', $3)::text, '&', '|')::tsquery as query),
  hits as (
    (select p.title, left(p.markdown, $5) as text, ts_rank(p.tsv, q.query) as score
     from pages p join kbs on kbs.id = p.knowledgebase_id, q
     where p.organization_id = $2::uuid and p.tsv @@ q.query
     order by score desc limit $4)
    union all
    (select s.name as title, left(c.text, $5) as text, ts_rank(c.tsv, q.query) as score
     from source_chunks c join kbs on kbs.id = c.knowledgebase_id join sources s on s.id = c.source_id, q
     where s.organization_id = $2::uuid and s.status = 'ready' and s.searchable and not s.disabled and c.tsv @@ q.query
     order by score desc limit $4)
  )
  select (select coalesce(array_agg(id::text), '{}') from kbs) as found, top.title, top.text
  from (select 1) as one left join (select title, text from hits order by score desc limit $4) as top on true`;


export interface Retrieved {
  passages: Passage[];
  /** Knowledgebase ids asked for that are not the organization's (deleted, moved, or never its own). */
  missing: string[];
}

export async function retrievePassages(db: Db, organizationId: string, knowledgebaseIds: string[], query: string, limit = 5): Promise<Retrieved> {
  if (knowledgebaseIds.length === 0) return { passages: [], missing: [] };
  const { rows } = await db.pool.query<{ found: string[]; title: string | null; text: string | null }>({
    name: "atrium_retrieve",
    text: RETRIEVE_SQL,
    values: [knowledgebaseIds.filter((id) => isUuid(id)), organizationId, query, query.trim() === "" ? 0 : limit, RUN_LIMITS.passageChars],
  });
  const found = new Set(rows[0]?.found ?? []);
  return {
    passages: rows.filter((row) => row.title !== null).map((row) => ({ title: row.title!, text: row.text ?? "" })),
    missing: knowledgebaseIds.filter((id) => !found.has(id)),
  };
}

/** The trace's note for references that found nothing. */
export function missingNote(missing: string[]): string | undefined {
  return missing.length ? `knowledgebase ${missing.join(", ")} not found in this organization; nothing was searched there` : undefined;
}
