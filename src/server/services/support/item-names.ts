// What the organization calls its agents, flows and apps now: read by executions, conversations
// and usage, none of which needs the others for it.
import type { Db } from "@/server/db";

/** Names of agents, flows and apps by id, from their drafts (what the organization calls them now). */
export async function builderItemNames(
  db: Pick<Db, "builderItem">,
  organizationId: string,
  ids: string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.builderItem.findMany({
    where: { organizationId, id: { in: [...new Set(ids)] } },
    select: { id: true, draft: true },
  });
  return new Map(rows.map((row) => [row.id, String((row.draft as { name?: unknown } | null)?.name ?? "")]));
}
