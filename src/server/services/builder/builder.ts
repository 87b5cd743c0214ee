// Agents, flows and apps, once for all three kinds: a draft document edited freely (only the
// fields passed change; compare-and-set against `updatedAt`), immutable numbered versions
// published from it under a row lock, the live version (`productionVersionId`) and rollback,
// and keyset-paged lists. What differs per kind lives in support/builder-kinds.ts.
import { randomUUID } from "node:crypto";
import { LIST_FIELDS, type BuilderKind, type LastChange } from "@/schemas/builder/builder";
import { actorLabel, channelOf, type Actor } from "@/server/auth/actor";
import { authorize } from "@/server/auth/authorize";
import { guardedByKind } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";
import { KIND_SPECS, readsKind, writesKind, type AppPins, type Doc } from "../support/builder-kinds";
import { changesBetween, recorded, recordEvent } from "../org/events";
import { likeEscaped } from "../org/name-search";
import { checkVersion, namesVersions, versionChanged, type VersionMatch } from "../support/preconditions";
import {
  afterCursor,
  beforeCursor,
  CURSOR_ORDER,
  decodeCursor,
  encodeCursor,
  NEWEST_FIRST,
  toPage,
} from "../support/pagination";

type ItemRow = {
  id: string;
  organizationId: string;
  kind: BuilderKind;
  draft: unknown;
  productionVersionId: string | null;
  versionCount: number;
  lastChange: unknown;
  liveAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

type VersionRow = {
  id: string;
  itemId: string;
  number: number;
  name: string;
  notes: string;
  document: unknown;
  pins: unknown;
  publishedBy: string;
  source: string;
  createdAt: Date;
};

/** Where a change came from: its door, except that the reference calls the console `ui` here. */
function sourceOf(actor: Actor): string {
  const door = channelOf(actor);
  return door === "console" ? "ui" : door;
}

function lastChange(actor: Actor, at: Date, action: string, summary: string): LastChange {
  return { at: at.toISOString(), by: actorLabel(actor), source: sourceOf(actor), action, summary };
}

/** A strictly later `updatedAt`, so a compare-and-set never sees the same value twice. */
function nextUpdatedAt(previous: Date): Date {
  return new Date(Math.max(Date.now(), previous.getTime() + 1));
}

function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    // Runs are single dashes by now: trimming one at each end is enough.
    .replace(/^-|-$/g, "")
    .slice(0, 80)
    .replace(/-$/, "");
  return slug || "item";
}

/** Stable JSON (sorted keys), to compare documents. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .filter((key) => (value as Doc)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Doc)[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

function notFound(kind: BuilderKind): AppError {
  return new AppError("not_found", `No ${kind} with that id in this organization.`);
}

async function findItem(
  db: Db | Prisma.TransactionClient,
  actor: Actor,
  kind: BuilderKind,
  id: string,
): Promise<ItemRow> {
  const row = await db.builderItem.findFirst({ where: { id, organizationId: actor.organizationId, kind } });
  if (!row) throw notFound(kind);
  return row;
}

async function productionDocument(db: Db, row: ItemRow): Promise<Doc | null> {
  if (!row.productionVersionId) return null;
  const version = await db.builderVersion.findFirst({
    where: { id: row.productionVersionId, organizationId: row.organizationId },
    select: { document: true },
  });
  return (version?.document as Doc | undefined) ?? null;
}

function itemState(row: ItemRow, draftDiffersFromLive: boolean) {
  return {
    id: row.id,
    published: row.productionVersionId !== null,
    productionVersionId: row.productionVersionId,
    versionCount: row.versionCount,
    lastChange: row.lastChange as LastChange,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    draftDiffersFromLive,
  };
}

/** The draft view: the draft document read back, with the item's state. */
async function draftView(db: Db, row: ItemRow): Promise<Doc> {
  const spec = KIND_SPECS[row.kind];
  const draft = row.draft as Doc;
  const live = await productionDocument(db, row);
  const [content] = await spec.render(db, row.organizationId, [draft]);
  return { ...content, ...itemState(row, live === null || canonical(live) !== canonical(draft)) };
}

function toVersion(row: VersionRow, productionVersionId: string | null) {
  return {
    id: row.id,
    number: row.number,
    name: row.name,
    createdAt: row.createdAt.toISOString(),
    isProduction: row.id === productionVersionId,
    publishedBy: row.publishedBy,
    source: row.source,
    notes: row.notes,
  };
}

// ---------------------------------------------------------------------------------------------
// Create, read

