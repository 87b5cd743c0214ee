// Graded test runs of drafts: each case runs against the DRAFT and is graded against the
// rubric when one is given, else the case's expected behaviour. 1 credit per case (or, on priced
// models, each case's minimum, settled at what its calls cost): a run the balance cannot cover
// for every case is refused before any runs, then each case is charged as it runs, with its lease
// (runtime/graded-case.ts); a failed case costs what src/server/runtime/billed-run.ts says.
import type { z } from "zod";
import type { BuilderKind } from "@/schemas/builder/builder";
import type { TestRunResult, RunTestsInput, ListTestRunsInput } from "@/schemas/runs/runtime";
import type { Actor } from "@/server/auth/actor";
import { actorLabel } from "@/server/auth/actor";
import { guardedByKind } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import type { Prisma } from "@/generated/prisma/client";
import { isAppError } from "@/server/errors";
import { assertQualityChecker, draftTarget, runGradedCase } from "@/server/runtime/graded-case";
import { loadDraft } from "@/server/runtime/load";
import { assertBalanceCovers } from "../provisioning/credits";
import { readsKind, writesKind } from "../support/builder-kinds";
import { oldestFirst } from "../support/pagination";

export const runTests = guardedByKind(
  writesKind,
  async function runTests(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    input: z.infer<typeof RunTestsInput>,
  ): Promise<TestRunResult & { id: string; createdAt: string }> {
    await assertQualityChecker(db, actor.organizationId);
    const target = await draftTarget(db, actor, kind, input.id);
    await assertBalanceCovers(db, actor.organizationId, input.cases.length * target.pricing.upfront, {
      appId: target.runnable.id,
      portalId: null,
    });
    const results: TestRunResult["results"] = [];
    for (const [index, testCase] of input.cases.entries()) {
      const caseId = testCase.id ?? String(index + 1);
      // A case the balance no longer covers (another run took it meanwhile) fails alone, charged nothing.
      const graded = await runGradedCase(db, actor, target, {
        input: testCase.input,
        expected: input.rubric ?? testCase.expectedBehavior,
      }).catch((error: unknown) => {
        if (!isAppError(error)) throw error;
        return {
          passed: false,
          reason: error.message,
          output: "",
          error: error.message,
          executionId: "",
          latencyMs: 0,
        };
      });
      const criterionId = input.rubric ? "rubric" : `expected-${caseId}`;
      results.push({
        caseId,
        input: testCase.input,
        passed: graded.passed,
        output: graded.output,
        failures: graded.passed
          ? []
          : [
              {
                criterionId,
                reason: graded.reason,
                correctionHint: CORRECTION_HINT[kind],
                targetNodeIds: target.targets,
              },
            ],
        error: graded.error,
        executionId: graded.executionId,
        latencyMs: graded.latencyMs,
      });
    }
    const passed = results.filter((r) => r.passed).length;
    const result: TestRunResult = {
      tool: { id: target.runnable.id, kind, name: (target.runnable.document as { name: string }).name },
      summary: { total: results.length, passed, failed: results.length - passed },
      results,
      corrections: results.flatMap((r) =>
        r.failures.map((failure) => ({
          criterionId: failure.criterionId,
          testCaseId: r.caseId,
          reason: failure.reason,
          correctionHint: failure.correctionHint,
          targetNodeId: failure.targetNodeIds[0] ?? "",
          suggestedAction: kind === "flow" ? "edit_node" : kind === "agent" ? "edit_instructions" : "edit_member",
        })),
      ),
    };
    const row = await db.testRun.create({
      data: {
        organizationId: actor.organizationId,
        itemId: target.runnable.id,
        itemKind: kind,
        result: result as unknown as Prisma.InputJsonValue,
        actor: actorLabel(actor),
      },
    });
    return { ...result, id: row.id, createdAt: row.createdAt.toISOString() };
  },
);

const CORRECTION_HINT: Record<BuilderKind, string> = {
  flow: "Adjust the prompt or output of the nodes named.",
  agent: "Adjust the agent's instructions or knowledge.",
  app: "Adjust the members named or the adviser instructions.",
};

export const listTestRuns = guardedByKind(
  readsKind,
  async function listTestRuns(db: Db, actor: Actor, kind: BuilderKind, input: z.infer<typeof ListTestRunsInput>) {
    await loadDraft(db, actor, kind, input.id);
    const page = await oldestFirst(input, (after, window) =>
      db.testRun.findMany({ where: { organizationId: actor.organizationId, itemId: input.id, ...after }, ...window }),
    );
    return {
      testRuns: page.items.map((row) => ({
        ...(row.result as unknown as TestRunResult),
        id: row.id,
        createdAt: row.createdAt.toISOString(),
      })),
      nextCursor: page.nextCursor,
    };
  },
);
