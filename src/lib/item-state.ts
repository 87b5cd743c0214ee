// How the console tells two agents, flows or apps of one name apart: each one's state (draft or
// published) and last edit, in pickers and beside a name being typed that another item has.
import { agoWords } from "./change-words";

export interface ItemRow {
  id: string;
  name: string;
  published?: boolean;
  updatedAt?: string;
}

/** "published · edited 3 minutes ago", "draft · edited yesterday". */
export function itemStateWords(row: Pick<ItemRow, "published" | "updatedAt">, now: Date = new Date()): string {
  const state = row.published ? "published" : "draft";
  return row.updatedAt ? `${state} · edited ${agoWords(row.updatedAt, now)}` : state;
}

/** Names compared as a person reads them: case and surrounding spaces aside. */
const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Said under a name field when another item of the kind already has that name (`self`: the item
 * being renamed). The name is still accepted; only people need to tell the two apart.
 */
export function duplicateNameWarning(
  kind: string,
  name: string,
  rows: ItemRow[],
  self?: string,
  now: Date = new Date(),
): string | null {
  if (!name.trim()) return null;
  const others = rows.filter((row) => row.id !== self && sameName(row.name, name));
  if (others.length === 0) return null;
  const first = others[0]!;
  const which =
    others.length === 1
      ? `Another ${kind} is already named "${first.name.trim()}" (${itemStateWords(first, now)})`
      : `${others.length} other ${kind}s are already named "${first.name.trim()}"`;
  return `${which}. You can keep the name; pickers show each one's state and last edit to tell them apart.`;
}
