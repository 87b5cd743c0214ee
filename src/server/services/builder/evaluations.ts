// Evaluations at scale. A dataset (up to 1,000 cases, imported whole from CSV or JSONL, refused
// whole naming the first bad line) is kept with its agent, flow or app; a run of it against the
// draft or a published version is a background job (src/server/jobs/evaluations.ts) whose cases
// are graded and billed as the Tests panel's are (services/builder/test-runs.ts runGradedCase); two runs
// of one dataset are compared case by case.
import { randomUUID } from "node:crypto";
import type { BuilderKind } from "@/schemas/builder/builder";
import { isUuid } from "@/schemas/common";
import { EVAL_LIMITS, type EvalDataset, type EvalRunSummary, type EVAL_FORMATS } from "@/schemas/builder/evaluations";
import { isStorableText } from "@/schemas/text";
import type { Prisma } from "@/generated/prisma/client";
import { actorLabel, type Actor } from "@/server/auth/actor";
import { guardedByKind } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { recorded } from "../org/events";
import { readsKind, writesKind } from "../support/builder-kinds";
import { afterCursor, CURSOR_ORDER, toPage } from "../support/pagination";
import { assertQualityChecker, draftTarget } from "@/server/runtime/graded-case";

export interface ParsedCase {
  line: number;
  externalId: string;
  input: string;
  expectedBehavior: string;
}

/** A refusal of the file, naming the line (1-based) it is about; nothing is written. */
function badLine(line: number, message: string): AppError {
  return new AppError("invalid_request", `Invalid request: line ${line}: ${message}`, {
    line,
    problems: [{ path: "content", message: `line ${line}: ${message}` }],
  });
}

const COLUMN_NAMES: Record<string, keyof Omit<ParsedCase, "line">> = {
  input: "input",
  expectedbehavior: "expectedBehavior",
  expected_behavior: "expectedBehavior",
  expected: "expectedBehavior",
  id: "externalId",
};

function lineOf(content: string, offset: number): number {
  let line = 1;
  for (let i = content.indexOf("\n"); i !== -1 && i < offset; i = content.indexOf("\n", i + 1)) line++;
  return line;
}

/** One case's fields held to their bounds. */
function checkedCase(line: number, fields: Partial<Omit<ParsedCase, "line">>): ParsedCase {
  const input = fields.input ?? "";
  const expectedBehavior = fields.expectedBehavior ?? "";
  const externalId = fields.externalId ?? "";
  if (input.trim() === "") throw badLine(line, "`input` is empty.");
  const bounds = [
    ["input", input, EVAL_LIMITS.inputChars],
    ["expectedBehavior", expectedBehavior, EVAL_LIMITS.expectedChars],
    ["id", externalId, EVAL_LIMITS.idChars],
  ] as const;
  for (const [name, value, max] of bounds) {
    if (value.length > max) throw badLine(line, `\`${name}\` is over ${max.toLocaleString("en")} characters.`);
    if (!isStorableText(value)) throw badLine(line, `\`${name}\` holds text that cannot be stored.`);
  }
  return { line, input, expectedBehavior, externalId };
}

function tooManyCases(line: number): AppError {
  return badLine(line, `the file has more than ${EVAL_LIMITS.cases.toLocaleString("en")} cases.`);
}

async function parseCsv(content: string): Promise<ParsedCase[]> {
  const { default: Papa } = await import("papaparse");
  const rows: { line: number; fields: string[]; error: string | null }[] = [];
  let start = 0;
  Papa.parse<string[]>(content, {
    // Named, never guessed: a one-column file has no delimiter to detect.
    delimiter: ",",
    skipEmptyLines: false,
    step: (result) => {
      // A row begins after the line break that ended the previous one.
      let at = start;
      while (content[at] === "\r" || content[at] === "\n") at++;
      rows.push({ line: lineOf(content, at), fields: result.data, error: result.errors[0]?.message ?? null });
      start = result.meta.cursor;
    },
  });
  const filled = rows.filter((row) => row.error || row.fields.some((field) => field.trim() !== ""));
  const header = filled.shift();
  if (!header)
    throw badLine(1, "the file is empty; the first line names the columns (`input`, `expectedBehavior`, `id`).");
  if (header.error) throw badLine(header.line, header.error);
  const columns = header.fields.map((name) => {
    const column = COLUMN_NAMES[name.trim().toLowerCase()];
    if (!column) throw badLine(header.line, `unknown column "${name.trim()}" (use input, expectedBehavior, id).`);
    return column;
  });
  if (!columns.includes("input")) throw badLine(header.line, "no `input` column.");
  if (new Set(columns).size !== columns.length) throw badLine(header.line, "a column is named twice.");
  const cases: ParsedCase[] = [];
  for (const row of filled) {
    if (row.error) throw badLine(row.line, `${row.error}.`);
    if (row.fields.length !== columns.length)
      throw badLine(row.line, `${row.fields.length} fields where the header names ${columns.length}.`);
    if (cases.length === EVAL_LIMITS.cases) throw tooManyCases(row.line);
    cases.push(checkedCase(row.line, Object.fromEntries(columns.map((column, i) => [column, row.fields[i]]))));
  }
  return cases;
}

