// Keyset pagination shared by every list: items ordered by creation time, then id; the cursor
// names the last item handed out, so page 100 costs what page 1 does (no OFFSET).
import { AppError } from "@/server/errors";

export interface CursorPosition {
  createdAt: Date;
  id: string;
}

export function encodeCursor(row: CursorPosition): string {
  return Buffer.from(JSON.stringify([row.createdAt.toISOString(), row.id])).toString("base64url");
}

export function decodeCursor(cursor: string): CursorPosition {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string];
    const date = new Date(createdAt);
    if (typeof id !== "string" || !/^[0-9a-f-]{36}$/i.test(id) || Number.isNaN(date.getTime()))
      throw new Error("bad cursor");
    return { createdAt: date, id };
  } catch {
    throw new AppError("invalid_request", "Invalid request: cursor is not a cursor this list handed out.", {
      problems: [{ path: "cursor", message: "Unknown or malformed cursor" }],
    });
  }
}

/**
 * The Prisma `where` for rows after the cursor, in (time, id) order: by default (createdAt, id),
 * or other columns of the same kind (a group's members: addedAt, endUserId). The `gte` bound is
 * what an index on (…, time, id) seeks to (an OR of the two cases alone is a filter over every
 * row before the cursor), and the tie is excluded with NOT so that the caller's own OR or AND is
 * not overwritten when spread beside it. The cursor owns the time column's key.
 */
export function afterCursor<Time extends string = "createdAt", Id extends string = "id">(
  cursor: string | undefined,
  columns: { time: Time; id: Id } = { time: "createdAt", id: "id" } as { time: Time; id: Id },
) {
  if (!cursor) return {};
  const { createdAt, id } = decodeCursor(cursor);
  return {
    [columns.time]: { gte: createdAt },
    NOT: { [columns.time]: createdAt, [columns.id]: { lte: id } },
  } as Record<Time, { gte: Date }> & { NOT: Record<Time, Date> & Record<Id, { lte: string }> };
}

export const CURSOR_ORDER = [{ createdAt: "asc" as const }, { id: "asc" as const }];

/** Given `limit + 1` rows fetched in CURSOR_ORDER, the page and the cursor of the next one. */
export function toPage<T extends CursorPosition>(rows: T[], limit: number): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}

/** The Prisma `where` for rows before the cursor, for lists shown newest first (as afterCursor). */
export function beforeCursor(cursor: string | undefined) {
  if (!cursor) return {};
  const { createdAt, id } = decodeCursor(cursor);
  return { createdAt: { lte: createdAt }, NOT: { createdAt, id: { gte: id } } };
}

export const NEWEST_FIRST = [{ createdAt: "desc" as const }, { id: "desc" as const }];

type PageQuery = { limit: number; cursor?: string };
type Page<T> = { items: T[]; nextCursor: string | null };

/**
 * One page of a list in CURSOR_ORDER: `find` runs the findMany with `after` spread into its
 * `where` and `window` (order and `limit + 1`) beside it; its rows become the page.
 */
export async function oldestFirst<T extends CursorPosition>(
  input: PageQuery,
  find: (after: ReturnType<typeof afterCursor>, window: { orderBy: typeof CURSOR_ORDER; take: number }) => Promise<T[]>,
): Promise<Page<T>> {
  return toPage(await find(afterCursor(input.cursor), { orderBy: CURSOR_ORDER, take: input.limit + 1 }), input.limit);
}

/** As oldestFirst, for lists shown newest first. */
export async function newestFirst<T extends CursorPosition>(
  input: PageQuery,
  find: (
    before: ReturnType<typeof beforeCursor>,
    window: { orderBy: typeof NEWEST_FIRST; take: number },
  ) => Promise<T[]>,
): Promise<Page<T>> {
  return toPage(await find(beforeCursor(input.cursor), { orderBy: NEWEST_FIRST, take: input.limit + 1 }), input.limit);
}
