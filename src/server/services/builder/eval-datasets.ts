// Evaluation datasets of an agent, flow or app: imported whole from a file, listed, read case by
// case and deleted (with their runs).
import type { z } from "zod";
import { randomUUID } from "node:crypto";
import type { BuilderKind } from "@/schemas/builder/builder";
import {
  EVAL_LIMITS,
  type EvalDataset,
  type ImportDatasetInput,
  type ListDatasetsInput,
  type DatasetCasesInput,
  type DatasetInput,
} from "@/schemas/builder/evaluations";
import type { Prisma } from "@/generated/prisma/client";
import { actorLabel, type Actor } from "@/server/auth/actor";
import { guardedByKind } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { recorded } from "../org/events";
import { readsKind, writesKind } from "../support/builder-kinds";
import { oldestFirst } from "../support/pagination";
import { parseDataset } from "./dataset-parsing";
import { assertItem, datasetNotFound, findDataset } from "./evaluation-shared";

type DatasetRow = Prisma.EvalDatasetGetPayload<object>;

function toDataset(row: DatasetRow): EvalDataset {
  return {
    id: row.id,
    itemId: row.itemId,
    itemKind: row.itemKind as BuilderKind,
    name: row.name,
    format: row.format as EvalDataset["format"],
    caseCount: row.caseCount,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
  };
}

export const importDataset = guardedByKind(
  writesKind,
  async function importDataset(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    input: z.infer<typeof ImportDatasetInput>,
  ): Promise<EvalDataset> {
    const item = await assertItem(db, actor.organizationId, kind, input.id);
    const cases = await parseDataset(input.format, input.content);
    const kept = await db.evalDataset.count({ where: { organizationId: actor.organizationId, itemId: input.id } });
    if (kept >= EVAL_LIMITS.datasetsPerItem)
      throw new AppError(
        "invalid_request",
        `Invalid request: the ${kind} already keeps ${EVAL_LIMITS.datasetsPerItem} datasets; delete one first.`,
      );
    const id = randomUUID();
    const row = await recorded(
      db,
      actor,
      async (tx) => {
        const dataset = await tx.evalDataset.create({
          data: {
            id,
            organizationId: actor.organizationId,
            itemId: input.id,
            itemKind: kind,
            name: input.name,
            format: input.format,
            caseCount: cases.length,
            createdBy: actorLabel(actor),
          },
        });
        await tx.evalCase.createMany({
          data: cases.map((c, index) => ({
            datasetId: id,
            position: index + 1,
            externalId: c.externalId,
            input: c.input,
            expectedBehavior: c.expectedBehavior,
          })),
        });
        return dataset;
      },
      (dataset) => ({
        action: `${kind}.dataset_import`,
        target: { type: kind, id: input.id, label: item.name },
        changes: { dataset: [null, { id: dataset.id, name: dataset.name, cases: dataset.caseCount }] },
      }),
    );
    return toDataset(row);
  },
);

export const listDatasets = guardedByKind(
  readsKind,
  async function listDatasets(db: Db, actor: Actor, kind: BuilderKind, input: z.infer<typeof ListDatasetsInput>) {
    await assertItem(db, actor.organizationId, kind, input.id);
    const page = await oldestFirst(input, (after, window) =>
      db.evalDataset.findMany({
        where: { organizationId: actor.organizationId, itemId: input.id, ...after },
        ...window,
      }),
    );
    return { datasets: page.items.map(toDataset), nextCursor: page.nextCursor };
  },
);

export const listDatasetCases = guardedByKind(
  readsKind,
  async function listDatasetCases(db: Db, actor: Actor, kind: BuilderKind, input: z.infer<typeof DatasetCasesInput>) {
    await findDataset(db, actor.organizationId, kind, input.id, input.datasetId);
    const after = input.cursor && /^\d{1,7}$/.test(input.cursor) ? Number(input.cursor) : 0;
    const rows = await db.evalCase.findMany({
      where: { datasetId: input.datasetId, position: { gt: after } },
      orderBy: { position: "asc" },
      take: input.limit + 1,
      select: { id: true, position: true, externalId: true, input: true, expectedBehavior: true },
    });
    const cases = rows.slice(0, input.limit);
    return {
      cases,
      nextCursor: rows.length > input.limit ? String(cases[cases.length - 1]!.position) : null,
    };
  },
);

export const deleteDataset = guardedByKind(
  writesKind,
  async function deleteDataset(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    input: z.infer<typeof DatasetInput>,
  ): Promise<void> {
    const item = await assertItem(db, actor.organizationId, kind, input.id);
    await recorded(
      db,
      actor,
      async (tx) => {
        const row = await tx.evalDataset.findFirst({
          where: { id: input.datasetId, organizationId: actor.organizationId, itemId: input.id },
        });
        if (!row) throw datasetNotFound();
        // Its runs and their results go with it (cascade); a case in flight finds its row gone.
        await tx.evalDataset.delete({ where: { id: row.id, organizationId: actor.organizationId } });
        return row;
      },
      (row) => ({
        action: `${kind}.dataset_delete`,
        target: { type: kind, id: input.id, label: item.name },
        changes: { dataset: [{ id: row.id, name: row.name, cases: row.caseCount }, null] },
      }),
    );
  },
);
