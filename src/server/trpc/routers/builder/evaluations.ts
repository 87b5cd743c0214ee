// Evaluations of agents, flows and apps: datasets, background runs and their comparison. One
// factory, three routers; each procedure is one call into services/builder/eval-datasets.ts or
// evaluations.ts. The comparison has its own path segment, so no `{runId}` route can capture it.
import { z } from "zod";
import type { BuilderKind } from "@/schemas/builder/builder";
import {
  CompareEvalRunsInput,
  DatasetCasesInput,
  DatasetCasesOutput,
  DatasetInput,
  EvalComparison,
  EvalRunInput,
  EvalRunResultsInput,
  EvalRunResultsOutput,
  EVAL_LIMITS,
  ImportDatasetInput,
  ListDatasetsInput,
  ListDatasetsOutput,
  ListEvalRunsInput,
  ListEvalRunsOutput,
  StartEvalRunInput,
  EvalDatasetOutput,
  EvalRunOutput,
} from "@/schemas/builder/evaluations";
import { deleteDataset, importDataset, listDatasetCases, listDatasets } from "@/server/services/builder/eval-datasets";
import {
  compareEvalRuns,
  getEvalRun,
  listEvalResults,
  listEvalRuns,
  startEvalRun,
} from "@/server/services/builder/evaluations";
import { router, scopedProcedure } from "../../init";

function evaluationProcedures(kind: BuilderKind, plural: "agents" | "flows" | "apps") {
  const tags = [plural[0]!.toUpperCase() + plural.slice(1)];
  const path = (suffix: string) => `/${plural}/{id}${suffix}` as `/${string}`;
  return {
    importDataset: scopedProcedure(importDataset.requirementFor(kind))
      .meta({
        openapi: {
          method: "POST",
          path: path("/datasets"),
          tags,
          summary: `Import an evaluation dataset of the ${kind}`,
          description: `Up to ${EVAL_LIMITS.cases.toLocaleString("en")} cases, kept with the ${kind}; a bad line is \`invalid_request\` naming it (\`line\`), nothing written.`,
        },
        successStatus: 201,
        errors: ["not_found"],
      })
      .input(ImportDatasetInput)
      .output(EvalDatasetOutput)
      .mutation(async ({ ctx, input }) => {
        const dataset = await importDataset(ctx.db, ctx.actor, kind, input);
        ctx.response.status = 201;
        return { dataset };
      }),
    datasets: scopedProcedure(listDatasets.requirementFor(kind))
      .meta({
        openapi: { method: "GET", path: path("/datasets"), tags, summary: `List the ${kind}'s evaluation datasets` },
        errors: ["not_found"],
      })
      .input(ListDatasetsInput)
      .output(ListDatasetsOutput)
      .query(({ ctx, input }) => listDatasets(ctx.db, ctx.actor, kind, input)),
    datasetCases: scopedProcedure(listDatasetCases.requirementFor(kind))
      .meta({
        openapi: {
          method: "GET",
          path: path("/datasets/{datasetId}/cases"),
          tags,
          summary: "A dataset's cases, in the file's order",
        },
        errors: ["not_found"],
      })
      .input(DatasetCasesInput)
      .output(DatasetCasesOutput)
      .query(({ ctx, input }) => listDatasetCases(ctx.db, ctx.actor, kind, input)),
    deleteDataset: scopedProcedure(deleteDataset.requirementFor(kind))
      .meta({
        openapi: {
          method: "DELETE",
          path: path("/datasets/{datasetId}"),
          tags,
          summary: "Delete an evaluation dataset with its runs",
          description: "Answers 204.",
        },
        successStatus: 204,
        errors: ["not_found"],
      })
      .input(DatasetInput)
      .output(z.void())
      .mutation(async ({ ctx, input }) => {
        await deleteDataset(ctx.db, ctx.actor, kind, input);
        ctx.response.status = 204;
      }),
    startRun: scopedProcedure(startEvalRun.requirementFor(kind))
      .meta({
        openapi: {
          method: "POST",
          path: path("/evaluations"),
          tags,
          summary: `Run a dataset against the ${kind}'s draft or a version`,
          description:
            "202: a background run; each case runs once and is graded against its `expectedBehavior`, charged as it runs (1 credit or its models' price). Needs the quality checker.",
        },
        successStatus: 202,
        errors: ["feature_not_available", "not_found", "version_not_found"],
      })
      .input(StartEvalRunInput)
      .output(EvalRunOutput)
      .mutation(async ({ ctx, input }) => {
        const run = await startEvalRun(ctx.db, ctx.actor, kind, input);
        ctx.response.status = 202;
        return { run };
      }),
    runs: scopedProcedure(listEvalRuns.requirementFor(kind))
      .meta({
        openapi: { method: "GET", path: path("/evaluations"), tags, summary: `List the ${kind}'s evaluation runs` },
        errors: ["not_found"],
      })
      .input(ListEvalRunsInput)
      .output(ListEvalRunsOutput)
      .query(({ ctx, input }) => listEvalRuns(ctx.db, ctx.actor, kind, input)),
    run: scopedProcedure(getEvalRun.requirementFor(kind))
      .meta({
        openapi: {
          method: "GET",
          path: path("/evaluations/{runId}"),
          tags,
          summary: "An evaluation run's progress and totals",
        },
        errors: ["not_found"],
      })
      .input(EvalRunInput)
      .output(EvalRunOutput)
      .query(async ({ ctx, input }) => ({ run: await getEvalRun(ctx.db, ctx.actor, kind, input) })),
    results: scopedProcedure(listEvalResults.requirementFor(kind))
      .meta({
        openapi: {
          method: "GET",
          path: path("/evaluations/{runId}/results"),
          tags,
          summary: "An evaluation run's results per case",
          description: "In the dataset's order after position `after`; `outcome` keeps passed or failed cases.",
        },
        errors: ["not_found"],
      })
      .input(EvalRunResultsInput)
      .output(EvalRunResultsOutput)
      .query(({ ctx, input }) => listEvalResults(ctx.db, ctx.actor, kind, input)),
    compare: scopedProcedure(compareEvalRuns.requirementFor(kind))
      .meta({
        openapi: {
          method: "GET",
          path: path("/evaluation-comparison"),
          tags,
          summary: "Two evaluation runs of one dataset side by side",
          description: "Totals of both runs, their change, and the cases whose outcome changed.",
        },
        errors: ["not_found"],
      })
      .input(CompareEvalRunsInput)
      .output(EvalComparison)
      .query(({ ctx, input }) => compareEvalRuns(ctx.db, ctx.actor, kind, input)),
  };
}

export const evaluationsRouter = router({
  agents: router(evaluationProcedures("agent", "agents")),
  flows: router(evaluationProcedures("flow", "flows")),
  apps: router(evaluationProcedures("app", "apps")),
});
