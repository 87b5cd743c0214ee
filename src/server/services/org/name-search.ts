// The lists' search by name (`q`): a case-insensitive part of the name, in which % and _ are the
// characters typed and not LIKE's wildcards (Prisma's `contains` passes them through as wildcards);
// and the command palette's search by name across the kinds of items (findByName).
import type { FindByNameInput, FindByNameOutput, FoundKind } from "@/schemas/find";
import { MAX_FOUND_PER_KIND } from "@/schemas/find";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";

/** `text` with LIKE's wildcards and its escape character escaped (PostgreSQL's default escape is `\`). */
export function likeEscaped(text: string): string {
  return text.replace(/[\\%_]/g, "\\$&");
}

/** The Prisma filter of rows whose `name` contains `q`; none when `q` is blank. */
export function nameContains(q: string | undefined): { name?: { contains: string; mode: "insensitive" } } {
  const text = q?.trim();
  return text ? { name: { contains: likeEscaped(text), mode: "insensitive" } } : {};
}

/**
 * The command palette: end users (email or full name), apps, agents, flows (their draft's name),
 * knowledgebases and pages of the actor's organization whose name contains `q`, at most
 * MAX_FOUND_PER_KIND of each, in one statement scoped by organization in every branch. A LIKE
 * with escaped wildcards is a linear scan of each name: no pattern of the user's is compiled.
 */
export const findByName = guarded(
  { may: "read" },
  async function findByName(db: Db, actor: Actor, input: FindByNameInput): Promise<FindByNameOutput> {
    const text = input.q.trim();
    if (!text) return { items: [] };
    const { rows } = await db.pool.query<{
      kind: FoundKind;
      id: string;
      name: string;
      detail: string;
      link_id: string | null;
    }>(
      `(select 'end_user' as kind, u.id, case when u.full_name = '' then u.email else u.full_name end as name, u.email as detail, null::text as link_id
       from end_users u where u.organization_id = $1::uuid and u.deleted_at is null and (u.email ilike $2 or u.full_name ilike $2)
       order by u.email limit $3)
     union all
     (select i.kind::text, i.id, coalesce(i.draft->>'name', ''), '', null from builder_items i
       where i.organization_id = $1::uuid and i.kind = 'app' and i.draft->>'name' ilike $2 order by i.draft->>'name' limit $3)
     union all
     (select i.kind::text, i.id, coalesce(i.draft->>'name', ''), '', null from builder_items i
       where i.organization_id = $1::uuid and i.kind = 'agent' and i.draft->>'name' ilike $2 order by i.draft->>'name' limit $3)
     union all
     (select i.kind::text, i.id, coalesce(i.draft->>'name', ''), '', null from builder_items i
       where i.organization_id = $1::uuid and i.kind = 'flow' and i.draft->>'name' ilike $2 order by i.draft->>'name' limit $3)
     union all
     (select 'knowledgebase', k.id, k.name, k.description, null from knowledgebases k
       where k.organization_id = $1::uuid and k.end_user_id is null and k.name ilike $2 order by k.name limit $3)
     union all
     (select 'page', p.id, p.title, k.name, k.id::text from pages p
       join knowledgebases k on k.id = p.knowledgebase_id and k.organization_id = $1::uuid and k.end_user_id is null
       where p.organization_id = $1::uuid and p.title ilike $2 order by p.title limit $3)`,
      [actor.organizationId, `%${likeEscaped(text)}%`, MAX_FOUND_PER_KIND],
    );
    return {
      items: rows.map((row) => ({
        kind: row.kind,
        id: row.id,
        name: row.name,
        detail: row.detail.slice(0, 200),
        href: foundHref(row),
      })),
    };
  },
);

function foundHref(row: { kind: FoundKind; id: string; link_id: string | null }): string {
  switch (row.kind) {
    case "end_user":
      return `/end-users/${row.id}`;
    case "app":
      return `/apps/${row.id}`;
    case "agent":
      return `/agents/${row.id}`;
    case "flow":
      return `/flows/${row.id}/studio`;
    case "knowledgebase":
      return `/knowledge/${row.id}`;
    case "page":
      return `/knowledge/${row.link_id}?page=${row.id}`;
  }
}
