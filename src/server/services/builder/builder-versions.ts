// Versions of agents, flows and apps: published from the draft under a row lock, made live
// (deploy, rollback) and listed.
import { randomUUID } from "node:crypto";
import type { BuilderKind } from "@/schemas/builder/builder";
import { actorLabel, type Actor } from "@/server/auth/actor";
import { guardedByKind } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";
import { KIND_SPECS, readsKind, writesKind } from "../support/builder-kinds";
import type { AppPins, Doc } from "../support/builder-kind-shared";
import { recordEvent } from "../org/events";
import { afterCursor, beforeCursor, CURSOR_ORDER, decodeCursor, NEWEST_FIRST, toPage } from "../support/pagination";
import {
  findItem,
  lastChange,
  nextUpdatedAt,
  notFound,
  sourceOf,
  staleCursor,
  toVersion,
  type ItemRow,
} from "./builder-shared";

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
  return findItem(tx, actor.organizationId, kind, id);
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
    await findItem(db, actor.organizationId, kind, id); // not_found before any lock
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
    await findItem(db, actor.organizationId, kind, id);
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
    const row = await findItem(db, actor.organizationId, kind, id);
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