export const createItem = guardedByKind(
  writesKind,
  async function createItem(db: Db, actor: Actor, kind: BuilderKind, input: Doc): Promise<Doc> {
    const spec = KIND_SPECS[kind];
    const patch = spec.patch.parse(input);
    const draft = spec.document.parse(
      spec.normalize({ ...patch, slug: patch.slug ?? slugify(String(patch.name ?? "")) }),
    );
    await spec.validateDraft(db, actor.organizationId, draft, new Set(Object.keys(patch)));
    const now = new Date();
    const create = (tx: Prisma.TransactionClient) =>
      tx.builderItem.create({
        data: {
          organizationId: actor.organizationId,
          kind,
          draft: draft as Prisma.InputJsonValue,
          lastChange: lastChange(
            actor,
            now,
            "created",
            `Created ${kind} "${String(draft.name)}"`,
          ) as Prisma.InputJsonValue,
          createdAt: now,
          updatedAt: now,
        },
      });
    const row = await recorded(db, actor, create, (item) => ({
      action: `${kind}.create`,
      target: { type: kind, id: item.id, label: String(draft.name) },
      changes: { name: [null, draft.name] },
    }));
    return draftView(db, row);
  },
);

export const getDraft = guardedByKind(
  readsKind,
  async function getDraft(db: Db, actor: Actor, kind: BuilderKind, id: string): Promise<Doc> {
    return draftView(db, await findItem(db, actor, kind, id));
  },
);

/** The live version, read as the draft view is; an unpublished item is not found. */
export const getLive = guardedByKind(
  readsKind,
  async function getLive(db: Db, actor: Actor, kind: BuilderKind, id: string): Promise<Doc> {
    const row = await findItem(db, actor, kind, id);
    if (!row.productionVersionId) throw notFound(kind);
    const version = await db.builderVersion.findFirst({
      where: { id: row.productionVersionId, organizationId: actor.organizationId },
    });
    if (!version) throw notFound(kind);
    const spec = KIND_SPECS[kind];
    const [content] = await spec.render(
      db,
      actor.organizationId,
      [version.document as Doc],
      [(version.pins as AppPins | null) ?? null],
    );
    return { ...content, ...itemState(row, canonical(version.document) !== canonical(row.draft)) };
  },
);

// ---------------------------------------------------------------------------------------------
// Draft edits

export interface Precondition {
  /** The `updatedAt` the client last read. */
  expectedUpdatedAt?: string;
  /** `If-Unmodified-Since` (HTTP date, whole seconds). */
  ifUnmodifiedSince?: string;
  /** `If-Match`: the versions the write may apply to (`precondition_failed` otherwise). */
  ifMatch?: VersionMatch;
}

function conflict(kind: BuilderKind): AppError {
  return new AppError(
    "conflict",
    `The ${kind} draft changed since you read it; read it again and retry with its new updatedAt. Nothing was written.`,
  );
}

function checkPrecondition(kind: BuilderKind, row: ItemRow, precondition: Precondition): void {
  checkVersion(precondition.ifMatch, row.updatedAt, `${kind} draft`);
  if (
    precondition.expectedUpdatedAt !== undefined &&
    new Date(precondition.expectedUpdatedAt).getTime() !== row.updatedAt.getTime()
  )
    throw conflict(kind);
  if (precondition.ifUnmodifiedSince !== undefined) {
    const since = new Date(precondition.ifUnmodifiedSince);
    if (Number.isNaN(since.getTime())) {
      throw new AppError("invalid_request", "Invalid request: If-Unmodified-Since is not an HTTP date.", {
        problems: [{ path: "If-Unmodified-Since", message: "Not an HTTP date" }],
      });
    }
    if (Math.floor(row.updatedAt.getTime() / 1000) > Math.floor(since.getTime() / 1000)) throw conflict(kind);
  }
}

function mergePatch(current: Doc, patch: Doc, mergeKeys: readonly string[]): Doc {
  const merged: Doc = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const before = current[key];
    merged[key] =
      mergeKeys.includes(key) &&
      value &&
      typeof value === "object" &&
      !Array.isArray(value) &&
      before &&
      typeof before === "object"
        ? { ...(before as Doc), ...(value as Doc) }
        : value;
  }
  return merged;
}

/**
 * Only the fields passed change; arrays replace; the kind's nested objects merge. The write is
 * a compare-and-set on `updatedAt`: a stale precondition, or a concurrent write when one was
 * given, answers `conflict` with nothing written.
 */
