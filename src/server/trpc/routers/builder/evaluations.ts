// Evaluations of agents, flows and apps: datasets, background runs and their comparison. One
// factory, three routers; each procedure is one call into services/builder/eval-datasets.ts or
// evaluations.ts. The comparison has its own path segment, so no `{runId}` route can capture it.
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
import { groupedDigits } from "@/lib/digits";
import { router } from "../../init";
import { answeringAs, forKind, restProcedures } from "../../service-procedures";

function evaluationProcedures(kind: BuilderKind, plural: "agents" | "flows" | "apps") {
  const rest = restProcedures(plural[0]!.toUpperCase() + plural.slice(1));
  const path = (suffix: string) => `/${plural}/{id}${suffix}` as `/${string}`;
  return {
    importDataset: rest.mutation("POST", answeringAs("dataset", forKind(importDataset, kind)), {
      path: path("/datasets"),
      summary: `Import an evaluation dataset of the ${kind}`,
      description: `Up to ${groupedDigits(EVAL_LIMITS.cases)} cases, kept with the ${kind}; a bad line is \`invalid_request\` naming it (\`line\`), nothing written.`,
      successStatus: 201,
      errors: ["not_found"],
      input: ImportDatasetInput,
      output: EvalDatasetOutput,
    }),
    datasets: rest.query(forKind(listDatasets, kind), {
      path: path("/datasets"),
      summary: `List the ${kind}'s evaluation datasets`,
      errors: ["not_found"],
      input: ListDatasetsInput,
      output: ListDatasetsOutput,
    }),
    datasetCases: rest.query(forKind(listDatasetCases, kind), {
      path: path("/datasets/{datasetId}/cases"),
      summary: "A dataset's cases, in the file's order",
      errors: ["not_found"],
      input: DatasetCasesInput,
      output: DatasetCasesOutput,
    }),
    deleteDataset: rest.remove(forKind(deleteDataset, kind), {
      path: path("/datasets/{datasetId}"),
      summary: "Delete an evaluation dataset with its runs",
      description: "Answers 204.",
      errors: ["not_found"],
      input: DatasetInput,
    }),
    startRun: rest.mutation("POST", answeringAs("run", forKind(startEvalRun, kind)), {
      path: path("/evaluations"),
      summary: `Run a dataset against the ${kind}'s draft or a version`,
      description:
        "202: a background run; each case runs once and is graded against its `expectedBehavior`, charged as it runs (1 credit or its models' price). Needs the quality checker.",
      successStatus: 202,
      errors: ["feature_not_available", "not_found", "version_not_found"],
      input: StartEvalRunInput,
      output: EvalRunOutput,
    }),
    runs: rest.query(forKind(listEvalRuns, kind), {
      path: path("/evaluations"),
      summary: `List the ${kind}'s evaluation runs`,
      errors: ["not_found"],
      input: ListEvalRunsInput,
      output: ListEvalRunsOutput,
    }),
    run: rest.query(answeringAs("run", forKind(getEvalRun, kind)), {
      path: path("/evaluations/{runId}"),
      summary: "An evaluation run's progress and totals",
      errors: ["not_found"],
      input: EvalRunInput,
      output: EvalRunOutput,
    }),
    results: rest.query(forKind(listEvalResults, kind), {
      path: path("/evaluations/{runId}/results"),
      summary: "An evaluation run's results per case",
      description: "In the dataset's order after position `after`; `outcome` keeps passed or failed cases.",
      errors: ["not_found"],
      input: EvalRunResultsInput,
      output: EvalRunResultsOutput,
    }),
    compare: rest.query(forKind(compareEvalRuns, kind), {
      path: path("/evaluation-comparison"),
      summary: "Two evaluation runs of one dataset side by side",
      description: "Totals of both runs, their change, and the cases whose outcome changed.",
      errors: ["not_found"],
      input: CompareEvalRunsInput,
      output: EvalComparison,
    }),
  };
}

export const evaluationsRouter = router({
  agents: router(evaluationProcedures("agent", "agents")),
  flows: router(evaluationProcedures("flow", "flows")),
  apps: router(evaluationProcedures("app", "apps")),
});
