// One graded case of an agent, flow or app (the Tests panel's runs, services/builder/test-runs.ts, and
// evaluation runs, jobs/evaluations.ts): the case runs against the draft or a version, is graded
// by the quality judge and recorded as an execution of kind `test`; it is charged as it starts,
// with its lease (run-leases.ts: a case lost with its process is given back and recorded failed),
// and a failed case costs what billed-run.ts says.
import { randomUUID } from "node:crypto";
import { AgentDocument, AppDocument, FlowDocument, type BuilderKind } from "@/schemas/builder/builder";
import type { ExecutionUsage } from "@/schemas/runs/runtime";
import { actorLabel, type Actor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError, isAppError } from "@/server/errors";
import { BilledRun, RUN_CREDITS } from "./billed-run";
import { RUN_LOST } from "./run-leases";
import { jsonObjectIn } from "./json-in-text";
import { RUN_LIMITS } from "./limits";
import { appRunForDraft, assertCompleteDraft, loadDraft } from "./load";
import { BUILTIN_MODEL_ID, modelFor } from "./models";
import { estimateTokens, runnableModels } from "./metering";
import type { Grade } from "./model-types";
import { runPricing, type RunPricing } from "./run-pricing";
import { runApp, type AppRun } from "./run";
import { runAgent } from "./run-agent";
import { boundedReply, newRunContext, type RunContext, type Runnable } from "./run-context";
import { inputsFromMessage, runFlow } from "./run-flow";

export const TEST_CASE_CREDITS = RUN_CREDITS.testCase;
const DRAFT_PARSERS = { agent: AgentDocument, flow: FlowDocument, app: AppDocument } as const;

/** What a graded case runs: the draft or a version of an item, its grader and its price per case. */
export interface CaseTarget {
  kind: BuilderKind;
  runnable: Runnable<unknown>;
  appRun: AppRun | null;
  grader: Awaited<ReturnType<typeof modelFor>>;
  pricing: RunPricing;
  /** The models its cases may call, which price them when the organization prices them. */
  models: string[];
  /** Where a failure points in the item (the nodes, the instructions or the members). */
  targets: string[];
}

/** The draft of an item ready to run cases (refusals first: not_found, invalid_workflow, unpublished_dependencies). */
export async function draftTarget(
  db: Db,
  actor: Actor,
  kind: BuilderKind,
  id: string,
  /** The draft as it was kept (an evaluation run's snapshot); else the draft as it is now. */
  kept?: unknown,
): Promise<CaseTarget> {
  const runnable =
    kept === undefined
      ? (await loadDraft(db, actor, kind, id)).runnable
      : { id, versionId: null, document: DRAFT_PARSERS[kind].parse(kept) };
  assertCompleteDraft(kind, runnable.document);
  const appRun =
    kind === "app" ? await appRunForDraft(db, actor, runnable as Parameters<typeof appRunForDraft>[2]) : null;
  return caseTarget(db, actor.organizationId, kind, runnable, appRun);
}

/** A run target for a runnable (draft or version) whose app run, if any, is resolved. */
export async function caseTarget(
  db: Db,
  organizationId: string,
  kind: BuilderKind,
  runnable: Runnable<unknown>,
  appRun: AppRun | null,
): Promise<CaseTarget> {
  // Flat per case, unless the organization prices the models the cases call (then settled per case).
  const models = runnableModels(kind, runnable, appRun);
  const pricing = await runPricing(db, organizationId, TEST_CASE_CREDITS, models);
  const document = runnable.document as {
    model?: string;
    nodes?: { id: string; type: string }[];
    members?: { id: string }[];
  };
  const grader = await modelFor(db, organizationId, document.model ?? BUILTIN_MODEL_ID);
  const targets =
    kind === "flow"
      ? (document.nodes ?? []).filter((node) => node.type === "llm" || node.type === "output").map((node) => node.id)
      : kind === "agent"
        ? ["systemInstruction"]
        : (document.members ?? []).map((member) => member.id);
  return { kind, runnable, appRun, grader, pricing, models, targets };
}

export interface GradedCase {
  passed: boolean;
  reason: string;
  output: string;
  error: string | null;
  executionId: string;
  latencyMs: number;
  credits: number;
  usage: ExecutionUsage;
}

/**
 * One case: charges it (a refusal, insufficient_credits, throws before it runs), runs it, grades
 * it against `expected` and records its execution (kind `test`). A failed case costs what
 * src/server/runtime/billed-run.ts says; one settled as lost meanwhile was recorded by that settlement.
 */
