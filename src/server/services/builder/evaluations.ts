// Evaluations at scale. A dataset (up to 1,000 cases, imported whole from CSV or JSONL, refused
// whole naming the first bad line: eval-datasets.ts) is kept with its agent, flow or app; a run of it against the
// draft or a published version is a background job (src/server/jobs/evaluations.ts) whose cases
// are graded and billed as the Tests panel's are (services/builder/test-runs.ts runGradedCase); two runs
// of one dataset are compared case by case.
import type { z } from "zod";
import { randomUUID } from "node:crypto";
import type { BuilderKind } from "@/schemas/builder/builder";
import { isUuid } from "@/schemas/common";
import type {
  EvalRunSummary,
  StartEvalRunInput,
  ListEvalRunsInput,
  EvalRunInput,
  EvalRunResultsInput,
  CompareEvalRunsInput,
} from "@/schemas/builder/evaluations";
import type { Prisma } from "@/generated/prisma/client";
import { actorLabel, type Actor } from "@/server/auth/actor";
import { guardedByKind } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { readsKind, writesKind } from "../support/builder-kinds";
import { oldestFirst } from "../support/pagination";
import { assertQualityChecker, draftTarget } from "@/server/runtime/graded-case";
import { assertItem, findDataset } from "./evaluation-shared";

/** Each run's totals from its results, in one statement. */
async function runTotals(db: Db, runIds: string[]) {
  if (runIds.length === 0) return new Map<string, RunTotals>();
  const rows = await db.$queryRaw<(RunTotals & { runId: string })[]>`
    select run_id as "runId",
      count(*) filter (where status = 'done')::int as done,
      count(*) filter (where passed)::int as passed,
      coalesce(sum(credits), 0)::int as credits,
      coalesce(sum(input_tokens), 0)::int as "inputTokens",
      coalesce(sum(output_tokens), 0)::int as "outputTokens",
      (avg(latency_ms) filter (where status = 'done' and error is null))::int as "averageLatencyMs"
    from eval_results where run_id = any(${runIds}::uuid[]) group by run_id`;
  return new Map(rows.map((row) => [row.runId, row]));
}

interface RunTotals {
  done: number;
  passed: number;
  credits: number;
  inputTokens: number;
  outputTokens: number;
  averageLatencyMs: number | null;
}

type RunRow = Prisma.EvalRunGetPayload<{ include: { dataset: { select: { name: true } } } }>;

