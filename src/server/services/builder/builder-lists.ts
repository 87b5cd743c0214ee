// Lists of agents, flows and apps: published items or drafts, keyset-paged in one SQL statement.
import { LIST_FIELDS, type BuilderKind } from "@/schemas/builder/builder";
import type { Actor } from "@/server/auth/actor";
import { authorize } from "@/server/auth/authorize";
import { guardedByKind } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { KIND_SPECS, readsKind, writesKind } from "../support/builder-kinds";
import type { Doc } from "../support/builder-kind-shared";
import { likeEscaped } from "../org/name-search";
import { decodeCursor, toPage } from "../support/pagination";
import { staleCursor } from "./builder-shared";

export interface ListInput {
  include?: "drafts";
  limit: number;
  cursor?: string;
  fields?: string[];
  q?: string;
  updatedSince?: string;
}

function pickFields(kind: BuilderKind, drafts: boolean, names: string[] | undefined): readonly string[] {
  const valid = LIST_FIELDS[kind][drafts ? "drafts" : "published"];
  if (names === undefined) return valid;
  const unknown = names.filter((name) => !(valid as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    const message = `${unknown.length ? `unknown field${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}` : "no field named"}; valid fields are ${valid.join(", ")}`;
    throw new AppError("invalid_request", `Invalid request: fields: ${message}.`, {
      problems: [{ path: "fields", message }],
    });
  }
  // Every row keeps its id, so a client can always address what it listed.
  return [...new Set(["id", ...names])];
}

/**
 * Published items (the live version's fields), or with `include: "drafts"` every item (the
 * draft's fields, with `published` and `updatedAt`). Keyset pages by (createdAt, id): one SQL
 * statement straight to the pool with a row comparison the (organization, kind, created_at, id)
 * index answers as a range, so page 100 costs what page 1 does. Drafts need the kind's write scope.
 */
export const listItems = guardedByKind(
  readsKind,
  async function listItems(db: Db, actor: Actor, kind: BuilderKind, input: ListInput) {
    const drafts = input.include === "drafts";
    // Unpublished work is for those who may write the kind; viewers in the console see it too.
    if (drafts) authorize(actor, { ...writesKind(kind), may: "read" });
    const fields = pickFields(kind, drafts, input.fields);
    const position = input.cursor ? decodeCursor(input.cursor) : null;
    const params: unknown[] = [actor.organizationId, kind];
    const conditions = ["i.organization_id = $1", 'i.kind = $2::"BuilderKind"'];
    if (!drafts) conditions.push("i.production_version_id IS NOT NULL");
    let cursorCheck = "1";
    if (position) {
      params.push(position.createdAt, position.id);
      const [at, id] = [`$${params.length - 1}`, `$${params.length}::uuid`];
      conditions.push(`(i.created_at, i.id) > (${at}, ${id})`);
      // The item the cursor names must still be there: else the cursor is stale.
      cursorCheck = `(SELECT count(*) FROM builder_items c WHERE c.id = ${id} AND c.organization_id = $1 AND c.kind = $2::"BuilderKind" AND c.created_at = ${at})`;
    }
    // The document listed: the draft, or the live version's.
    const document = drafts
      ? "i.draft"
      : "(SELECT v.document FROM builder_versions v WHERE v.id = i.production_version_id)";
    const name = input.q?.trim();
    if (name) {
      params.push(`%${likeEscaped(name)}%`);
      conditions.push(`${document}->>'name' ILIKE $${params.length}`);
    }
    if (input.updatedSince) {
      params.push(new Date(input.updatedSince));
      conditions.push(`${drafts ? "i.updated_at" : "i.live_at"} >= $${params.length}`);
    }
    params.push(input.limit + 1);
    // One round trip; the document is fetched per row of the page only (a scalar subquery under
    // the LIMIT), so a page costs the same wherever it is in the list. A name search reads it for
    // every item of the kind it passes over.
    const sql = `SELECT ${cursorCheck}::int AS cursor_found, page.* FROM (VALUES (1)) AS one (x) LEFT JOIN LATERAL (
      SELECT i.id, i.created_at, i.updated_at, i.production_version_id, ${document} AS document FROM builder_items i
      WHERE ${conditions.join(" AND ")} ORDER BY i.created_at, i.id LIMIT $${params.length}
    ) AS page ON true`;
    const result = await db.pool.query<{
      cursor_found: number;
      id: string | null;
      created_at: Date;
      updated_at: Date;
      production_version_id: string | null;
      document: Doc;
    }>(sql, params);
    if (position && result.rows[0]?.cursor_found === 0) throw staleCursor();
    const rows = result.rows
      .filter((row) => row.id !== null)
      .map((row) => ({ ...row, id: row.id!, createdAt: row.created_at }));
    const page = toPage(rows, input.limit);
    const spec = KIND_SPECS[kind];
    const items = page.items.map((row) => {
      const all: Doc = {
        id: row.id,
        ...spec.listRow(row.document ?? {}),
        published: row.production_version_id !== null,
        updatedAt: row.updated_at.toISOString(),
      };
      return Object.fromEntries(fields.map((field) => [field, all[field]]));
    });
    return { items, nextCursor: page.nextCursor };
  },
);