export const patchDraft = guardedByKind(
  writesKind,
  async function patchDraft(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    id: string,
    input: Doc,
    precondition: Precondition = {},
  ): Promise<Doc> {
    const spec = KIND_SPECS[kind];
    const patch = spec.patch.parse(input);
    const changed = Object.keys(patch).filter((key) => patch[key] !== undefined);
    const guarded = precondition.expectedUpdatedAt !== undefined || precondition.ifUnmodifiedSince !== undefined;
    for (let attempt = 0; attempt < 5; attempt++) {
      const row = await findItem(db, actor, kind, id);
      checkPrecondition(kind, row, precondition);
      const draft = spec.document.parse(spec.normalize(mergePatch(row.draft as Doc, patch, spec.mergeKeys)));
      await spec.validateDraft(db, actor.organizationId, draft, new Set(changed));
      const updatedAt = nextUpdatedAt(row.updatedAt);
      const summary = changed.length ? `Changed ${changed.join(", ")}` : "Saved the draft unchanged";
      const write = (tx: Prisma.TransactionClient) =>
        tx.builderItem.updateMany({
          where: { id: row.id, organizationId: actor.organizationId, updatedAt: row.updatedAt },
          data: {
            draft: draft as Prisma.InputJsonValue,
            updatedAt,
            lastChange: lastChange(actor, updatedAt, "draft_updated", summary) as Prisma.InputJsonValue,
          },
        });
      const before = row.draft as Doc;
      const { count } = await recorded(db, actor, write, ({ count }) =>
        count
          ? {
              action: `${kind}.draft_update`,
              target: { type: kind, id: row.id, label: String(draft.name) },
              changes: changesBetween(before, draft, changed),
            }
          : null,
      );
      if (count === 1) return getDraft(db, actor, kind, id);
      if (namesVersions(precondition.ifMatch)) throw versionChanged(`${kind} draft`);
      if (guarded) throw conflict(kind);
    }
    throw conflict(kind);
  },
);

// ---------------------------------------------------------------------------------------------
// Publish, versions, deploy

export interface PublishInput {
  deployToProduction?: boolean;
  name?: string;
  notes?: string;
}