function toSummary(row: RunRow, totals: RunTotals | undefined): EvalRunSummary {
  const t = totals ?? { done: 0, passed: 0, credits: 0, inputTokens: 0, outputTokens: 0, averageLatencyMs: null };
  return {
    id: row.id,
    itemId: row.itemId,
    datasetId: row.datasetId,
    datasetName: row.dataset.name,
    versionId: row.versionId,
    versionNumber: row.versionNumber,
    status: row.status as EvalRunSummary["status"],
    total: row.total,
    done: t.done,
    passed: t.passed,
    failed: t.done - t.passed,
    passRate: t.done === 0 ? null : t.passed / t.done,
    credits: t.credits,
    inputTokens: t.inputTokens,
    outputTokens: t.outputTokens,
    averageLatencyMs: t.averageLatencyMs,
    startedBy: row.actorLabel,
    createdAt: row.createdAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}

async function summaries(db: Db, rows: RunRow[]): Promise<EvalRunSummary[]> {
  const totals = await runTotals(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toSummary(row, totals.get(row.id)));
}

async function findRun(db: Db, actor: Actor, kind: BuilderKind, id: string, runId: string): Promise<RunRow> {
  await assertItem(db, actor.organizationId, kind, id);
  const row = await db.evalRun.findFirst({
    where: { id: runId, organizationId: actor.organizationId, itemId: id },
    include: { dataset: { select: { name: true } } },
  });
  if (!row) throw new AppError("not_found", "No evaluation run with that id.");
  return row;
}

/**
 * Queues a run of the dataset against the draft or a version of the item: one pending result per
 * case, written with the run in one transaction; the background job takes it from there. Each
 * case is charged as it runs (1 credit, or its models' price), so a balance that runs out fails
 * the remaining cases with `insufficient_credits` and charges them nothing.
 */
export const startEvalRun = guardedByKind(
  writesKind,
  async function startEvalRun(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    input: z.infer<typeof StartEvalRunInput>,
  ): Promise<EvalRunSummary> {
    await assertQualityChecker(db, actor.organizationId);
    const dataset = await findDataset(db, actor.organizationId, kind, input.id, input.datasetId);
    let version: { id: string; number: number } | null = null;
    if (input.version !== undefined) {
      version = isUuid(input.version)
        ? await db.builderVersion.findFirst({
            where: { id: input.version.toLowerCase(), itemId: input.id, organizationId: actor.organizationId },
            select: { id: true, number: true },
          })
        : null;
      if (!version) throw new AppError("version_not_found", `The ${kind} has no version with that id.`);
    }
    // A draft run runs the draft as it is now, refused now if it cannot run (invalid_workflow,
    // unpublished_dependencies), and keeps it, so edits made meanwhile do not change the run.
    const draft = version ? null : (await draftTarget(db, actor, kind, input.id)).runnable.document;
    const runId = randomUUID();
    await db.$transaction(async (tx) => {
      await tx.evalRun.create({
        data: {
          id: runId,
          organizationId: actor.organizationId,
          itemId: input.id,
          itemKind: kind,
          datasetId: dataset.id,
          versionId: version?.id ?? null,
          versionNumber: version?.number ?? null,
          draft: draft === null ? undefined : (draft as Prisma.InputJsonValue),
          total: dataset.caseCount,
          // The job runs the cases as the member or key that started them (their executions say so).
          actor: { ...actor, origin: actor.origin ? { ...actor.origin, requestId: null } : undefined } as object,
          actorLabel: actorLabel(actor),
        },
      });
      await tx.$executeRaw`
        insert into eval_results (id, run_id, case_id, position)
        select gen_random_uuid(), ${runId}::uuid, c.id, c.position from eval_cases c where c.dataset_id = ${dataset.id}::uuid`;
    });
    return (await summaries(db, [await findRun(db, actor, kind, input.id, runId)]))[0]!;
  },
);

export const listEvalRuns = guardedByKind(
  readsKind,
  async function listEvalRuns(db: Db, actor: Actor, kind: BuilderKind, input: z.infer<typeof ListEvalRunsInput>) {
    await assertItem(db, actor.organizationId, kind, input.id);
    const page = await oldestFirst(input, (after, window) =>
      db.evalRun.findMany({
        where: { organizationId: actor.organizationId, itemId: input.id, ...after },
        include: { dataset: { select: { name: true } } },
        ...window,
      }),
    );
    return { runs: await summaries(db, page.items), nextCursor: page.nextCursor };
  },
);

export const getEvalRun = guardedByKind(
  readsKind,
  async function getEvalRun(db: Db, actor: Actor, kind: BuilderKind, input: z.infer<typeof EvalRunInput>) {
    return (await summaries(db, [await findRun(db, actor, kind, input.id, input.runId)]))[0]!;
  },
);

const RESULT_SELECT = {
  caseId: true,
  position: true,
  status: true,
  passed: true,
  output: true,
  reason: true,
  error: true,
  credits: true,
  inputTokens: true,
  outputTokens: true,
  latencyMs: true,
  executionId: true,
  evalCase: { select: { externalId: true, input: true, expectedBehavior: true } },
} as const;

export const listEvalResults = guardedByKind(
  readsKind,
  async function listEvalResults(db: Db, actor: Actor, kind: BuilderKind, input: z.infer<typeof EvalRunResultsInput>) {
    await findRun(db, actor, kind, input.id, input.runId);
    const rows = await db.evalResult.findMany({
      where: {
        runId: input.runId,
        position: { gt: input.after },
        ...(input.outcome ? { status: "done", passed: input.outcome === "passed" } : {}),
      },
      orderBy: { position: "asc" },
      take: input.limit + 1,
      select: RESULT_SELECT,
    });
    const page = rows.slice(0, input.limit);
    return {
      results: page.map(({ evalCase, status, ...row }) => ({
        ...row,
        ...evalCase,
        status: status as "pending" | "running" | "done",
      })),
      nextAfter: rows.length > input.limit ? page[page.length - 1]!.position : null,
    };
  },
);

export const compareEvalRuns = guardedByKind(
  readsKind,
  async function compareEvalRuns(db: Db, actor: Actor, kind: BuilderKind, input: z.infer<typeof CompareEvalRunsInput>) {
    const [baseRow, candidateRow] = [
      await findRun(db, actor, kind, input.id, input.base),
      await findRun(db, actor, kind, input.id, input.candidate),
    ];
    if (baseRow.datasetId !== candidateRow.datasetId)
      throw new AppError("invalid_request", "Invalid request: the two runs are of different datasets.", {
        problems: [{ path: "candidate", message: "a run of the same dataset as base" }],
      });
    const [base, candidate] = await summaries(db, [baseRow, candidateRow]);
    const side = { passed: true, output: true, latencyMs: true, credits: true } as const;
    const [before, after] = await Promise.all(
      [baseRow.id, candidateRow.id].map((runId) =>
        db.evalResult.findMany({
          where: { runId, status: "done" },
          select: { caseId: true, position: true, ...side, evalCase: { select: { input: true } } },
        }),
      ),
    );
    const byCase = new Map(before!.map((row) => [row.caseId, row]));
    const changed = after!
      .flatMap((now) => {
        const then = byCase.get(now.caseId);
        if (!then || Boolean(then.passed) === Boolean(now.passed)) return [];
        const pick = (row: typeof now) => ({
          passed: row.passed,
          output: row.output,
          latencyMs: row.latencyMs,
          credits: row.credits,
        });
        return [
          {
            caseId: now.caseId,
            position: now.position,
            input: now.evalCase.input,
            change: now.passed ? ("fixed" as const) : ("broken" as const),
            base: pick(then),
            candidate: pick(now),
          },
        ];
      })
      .sort((a, b) => a.position - b.position);
    return {
      base: base!,
      candidate: candidate!,
      passRateChange:
        base!.passRate === null || candidate!.passRate === null ? null : candidate!.passRate - base!.passRate,
      creditsChange: candidate!.credits - base!.credits,
      averageLatencyChange:
        base!.averageLatencyMs === null || candidate!.averageLatencyMs === null
          ? null
          : candidate!.averageLatencyMs - base!.averageLatencyMs,
      changed,
    };
  },
);
