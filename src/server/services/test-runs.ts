// Graded test runs of drafts: each case runs against the DRAFT and is graded against the
// rubric when one is given, else the case's expected behaviour. 1 credit per case (or, on priced
// models, each case's minimum, settled at what its calls cost), all taken before the first case
// runs; a failed case costs what src/server/runtime/billed-run.ts says.
import type { BuilderKind } from "@/schemas/builder";
import type { TestRunResult } from "@/schemas/runtime";
import type { Actor } from "@/server/auth/actor";
import { actorLabel } from "@/server/auth/actor";
import { guardedByKind } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";
import { BilledRun, chargeRun, RUN_CREDITS } from "@/server/runtime/billed-run";
import { appRunForDraft, assertCompleteDraft, loadDraft } from "@/server/runtime/load";
import { jsonObjectIn } from "@/server/runtime/json-in-text";
import { BUILTIN_MODEL_ID, modelFor } from "@/server/runtime/models";
import { runnableModels } from "@/server/runtime/metering";
import { runPricing } from "@/server/runtime/run-pricing";
import { boundedReply, inputsFromMessage, newRunContext, runAgent, runApp, runFlow } from "@/server/runtime/run";
import { readsKind, writesKind } from "./support/builder-kinds";
import { afterCursor, CURSOR_ORDER, toPage } from "./support/pagination";

export const TEST_CASE_CREDITS = RUN_CREDITS.testCase;

interface TestInput {
  id: string;
  cases: { id?: string; input: string; expectedBehavior: string }[];
  rubric?: string;
}

export const runTests = guardedByKind(
  writesKind,
  async function runTests(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    input: TestInput,
  ): Promise<TestRunResult & { id: string; createdAt: string }> {
    const organization = await db.organization.findUniqueOrThrow({
      where: { id: actor.organizationId },
      select: { qualityChecker: true },
    });
    if (!organization.qualityChecker)
      throw new AppError("feature_not_available", "The organization's plan does not include the quality checker.");
    const { runnable } = await loadDraft(db, actor, kind, input.id);
    assertCompleteDraft(kind, runnable.document);
    const appRun =
      kind === "app" ? await appRunForDraft(db, actor, runnable as Parameters<typeof appRunForDraft>[2]) : null;
    // Flat per case, unless the organization prices the models the cases call (then settled per case).
    const pricing = await runPricing(
      db,
      actor.organizationId,
      TEST_CASE_CREDITS,
      runnableModels(kind, runnable, appRun),
    );
    await chargeRun(
      db,
      { organizationId: actor.organizationId, endUserId: null, usage: { appId: runnable.id, portalId: null } },
      input.cases.length * pricing.upfront,
    );

    const document = runnable.document as {
      name: string;
      model?: string;
      nodes?: { id: string; type: string }[];
      members?: { id: string }[];
    };
    const grader = await modelFor(db, actor.organizationId, document.model ?? BUILTIN_MODEL_ID);
    const targets =
      kind === "flow"
        ? (document.nodes ?? []).filter((node) => node.type === "llm" || node.type === "output").map((node) => node.id)
        : kind === "agent"
          ? ["systemInstruction"]
          : (document.members ?? []).map((member) => member.id);
    const results: TestRunResult["results"] = [];
    for (const [index, testCase] of input.cases.entries()) {
      const caseId = testCase.id ?? String(index + 1);
      const ctx = newRunContext(db, actor.organizationId);
      const billed = BilledRun.prepaid(db, ctx, actor.organizationId, pricing);
      const started = performance.now();
      let output = "";
      let error: string | null = null;
      try {
        if (kind === "agent")
          output = await runAgent(ctx, runnable as Parameters<typeof runAgent>[1], testCase.input, []);
        else if (kind === "flow") {
          // A case's input is the flow's inputs as a JSON object, or text for its first text input.
          const flow = runnable as Parameters<typeof runFlow>[1];
          output = boundedReply(
            await runFlow(ctx, flow, jsonObjectIn(testCase.input) ?? inputsFromMessage(flow.document, testCase.input)),
          );
        } else output = await runApp(ctx, appRun!, testCase.input, []);
      } catch (cause) {
        await billed.fail(cause);
        error = billed.outcome().error;
      }
      const expected = input.rubric ?? testCase.expectedBehavior;
      // The cases are paid for already: a grader that fails marks its case, never the whole run.
      const grade = error
        ? { passed: false, reason: error }
        : await grader
            .grade({
              input: testCase.input,
              output,
              expectedBehavior: expected,
              // Grading is a model call of the case: a priced grader's tokens are charged with it.
              onUsage: (usage) => ctx.meter.record(grader, usage, "succeeded"),
            })
            .catch(() => ({
              passed: false,
              reason: "The model provider failed or timed out while grading this case; run the test again later.",
            }));
      const execution = await billed.record(actor, {
        kind: "test",
        itemId: runnable.id,
        itemKind: kind,
        versionId: null,
        latencyMs: performance.now() - started,
        input: testCase.input,
        output,
        trace: ctx.trace,
      });
      const criterionId = input.rubric ? "rubric" : `expected-${caseId}`;
      const hint =
        kind === "flow"
          ? "Adjust the prompt or output of the nodes named."
          : kind === "agent"
            ? "Adjust the agent's instructions or knowledge."
            : "Adjust the members named or the adviser instructions.";
      results.push({
        caseId,
        input: testCase.input,
        passed: grade.passed,
        output,
        failures: grade.passed
          ? []
          : [{ criterionId, reason: grade.reason, correctionHint: hint, targetNodeIds: targets }],
        error,
        executionId: execution.id,
        latencyMs: Math.round(performance.now() - started),
      });
    }
    const passed = results.filter((r) => r.passed).length;
    const result: TestRunResult = {
      tool: { id: runnable.id, kind, name: document.name },
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
        itemId: runnable.id,
        itemKind: kind,
        result: result as unknown as Prisma.InputJsonValue,
        actor: actorLabel(actor),
      },
    });
    return { ...result, id: row.id, createdAt: row.createdAt.toISOString() };
  },
);

export const listTestRuns = guardedByKind(
  readsKind,
  async function listTestRuns(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    input: { id: string; limit: number; cursor?: string },
  ) {
    await loadDraft(db, actor, kind, input.id);
    const rows = await db.testRun.findMany({
      where: { organizationId: actor.organizationId, itemId: input.id, ...afterCursor(input.cursor) },
      orderBy: CURSOR_ORDER,
      take: input.limit + 1,
    });
    const page = toPage(rows, input.limit);
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