export async function runGradedCase(
  db: Db,
  actor: Actor,
  target: CaseTarget,
  testCase: { input: string; expected: string },
): Promise<GradedCase> {
  const { kind, runnable } = target;
  const ctx = newRunContext(db, actor.organizationId);
  const executionId = randomUUID();
  const billed = await BilledRun.start(
    db,
    ctx,
    { organizationId: actor.organizationId, endUserId: null, usage: { appId: runnable.id, portalId: null } },
    TEST_CASE_CREDITS,
    {
      id: executionId,
      kind: "test",
      itemId: runnable.id,
      itemKind: kind,
      versionId: runnable.versionId,
      conversationId: null,
      input: testCase.input,
      endUserId: null,
      portalId: null,
      actor: actorLabel(actor),
    },
    target.models,
  );
  const started = performance.now();
  let output = "";
  let error: string | null = null;
  try {
    if (kind === "agent") output = await runAgent(ctx, runnable as Parameters<typeof runAgent>[1], testCase.input, []);
    else if (kind === "flow") {
      // A case's input is the flow's inputs as a JSON object, or text for its first text input.
      const flow = runnable as Parameters<typeof runFlow>[1];
      output = boundedReply(
        await runFlow(ctx, flow, jsonObjectIn(testCase.input) ?? inputsFromMessage(flow.document, testCase.input)),
      );
    } else output = await runApp(ctx, target.appRun!, testCase.input, []);
  } catch (cause) {
    await billed.fail(cause);
    error = billed.outcome().error;
  }
  // The case is paid for already: a grader that fails marks its case, never the whole run.
  const grade = error ? { passed: false, reason: error } : await gradeCase(ctx, target.grader, testCase, output);
  if (!error) await billed.settle();
  // Settled as lost meanwhile (run-leases.ts): that settlement recorded the case failed and gave its credit back.
  const settled = billed.outcome().error === RUN_LOST.message;
  const execution = settled
    ? (billed.ended(), null)
    : await billed.record(actor, {
        kind: "test",
        itemId: runnable.id,
        itemKind: kind,
        versionId: runnable.versionId,
        latencyMs: performance.now() - started,
        input: testCase.input,
        output,
        trace: ctx.trace,
      });
  const lost = settled || execution?.error === RUN_LOST.message;
  const outcome = billed.outcome();
  return {
    passed: !lost && grade.passed,
    reason: lost ? RUN_LOST.message : grade.reason,
    output,
    error: lost ? RUN_LOST.message : error,
    executionId,
    latencyMs: Math.round(performance.now() - started),
    credits: lost ? 0 : outcome.credits,
    usage: outcome.usage,
  };
}

/**
 * Grades a case's output. Grading is a model call of the case, reserved, capped and charged as
 * its other calls are (billed-run.ts): a reservation the balance cannot hold leaves the case
 * ungraded (failed, the call not made), and the case pays what its calls cost.
 */
async function gradeCase(
  ctx: RunContext,
  grader: CaseTarget["grader"],
  testCase: { input: string; expected: string },
  output: string,
): Promise<Grade> {
  let maxOutputTokens: number | undefined;
  try {
    maxOutputTokens = await ctx.meter.reserve(
      grader.id,
      estimateTokens(testCase.input, testCase.expected, output),
      RUN_LIMITS.gradeOutputTokens,
    );
  } catch (cause) {
    // Not an AppError: the case was settled as lost meanwhile, which its outcome says.
    return {
      passed: false,
      reason: `The case was not graded: ${isAppError(cause) ? cause.message : RUN_LOST.message}`,
    };
  }
  return grader
    .grade({
      input: testCase.input,
      output,
      expectedBehavior: testCase.expected,
      maxOutputTokens,
      onUsage: (usage) => ctx.meter.record(grader, usage, "succeeded"),
    })
    .catch(() => ({
      passed: false,
      reason: "The model provider failed or timed out while grading this case; run the test again later.",
    }));
}

/** Graded runs need the quality checker in the organization's plan. */
export async function assertQualityChecker(db: Db, organizationId: string): Promise<void> {
  const organization = await db.organization.findUniqueOrThrow({
    where: { id: organizationId },
    select: { qualityChecker: true },
  });
  if (!organization.qualityChecker)
    throw new AppError("feature_not_available", "The organization's plan does not include the quality checker.");
}
