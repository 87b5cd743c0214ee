// The Tests panel's cases, kept with their agent, flow or app so they are there when the editor
// opens again. They live beside the draft, not in it: saving them does not move the draft's
// `updatedAt` (the editor's autosave is not put in conflict) and versions do not carry them.
import type { BuilderKind } from "@/schemas/builder/builder";
import type { TestSuite } from "@/schemas/runs/runtime";
import type { Actor } from "@/server/auth/actor";
import { guardedByKind } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";
import { readsKind, writesKind } from "../support/builder-kinds";
import { recorded } from "../org/events";

function notFound(kind: BuilderKind): AppError {
  return new AppError("not_found", `No ${kind} with that id.`);
}

function suiteOf(row: { testCases: unknown; testRubric: string }): TestSuite {
  return { cases: row.testCases as TestSuite["cases"], rubric: row.testRubric };
}

export const getTestSuite = guardedByKind(
  readsKind,
  async function getTestSuite(db: Db, actor: Actor, kind: BuilderKind, input: { id: string }): Promise<TestSuite> {
    const row = await db.builderItem.findFirst({
      where: { id: input.id, organizationId: actor.organizationId, kind },
      select: { testCases: true, testRubric: true },
    });
    if (!row) throw notFound(kind);
    return suiteOf(row);
  },
);

export const saveTestSuite = guardedByKind(
  writesKind,
  async function saveTestSuite(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    input: TestSuite & { id: string },
  ): Promise<TestSuite> {
    return recorded(
      db,
      actor,
      async (tx) => {
        const before = await tx.builderItem.findFirst({
          where: { id: input.id, organizationId: actor.organizationId, kind },
          select: { testCases: true, testRubric: true, draft: true },
        });
        if (!before) throw notFound(kind);
        await tx.builderItem.updateMany({
          where: { id: input.id, organizationId: actor.organizationId, kind },
          data: { testCases: input.cases as Prisma.InputJsonValue, testRubric: input.rubric },
        });
        return { before: suiteOf(before), name: String((before.draft as { name?: unknown }).name ?? "") };
      },
      ({ before, name }) =>
        JSON.stringify(before) === JSON.stringify({ cases: input.cases, rubric: input.rubric })
          ? null
          : {
              action: `${kind}.tests_update`,
              target: { type: kind, id: input.id, label: name },
              changes: { cases: [before.cases.length, input.cases.length], rubric: [before.rubric, input.rubric] },
            },
    ).then(() => ({ cases: input.cases, rubric: input.rubric }));
  },
);
