"use client";
// Graded test runs of the draft: up to 10 cases (input + expected behaviour), an optional
// rubric, Run, and each case's pass/fail with the output, the failures and where to fix them.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { errorMessage, useTRPC } from "@/lib/trpc";
import type { TestRunResult, TestSuite } from "@/schemas/runs/runtime";
import { TraceDetails, formatMs } from "@/components/runtime/execution-trace";
import { ONE, type KindPlural } from "./use-draft-editor";
import { Button, DataTable, ErrorAlert, FormField, LoadMore, Panel, useCursorList, When } from "@/components/console";

const MAX_CASES = 10;
/** Earlier runs read per page; "Load more" reads the next. */
const RUNS_PAGE = 50;

interface CaseRow {
  input: string;
  expectedBehavior: string;
}

type Run = TestRunResult & { id: string; createdAt: string };

type KindTestProcedures = ReturnType<typeof useTRPC>["runtime"]["agentTests"];

export function TestsPanel({ kind, id }: { kind: KindPlural; id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const procs: KindTestProcedures =
    kind === "agents" ? trpc.runtime.agentTests : kind === "flows" ? trpc.runtime.flowTests : trpc.runtime.appTests;
  const [cases, setCases] = useState<CaseRow[]>([{ input: "", expectedBehavior: "" }]);
  const [rubric, setRubric] = useState("");
  const [latest, setLatest] = useState<Run | null>(null);
  // The kept suite fills the panel when it arrives, unless the builder has already started typing.
  const suiteSaved = useKeptSuite(procs, id, cases, rubric, (kept) => {
    setCases((current) =>
      current.some((c) => c.input.trim() !== "" || c.expectedBehavior.trim() !== "")
        ? current
        : kept.cases.length > 0
          ? kept.cases
          : [{ input: "", expectedBehavior: "" }],
    );
    setRubric((current) => (current.trim() !== "" ? current : kept.rubric));
  });
  // Oldest first from the server, a page at a time; shown newest first.
  const runs = useCursorList(
    (cursor) => procs.list.queryOptions({ id, limit: RUNS_PAGE, ...(cursor ? { cursor } : {}) }),
    (page) => page.testRuns,
  );
  const run = useMutation(
    procs.run.mutationOptions({
      onSuccess: (result) => {
        setLatest(result);
        void queryClient.invalidateQueries({ queryKey: procs.list.queryKey() });
      },
    }),
  );
  const filled = cases.filter((c) => c.input.trim() !== "");
  const edit = (index: number, changes: Partial<CaseRow>) =>
    setCases((current) => current.map((c, i) => (i === index ? { ...c, ...changes } : c)));
  const previous = runs.items.filter((r) => r.id !== latest?.id).sort((a, b) => b.createdAt.localeCompare(a.createdAt));

  return (
    <Panel title="Tests" label="Tests">
      <p className="muted">
        Each case runs against this {ONE[kind]}&apos;s draft and is graded against its expected behaviour (or the
        rubric, when given). 1 credit per case. For up to 1,000 cases from a CSV or JSONL file, run in the background
        against any version, use <Link href={`/${kind}/${id}/evaluations`}>Evaluations</Link>.
      </p>
      <div style={{ display: "grid", gap: "0.5rem" }}>
        {cases.map((c, index) => (
          <div key={index} className="test-case">
            <FormField label={`Case ${index + 1} input`}>
              <textarea
                rows={2}
                value={c.input}
                onChange={(e) => edit(index, { input: e.target.value })}
                placeholder={kind === "flows" ? "Text, or a JSON object of inputs" : "What someone asks"}
              />
            </FormField>
            <FormField label={`Case ${index + 1} expected behaviour`}>
              <textarea
                rows={2}
                value={c.expectedBehavior}
                onChange={(e) => edit(index, { expectedBehavior: e.target.value })}
                placeholder="e.g. Says refunds take 14 days"
              />
            </FormField>
            <button
              type="button"
              aria-label={`Remove case ${index + 1}`}
              disabled={cases.length === 1}
              onClick={() => setCases(cases.filter((_, i) => i !== index))}
              style={{ marginTop: "1.4rem" }}
            >
              ✕
            </button>
          </div>
        ))}
      </div>
      <div className="row" style={{ margin: "0.75rem 0" }}>
        <button
          type="button"
          disabled={cases.length >= MAX_CASES}
          onClick={() => setCases([...cases, { input: "", expectedBehavior: "" }])}
        >
          Add case
        </button>
        <span className="muted">
          {cases.length} of {MAX_CASES}
        </span>
        <span className="muted" data-testid="cases-saved" aria-live="polite">
          {suiteSaved}
        </span>
      </div>
      <FormField label="Rubric (optional)">
        <textarea
          rows={2}
          value={rubric}
          onChange={(e) => setRubric(e.target.value)}
          placeholder="Graded against instead of each case's expected behaviour"
        />
      </FormField>
      <div className="row" style={{ marginTop: "0.75rem" }}>
        <Button
          variant="primary"
          disabled={run.isPending || filled.length === 0}
          onClick={() =>
            run.mutate({
              id,
              cases: filled.map((c) => ({ input: c.input, expectedBehavior: c.expectedBehavior })),
              ...(rubric.trim() ? { rubric } : {}),
            })
          }
        >
          {run.isPending ? "Running…" : `Run ${filled.length} case${filled.length === 1 ? "" : "s"}`}
        </Button>
      </div>
      <ErrorAlert error={run.error} />
      {latest && <RunResults run={latest} />}
      <h3>Previous runs</h3>
      <ErrorAlert error={runs.error} />
      {runs.isLoaded && previous.length === 0 && <p className="muted">No earlier runs.</p>}
      {previous.map((r) => (
        <details key={r.id}>
          <summary>
            <When at={r.createdAt} /> — {r.summary.passed}/{r.summary.total} passed
          </summary>
          <RunResults run={r} />
        </details>
      ))}
      <LoadMore list={runs} />
    </Panel>
  );
}

const KEEP_MS = 800;

/**
 * Loads the cases kept with the item once, then keeps each edit (debounced), so they are there
 * when the editor opens again. Returns what to tell the builder about it.
 */
function useKeptSuite(
  procs: KindTestProcedures,
  id: string,
  cases: CaseRow[],
  rubric: string,
  onLoaded: (suite: TestSuite) => void,
): string {
  const suite = useQuery(procs.suite.queryOptions({ id }, { staleTime: 0 }));
  const save = useMutation(procs.saveSuite.mutationOptions());
  // The suite as the server last holds it (JSON); null until it is first read, when the cases start from it.
  const [lastKept, setLastKept] = useState<string | null>(null);
  const loaded = lastKept !== null;
  if (suite.data && !loaded) {
    setLastKept(JSON.stringify(suite.data));
    onLoaded(suite.data);
  }
  const wanted: TestSuite = {
    cases: cases.filter((c) => c.input.trim() !== "" || c.expectedBehavior.trim() !== ""),
    rubric,
  };
  const wantedText = JSON.stringify(wanted);
  const { mutate } = save;
  useEffect(() => {
    if (!loaded || wantedText === lastKept) return;
    const timer = setTimeout(
      () => mutate({ id, ...(JSON.parse(wantedText) as TestSuite) }, { onSuccess: () => setLastKept(wantedText) }),
      KEEP_MS,
    );
    return () => clearTimeout(timer);
  }, [wantedText, id, mutate, loaded, lastKept]);
  if (suite.error) return `Cases could not be loaded: ${errorMessage(suite.error)}`;
  if (save.error) return `Cases not kept: ${errorMessage(save.error)}`;
  if (!loaded) return "";
  if (save.isPending || wantedText !== lastKept) return "Keeping the cases…";
  return "Cases kept";
}

function RunResults({ run }: { run: Run }) {
  return (
    <div data-testid="test-run">
      <p>
        <strong className={run.summary.failed === 0 ? "passed" : "failed"}>
          {run.summary.passed} of {run.summary.total} passed
        </strong>{" "}
        <span className="muted">
          <When at={run.createdAt} />
        </span>
      </p>
      <DataTable
        label="Test results"
        rows={run.results}
        rowKey={(result) => result.caseId}
        empty="No cases ran."
        columns={[
          {
            key: "case",
            header: "Case",
            cell: (result) => (
              <>
                <strong>{result.caseId}</strong>
                <div className="trace-output">{result.input}</div>
              </>
            ),
          },
          {
            key: "result",
            header: "Result",
            cell: (result) => (
              <>
                <span className={result.passed ? "passed" : "failed"}>{result.passed ? "Pass" : "Fail"}</span>
                <div className="muted">{formatMs(result.latencyMs)}</div>
              </>
            ),
          },
          {
            key: "output",
            header: "Output",
            cell: (result) => (
              <>
                {result.error ? (
                  <span className="failure-reason">{result.error}</span>
                ) : (
                  <div className="trace-output">{result.output}</div>
                )}
                {result.executionId && <TraceDetails executionId={result.executionId} />}
              </>
            ),
          },
          {
            key: "fix",
            header: "What to fix",
            cell: (result) =>
              result.failures.length === 0 ? (
                <span className="muted">—</span>
              ) : (
                <ul className="tight-list">
                  {result.failures.map((failure, index) => (
                    <li key={index}>
                      {failure.reason}
                      <div className="muted">
                        {failure.correctionHint}
                        {failure.targetNodeIds.length > 0 && (
                          <>
                            {" "}
                            Fix:{" "}
                            {failure.targetNodeIds.map((node) => (
                              <code key={node}>{node} </code>
                            ))}
                          </>
                        )}
                      </div>
                    </li>
                  ))}
                </ul>
              ),
          },
        ]}
      />
    </div>
  );
}
