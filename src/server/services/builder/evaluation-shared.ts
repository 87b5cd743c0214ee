// The lookups the dataset and run operations of evaluations share.
import type { BuilderKind } from "@/schemas/builder/builder";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";

export function notFound(kind: BuilderKind): AppError {
  return new AppError("not_found", `No ${kind} with that id.`);
}

export function datasetNotFound(): AppError {
  return new AppError("not_found", "No dataset with that id.");
}

/** The organization's item of that kind (its name), or not_found. */
export async function assertItem(
  db: Db,
  organizationId: string,
  kind: BuilderKind,
  id: string,
): Promise<{ name: string }> {
  const item = await db.builderItem.findFirst({
    where: { id, organizationId, kind },
    select: { draft: true },
  });
  if (!item) throw notFound(kind);
  return { name: String((item.draft as { name?: unknown }).name ?? "") };
}

/** A dataset of the organization's item, or not_found (the item's first). */
export async function findDataset(db: Db, organizationId: string, kind: BuilderKind, id: string, datasetId: string) {
  await assertItem(db, organizationId, kind, id);
  const row = await db.evalDataset.findFirst({
    where: { id: datasetId, organizationId, itemId: id },
  });
  if (!row) throw datasetNotFound();
  return row;
}