function parseJsonl(content: string): ParsedCase[] {
  const cases: ParsedCase[] = [];
  for (const [index, text] of content.split("\n").entries()) {
    const line = index + 1;
    if (text.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw badLine(line, "not a JSON object.");
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw badLine(line, "not a JSON object.");
    const fields: Partial<Omit<ParsedCase, "line">> = {};
    for (const [key, field] of Object.entries(value)) {
      const column = COLUMN_NAMES[key.toLowerCase()];
      if (!column) throw badLine(line, `unknown field "${key.slice(0, 100)}" (use input, expectedBehavior, id).`);
      if (typeof field !== "string" && !(column === "externalId" && typeof field === "number"))
        throw badLine(line, `\`${key}\` is not a string.`);
      fields[column] = String(field);
    }
    if (cases.length === EVAL_LIMITS.cases) throw tooManyCases(line);
    cases.push(checkedCase(line, fields));
  }
  return cases;
}

/** The file's cases, or the refusal naming its first bad line; the whole file is read before anything is written. */
export async function parseDataset(format: (typeof EVAL_FORMATS)[number], content: string): Promise<ParsedCase[]> {
  if (Buffer.byteLength(content, "utf8") > EVAL_LIMITS.fileBytes)
    throw new AppError(
      "invalid_request",
      `Invalid request: the file is over ${EVAL_LIMITS.fileBytes / 1024 / 1024} MiB.`,
      { problems: [{ path: "content", message: "too large" }] },
      { status: 413 },
    );
  const nul = content.indexOf("\u0000");
  if (nul !== -1) throw badLine(lineOf(content, nul), "holds a NUL byte.");
  const cases = format === "csv" ? await parseCsv(content) : parseJsonl(content);
  if (cases.length === 0) throw badLine(1, "the file has no cases.");
  return cases;
}

function notFound(kind: BuilderKind): AppError {
  return new AppError("not_found", `No ${kind} with that id.`);
}

function datasetNotFound(): AppError {
  return new AppError("not_found", "No dataset with that id.");
}

async function assertItem(db: Db, actor: Actor, kind: BuilderKind, id: string): Promise<{ name: string }> {
  const item = await db.builderItem.findFirst({
    where: { id, organizationId: actor.organizationId, kind },
    select: { draft: true },
  });
  if (!item) throw notFound(kind);
  return { name: String((item.draft as { name?: unknown }).name ?? "") };
}

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
    input: { id: string; name: string; format: (typeof EVAL_FORMATS)[number]; content: string },
  ): Promise<EvalDataset> {
    const item = await assertItem(db, actor, kind, input.id);
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
  async function listDatasets(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    input: { id: string; limit: number; cursor?: string },
  ) {
    await assertItem(db, actor, kind, input.id);
    const rows = await db.evalDataset.findMany({
      where: { organizationId: actor.organizationId, itemId: input.id, ...afterCursor(input.cursor) },
      orderBy: CURSOR_ORDER,
      take: input.limit + 1,
    });
    const page = toPage(rows, input.limit);
    return { datasets: page.items.map(toDataset), nextCursor: page.nextCursor };
  },
);

async function findDataset(db: Db, actor: Actor, kind: BuilderKind, id: string, datasetId: string) {
  await assertItem(db, actor, kind, id);
  const row = await db.evalDataset.findFirst({
    where: { id: datasetId, organizationId: actor.organizationId, itemId: id },
  });
  if (!row) throw datasetNotFound();
  return row;
}

export const listDatasetCases = guardedByKind(
  readsKind,
  async function listDatasetCases(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    input: { id: string; datasetId: string; limit: number; cursor?: string },
  ) {
    await findDataset(db, actor, kind, input.id, input.datasetId);
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
    input: { id: string; datasetId: string },
  ): Promise<void> {
    const item = await assertItem(db, actor, kind, input.id);
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

// ---------------------------------------------------------------------------------------------
// Runs

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
  await assertItem(db, actor, kind, id);
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
    input: { id: string; datasetId: string; version?: string },
  ): Promise<EvalRunSummary> {
    await assertQualityChecker(db, actor.organizationId);
    const dataset = await findDataset(db, actor, kind, input.id, input.datasetId);
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
  async function listEvalRuns(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    input: { id: string; limit: number; cursor?: string },
  ) {
    await assertItem(db, actor, kind, input.id);
    const rows = await db.evalRun.findMany({
      where: { organizationId: actor.organizationId, itemId: input.id, ...afterCursor(input.cursor) },
      orderBy: CURSOR_ORDER,
      take: input.limit + 1,
      include: { dataset: { select: { name: true } } },
    });
    const page = toPage(rows, input.limit);
    return { runs: await summaries(db, page.items), nextCursor: page.nextCursor };
  },
);

export const getEvalRun = guardedByKind(
  readsKind,
  async function getEvalRun(db: Db, actor: Actor, kind: BuilderKind, input: { id: string; runId: string }) {
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
  async function listEvalResults(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    input: { id: string; runId: string; limit: number; after: number; outcome?: "passed" | "failed" },
  ) {
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
  async function compareEvalRuns(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    input: { id: string; base: string; candidate: string },
  ) {
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
