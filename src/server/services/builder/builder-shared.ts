// What the builder's operations share: the rows they read, the last-change stamp, the item lookup.
import type { BuilderKind, LastChange } from "@/schemas/builder/builder";
import { actorLabel, channelOf, type Actor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";
import type { Doc } from "../support/builder-kind-shared";

export type ItemRow = {
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

export type VersionRow = {
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
export function sourceOf(actor: Actor): string {
  const door = channelOf(actor);
  return door === "console" ? "ui" : door;
}

export function lastChange(actor: Actor, at: Date, action: string, summary: string): LastChange {
  return { at: at.toISOString(), by: actorLabel(actor), source: sourceOf(actor), action, summary };
}

/** A strictly later `updatedAt`, so a compare-and-set never sees the same value twice. */
export function nextUpdatedAt(previous: Date): Date {
  return new Date(Math.max(Date.now(), previous.getTime() + 1));
}

/** Stable JSON (sorted keys), to compare documents. */
export function canonical(value: unknown): string {
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

export function notFound(kind: BuilderKind): AppError {
  return new AppError("not_found", `No ${kind} with that id in this organization.`);
}

/** The organization's item of that kind, or not_found. */
export async function findItem(
  db: Db | Prisma.TransactionClient,
  organizationId: string,
  kind: BuilderKind,
  id: string,
): Promise<ItemRow> {
  const row = await db.builderItem.findFirst({ where: { id, organizationId, kind } });
  if (!row) throw notFound(kind);
  return row;
}

export function toVersion(row: VersionRow, productionVersionId: string | null) {
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

export function staleCursor(): AppError {
  return new AppError(
    "invalid_request",
    "Invalid request: cursor is stale (the item it names is gone); start again without a cursor.",
    {
      problems: [{ path: "cursor", message: "Stale cursor" }],
    },
  );
}
