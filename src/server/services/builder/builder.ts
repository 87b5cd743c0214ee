// Agents, flows and apps, once for all three kinds: created, read (the draft and the live version)
// and deleted here; a draft document edited freely (draft-edits.ts: only the fields passed change;
// compare-and-set against `updatedAt`), immutable numbered versions published from it under a row
// lock, the live version (`productionVersionId`) and rollback (builder-versions.ts), and
// keyset-paged lists (builder-lists.ts). What differs per kind lives in support/builder-kinds.ts.
import type { BuilderKind, LastChange } from "@/schemas/builder/builder";
import type { Actor } from "@/server/auth/actor";
import { guardedByKind } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import type { Prisma } from "@/generated/prisma/client";
import { KIND_SPECS, readsKind, writesKind } from "../support/builder-kinds";
import type { AppPins, Doc } from "../support/builder-kind-shared";
import { recorded } from "../org/events";
import { canonical, findItem, lastChange, notFound, type ItemRow } from "./builder-shared";

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
    return draftView(db, await findItem(db, actor.organizationId, kind, id));
  },
);

/** The live version, read as the draft view is; an unpublished item is not found. */
export const getLive = guardedByKind(
  readsKind,
  async function getLive(db: Db, actor: Actor, kind: BuilderKind, id: string): Promise<Doc> {
    const row = await findItem(db, actor.organizationId, kind, id);
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