function summaryOf(row: ItemRow, doc: Doc) {
  return {
    id: row.id,
    kind: row.kind,
    type: KIND_SPECS[row.kind].type(doc),
    name: String(doc.name ?? ""),
    slug: String(doc.slug ?? ""),
    description: String(doc.description ?? ""),
    published: row.productionVersionId !== null,
    productionVersionId: row.productionVersionId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Locks the item row for the rest of the transaction, so publishes and deploys are serialized. */
async function lockItem(tx: Prisma.TransactionClient, actor: Actor, kind: BuilderKind, id: string): Promise<ItemRow> {
  const locked = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM builder_items WHERE id = ${id}::uuid AND organization_id = ${actor.organizationId}::uuid AND kind = ${kind}::"BuilderKind" FOR UPDATE`;
  if (locked.length === 0) throw notFound(kind);
  return findItem(tx, actor, kind, id);
}

/**
 * Snapshots the draft as version `versionCount + 1` under a row lock on the item; unless
 * `deployToProduction` is false it becomes the live version. Apps pin the production version
 * of their adviser and members.
 */
export const publishItem = guardedByKind(
  writesKind,
  async function publishItem(db: Db, actor: Actor, kind: BuilderKind, id: string, input: PublishInput) {
    const spec = KIND_SPECS[kind];
    await findItem(db, actor, kind, id); // not_found before any lock
    return db.$transaction(
      async (tx) => {
        const row = await lockItem(tx, actor, kind, id);
        const draft = row.draft as Doc;
        // Through the transaction: a second pool connection could be starved by publishes waiting on the lock.
        const pins = await spec.validatePublish(tx, actor.organizationId, draft);
        const number = row.versionCount + 1;
        const deploy = input.deployToProduction !== false;
        const versionId = randomUUID();
        const updatedAt = nextUpdatedAt(row.updatedAt);
        const version = await tx.builderVersion.create({
          data: {
            id: versionId,
            itemId: row.id,
            organizationId: actor.organizationId,
            number,
            name: input.name ?? `v${number}`,
            notes: input.notes ?? "",
            document: draft as Prisma.InputJsonValue,
            pins: (pins ?? undefined) as Prisma.InputJsonValue | undefined,
            publishedBy: actorLabel(actor),
            source: sourceOf(actor),
            createdAt: updatedAt,
          },
        });
        const updated = await tx.builderItem.update({
          where: { id: row.id, organizationId: actor.organizationId },
          data: {
            versionCount: number,
            updatedAt,
            ...(deploy ? { productionVersionId: versionId, liveAt: updatedAt } : {}),
            lastChange: lastChange(
              actor,
              updatedAt,
              "published",
              `Published version ${number}${deploy ? " (live)" : " (not live)"}`,
            ) as Prisma.InputJsonValue,
          },
        });
        const published = {
          summary: summaryOf(updated, draft),
          version: toVersion(version, updated.productionVersionId),
        };
        await recordEvent(tx, actor, {
          action: `${kind}.publish`,
          target: { type: kind, id: row.id, label: String(draft.name) },
          changes: { version: [row.versionCount || null, number] },
          data: published,
        });
        return published;
      },
      { timeout: 20_000, maxWait: 20_000 },
    );
  },
);

/** Makes an existing version the live one again (rollback or roll forward). */
export const deployVersion = guardedByKind(
  writesKind,
  async function deployVersion(db: Db, actor: Actor, kind: BuilderKind, id: string, versionId: string) {
    await findItem(db, actor, kind, id);
    return db.$transaction(
      async (tx) => {
        const row = await lockItem(tx, actor, kind, id);
        const version = await tx.builderVersion.findFirst({
          where: { id: versionId, itemId: row.id, organizationId: actor.organizationId },
        });
        if (!version) throw new AppError("not_found", `No version with that id on this ${kind}.`);
        const updatedAt = nextUpdatedAt(row.updatedAt);
        const updated = await tx.builderItem.update({
          where: { id: row.id, organizationId: actor.organizationId },
          data: {
            productionVersionId: version.id,
            liveAt: updatedAt,
            updatedAt,
            lastChange: lastChange(
              actor,
              updatedAt,
              "deployed",
              `Made version ${version.number} live`,
            ) as Prisma.InputJsonValue,
          },
        });
        const deployed = {
          summary: summaryOf(updated, version.document as Doc),
          version: toVersion(version, updated.productionVersionId),
        };
        await recordEvent(tx, actor, {
          action: `${kind}.deploy`,
          target: { type: kind, id: row.id, label: deployed.summary.name },
          changes: { productionVersionId: [row.productionVersionId, version.id] },
        });
        return deployed;
      },
      { timeout: 20_000, maxWait: 20_000 },
    );
  },
);

export const listVersions = guardedByKind(
  readsKind,
  async function listVersions(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    id: string,
    query: { limit: number; cursor?: string; order?: "oldest" | "newest" },
  ) {
    const row = await findItem(db, actor, kind, id);
    const newest = query.order === "newest";
    if (query.cursor) {
      const position = decodeCursor(query.cursor);
      const named = await db.builderVersion.findFirst({
        where: { id: position.id, itemId: row.id, organizationId: actor.organizationId, createdAt: position.createdAt },
        select: { id: true },
      });
      if (!named) throw staleCursor();
    }
    const rows = await db.builderVersion.findMany({
      where: {
        itemId: row.id,
        organizationId: actor.organizationId,
        ...(newest ? beforeCursor(query.cursor) : afterCursor(query.cursor)),
      },
      orderBy: newest ? NEWEST_FIRST : CURSOR_ORDER,
      take: query.limit + 1,
    });
    const page = toPage(rows, query.limit);
    const documents = await KIND_SPECS[kind].render(
      db,
      actor.organizationId,
      page.items.map((version) => version.document as Doc),
      page.items.map((version) => (version.pins as AppPins | null) ?? null),
    );
    return {
      versions: page.items.map((version, index) => ({
        ...toVersion(version, row.productionVersionId),
        document: documents[index]!,
      })),
      nextCursor: page.nextCursor,
    };
  },
);

export const deleteItem = guardedByKind(
  (kind) => ({ ...writesKind(kind), may: "delete" }),
  async function deleteItem(db: Db, actor: Actor, kind: BuilderKind, id: string): Promise<void> {
    // The item's grants go with it: a grant to nothing would linger on end users' pages.
    const remove = async (tx: Prisma.TransactionClient) => {
      const deleted = await tx.builderItem.deleteMany({ where: { id, organizationId: actor.organizationId, kind } });
      if (deleted.count)
        await tx.grant.deleteMany({ where: { organizationId: actor.organizationId, targetKind: kind, targetId: id } });
      return deleted;
    };
    const { count } = await recorded(db, actor, remove, ({ count }) =>
      count ? { action: `${kind}.delete`, target: { type: kind, id } } : null,
    );
    if (count === 0) throw notFound(kind);
  },
);

// ---------------------------------------------------------------------------------------------
// Lists

export interface ListInput {
  include?: "drafts";
  limit: number;
  cursor?: string;
  fields?: string[];
  q?: string;
  updatedSince?: string;
}

function staleCursor(): AppError {
  return new AppError(
    "invalid_request",
    "Invalid request: cursor is stale (the item it names is gone); start again without a cursor.",
    {
      problems: [{ path: "cursor", message: "Stale cursor" }],
    },
  );
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

export { encodeCursor };
