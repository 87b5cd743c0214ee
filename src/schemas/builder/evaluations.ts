// Evaluations at scale: datasets of up to 1,000 cases imported from CSV or JSONL and kept with
// their agent, flow or app; runs of a dataset against the draft or a version, in the background;
// two runs compared side by side. The service is src/server/services/builder/evaluations.ts.
import { z } from "zod";
import { ListQuery, nameText, NextCursor, Timestamp, Uuid } from "../common";

/** Bounds of an import; a file past one is refused whole, nothing written. */
export const EVAL_LIMITS = {
  fileBytes: 2 * 1024 * 1024,
  cases: 1_000,
  inputChars: 8_000,
  expectedChars: 4_000,
  idChars: 100,
  datasetsPerItem: 50,
} as const;

export const EVAL_FORMATS = ["csv", "jsonl"] as const;

export const ImportDatasetInput = z.strictObject({
  id: Uuid.meta({ description: "The agent, flow or app" }),
  name: nameText,
  format: z.enum(EVAL_FORMATS),
  content: z.string().meta({
    description: `The file's text (at most ${EVAL_LIMITS.fileBytes / 1024 / 1024} MiB as UTF-8, ${EVAL_LIMITS.cases} cases). CSV: a header row naming \`input\` and optionally \`expectedBehavior\` (or \`expected\`) and \`id\`. JSONL: one object per line with \`input\` and optionally \`expectedBehavior\` and \`id\`. A malformed line is \`invalid_request\` naming it (\`line\`); nothing is written`,
  }),
});

export const EvalDataset = z
  .object({
    id: Uuid,
    itemId: Uuid,
    itemKind: z.enum(["agent", "flow", "app"]),
    name: z.string(),
    format: z.enum(EVAL_FORMATS),
    caseCount: z.number().int(),
    createdBy: z.string(),
    createdAt: Timestamp,
  })
  .meta({ id: "EvalDataset" });
export type EvalDataset = z.infer<typeof EvalDataset>;

export const EvalCase = z
  .object({
    id: Uuid,
    position: z.number().int(),
    externalId: z.string(),
    input: z.string(),
    expectedBehavior: z.string(),
  })
  .meta({ id: "EvalCase" });

export const ListDatasetsInput = ListQuery.extend({ id: Uuid });
export const ListDatasetsOutput = z.object({ datasets: z.array(EvalDataset), nextCursor: NextCursor });
export const DatasetInput = z.strictObject({ id: Uuid, datasetId: Uuid });
export const DatasetCasesInput = ListQuery.extend({ id: Uuid, datasetId: Uuid });
export const DatasetCasesOutput = z.object({ cases: z.array(EvalCase), nextCursor: NextCursor });

export const StartEvalRunInput = z.strictObject({
  id: Uuid,
  datasetId: Uuid,
  version: Uuid.optional().meta({ description: "A version id of the item; omitted: the draft" }),
});

export const EvalRunSummary = z
  .object({
    id: Uuid,
    itemId: Uuid,
    datasetId: Uuid,
    datasetName: z.string(),
    versionId: Uuid.nullable().meta({ description: "null: the draft as it was when each case ran" }),
    versionNumber: z.number().int().nullable(),
    status: z.enum(["queued", "running", "completed"]),
    total: z.number().int(),
    done: z.number().int(),
    passed: z.number().int(),
    failed: z.number().int(),
    passRate: z.number().nullable().meta({ description: "passed / done, 0 to 1; null before any case is done" }),
    credits: z.number().int(),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    averageLatencyMs: z.number().int().nullable(),
    startedBy: z.string(),
    createdAt: Timestamp,
    finishedAt: Timestamp.nullable(),
  })
  .meta({ id: "EvalRun" });
export type EvalRunSummary = z.infer<typeof EvalRunSummary>;

export const EvalCaseResult = z
  .object({
    caseId: Uuid,
    position: z.number().int(),
    externalId: z.string(),
    input: z.string(),
    expectedBehavior: z.string(),
    status: z.enum(["pending", "running", "done"]),
    passed: z.boolean().nullable(),
    output: z.string(),
    reason: z.string(),
    error: z.string().nullable(),
    credits: z.number().int(),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    latencyMs: z.number().int(),
    executionId: Uuid.nullable(),
  })
  .meta({ id: "EvalCaseResult" });

export const EvalRunInput = z.strictObject({ id: Uuid, runId: Uuid });
export const EvalRunResultsInput = EvalRunInput.extend({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  after: z.coerce.number().int().min(0).default(0).meta({ description: "Cases after this position" }),
  outcome: z.enum(["passed", "failed"]).optional(),
});
export const EvalRunResultsOutput = z
  .object({ results: z.array(EvalCaseResult), nextAfter: z.number().int().nullable() })
  .meta({ id: "EvalResultList" });
export const ListEvalRunsInput = ListQuery.extend({ id: Uuid });
export const ListEvalRunsOutput = z
  .object({ runs: z.array(EvalRunSummary), nextCursor: NextCursor })
  .meta({ id: "EvalRunList" });

export const CompareEvalRunsInput = z.strictObject({
  id: Uuid,
  base: Uuid.meta({ description: "A run of the item" }),
  candidate: Uuid.meta({ description: "Another run of the item over the same dataset" }),
});

const CaseSide = z.object({
  passed: z.boolean().nullable(),
  output: z.string(),
  latencyMs: z.number().int(),
  credits: z.number().int(),
});
export const EvalComparison = z
  .object({
    base: EvalRunSummary,
    candidate: EvalRunSummary,
    passRateChange: z.number().nullable(),
    creditsChange: z.number().int(),
    averageLatencyChange: z.number().int().nullable(),
    changed: z
      .array(
        z.object({
          caseId: Uuid,
          position: z.number().int(),
          input: z.string(),
          change: z.enum(["fixed", "broken"]),
          base: CaseSide,
          candidate: CaseSide,
        }),
      )
      .meta({ description: "Cases done in both runs whose outcome differs: `fixed` now passes, `broken` now fails" }),
  })
  .meta({ id: "EvalComparison" });

export const EvalDatasetOutput = z.object({ dataset: EvalDataset });
export const EvalRunOutput = z.object({ run: EvalRunSummary });
