"use client";
// Evaluations of an agent, flow or app: import a dataset (CSV or JSONL), run it against the draft
// or a version in the background and watch its progress, read a run's results, and compare two
// runs of one dataset side by side. The selected run and the compared pair live in the URL.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import { useTRPC } from "@/lib/trpc";
import { EVAL_LIMITS, ImportDatasetInput, type EvalRunSummary } from "@/schemas/builder/evaluations";
import { MAX_NAME_CHARS } from "@/schemas/limits";
import { formatMs } from "@/components/runtime/execution-trace";
import {
  Button,
  DataTable,
  ErrorAlert,
  FormActions,
  FormField,
  LoadMore,
  notifyDone,
  PageHeader,
  Panel,
  Select,
  fieldProblem,
  useCursorList,
  useZodForm,
} from "@/components/console";
import { ONE, type KindPlural } from "./use-draft-editor";

const ID_KEY = { agents: "agentId", flows: "flowId", apps: "appId" } as const;
/** How often a page with a run in progress asks for its progress. */
const PROGRESS_MS = 2_000;

const percent = (rate: number | null) => (rate === null ? "—" : `${Math.round(rate * 100)}%`);
const target = (run: Pick<EvalRunSummary, "versionNumber">) =>
  run.versionNumber === null ? "Draft" : `Version ${run.versionNumber}`;
const signed = (value: number, unit = "") => `${value > 0 ? "+" : ""}${value}${unit}`;

export function EvaluationsPage({ kind, id }: { kind: KindPlural; id: string }) {
  const trpc = useTRPC();
  const procs = trpc.evaluations[kind] as typeof trpc.evaluations.flows;
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const setParams = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(params.toString());
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) next.delete(key);
      else next.set(key, value);
    }
    router.replace(`${pathname}?${next.toString()}`, { scroll: false });
  };
  const runs = useQuery({
    ...procs.runs.queryOptions({ id, limit: 200 }),
    refetchInterval: (query) =>
      query.state.data?.runs.some((run) => run.status !== "completed") ? PROGRESS_MS : false,
  });
  const runList = [...(runs.data?.runs ?? [])].reverse();
  const selected = params.get("run");
  const base = params.get("base");
  const candidate = params.get("candidate");

  return (
    <>
      <PageHeader
        title="Evaluations"
        back={{ href: `/${kind}/${id}`, label: `Back to the ${ONE[kind]}` }}
        description={`Run up to ${EVAL_LIMITS.cases.toLocaleString("en")} cases against the draft or a version, in the background, and compare two runs. 1 credit per case.`}
      />
      <ImportPanel kind={kind} id={id} />
      <DatasetsPanel kind={kind} id={id} onStarted={(runId) => setParams({ run: runId })} />
      <Panel title="Runs" label="Runs">
        <ErrorAlert error={runs.error} />
        <DataTable
          label="Evaluation runs"
          cards
          rows={runList}
          empty="No runs yet: run a dataset above."
          columns={[
            { key: "dataset", header: "Dataset", cell: (run) => run.datasetName },
            { key: "target", header: "Against", cell: target, nowrap: true },
            {
              key: "progress",
              header: "Progress",
              nowrap: true,
              cell: (run) => (
                <span>
                  <progress value={run.done} max={run.total} aria-label={`${run.done} of ${run.total} cases done`} />{" "}
                  {run.done}/{run.total}
                </span>
              ),
            },
            { key: "pass", header: "Pass rate", nowrap: true, cell: (run) => percent(run.passRate) },
            { key: "credits", header: "Credits", nowrap: true, cell: (run) => run.credits },
            {
              key: "latency",
              header: "Avg latency",
              nowrap: true,
              cell: (run) => (run.averageLatencyMs === null ? "—" : formatMs(run.averageLatencyMs)),
            },
            {
              key: "open",
              header: "",
              nowrap: true,
              cell: (run) => (
                <span className="row-actions">
                  <Button variant="secondary" onClick={() => setParams({ run: run.id })}>
                    Results
                  </Button>
                  <Button
                    variant="secondary"
                    onClick={() => setParams(base && base !== run.id ? { candidate: run.id } : { base: run.id })}
                  >
                    {base && base !== run.id ? "Compare with base" : "Set as base"}
                  </Button>
                </span>
              ),
            },
          ]}
        />
      </Panel>
      {base && candidate && (
        <ComparisonPanel
          kind={kind}
          id={id}
          base={base}
          candidate={candidate}
          onClose={() => setParams({ base: null, candidate: null })}
        />
      )}
      {selected && (
        <ResultsPanel kind={kind} id={id} runId={selected} done={runList.find((run) => run.id === selected)?.done} />
      )}
    </>
  );
}

function ImportPanel({ kind, id }: { kind: KindPlural; id: string }) {
  const trpc = useTRPC();
  const procs = trpc.evaluations[kind] as typeof trpc.evaluations.flows;
  const queryClient = useQueryClient();
  const form = useZodForm(ImportDatasetInput.omit({ content: true }), {
    defaultValues: { file: null, name: "" },
    // The file's text is read when it is sent; the server names a bad line in it.
    asInput: ({ file, name }: { file: File | null; name: string }) => ({
      id,
      name: name.trim() || (file?.name ?? ""),
      format: file?.name.toLowerCase().endsWith(".csv") ? ("csv" as const) : ("jsonl" as const),
    }),
    fieldOf: (path: readonly PropertyKey[]) => (path[0] === "name" ? ("name" as const) : null),
  });
  const importing = useMutation(
    procs.importDataset.mutationOptions({
      onSuccess: ({ dataset }) => {
        notifyDone(`Imported ${dataset.caseCount.toLocaleString("en")} cases.`);
        form.reset();
        void queryClient.invalidateQueries({ queryKey: procs.datasets.queryKey() });
      },
    }),
  );
  const submit = form.handleSubmit(async (input) => {
    const file = form.getValues("file");
    if (file) importing.mutate({ ...input, content: await file.text() });
  });
  return (
    <Panel title="Import a dataset" onSubmit={(event) => void submit(event)}>
      <p className="muted">
        A CSV file with a header row (<code>input</code>, optionally <code>expectedBehavior</code> and <code>id</code>)
        or a JSONL file with one <code>{'{"input": …, "expectedBehavior": …}'}</code> object per line. At most{" "}
        {EVAL_LIMITS.cases.toLocaleString("en")} cases and {EVAL_LIMITS.fileBytes / 1024 / 1024} MiB; a bad line is
        named and nothing is imported.
      </p>
      <FormField label="File" hint=".csv or .jsonl">
        <input
          type="file"
          required
          accept=".csv,.jsonl,.ndjson,text/csv"
          onChange={(e) => form.setValue("file", e.target.files?.[0] ?? null)}
        />
      </FormField>
      <FormField label="Name" hint="Defaults to the file's name" error={fieldProblem(form, "name")}>
        <input maxLength={MAX_NAME_CHARS} {...form.register("name")} />
      </FormField>
      <FormActions
        error={fieldProblem(form, "root") ?? importing.error}
        submitLabel="Import"
        pending={importing.isPending}
      />
    </Panel>
  );
}

function DatasetsPanel({ kind, id, onStarted }: { kind: KindPlural; id: string; onStarted: (runId: string) => void }) {
  const trpc = useTRPC();
  const procs = trpc.evaluations[kind] as typeof trpc.evaluations.flows;
  const versionsProc = trpc[kind].versions as typeof trpc.flows.versions;
  const queryClient = useQueryClient();
  const datasets = useCursorList(
    (cursor) => procs.datasets.queryOptions({ id, limit: 50, ...(cursor ? { cursor } : {}) }),
    (page) => page.datasets,
  );
  const versions = useQuery(
    versionsProc.queryOptions({ [ID_KEY[kind]]: id, limit: 50, order: "newest" } as {
      flowId: string;
      limit: number;
      order: "newest";
    }),
  );
  const [against, setAgainst] = useState("");
  const start = useMutation(
    procs.startRun.mutationOptions({
      onSuccess: ({ run }) => {
        notifyDone(`Started: ${run.total.toLocaleString("en")} cases against ${target(run).toLowerCase()}.`);
        void queryClient.invalidateQueries({ queryKey: procs.runs.queryKey() });
        onStarted(run.id);
      },
    }),
  );
  return (
    <Panel title="Datasets" label="Datasets">
      <FormField label="Run against">
        <Select
          value={against}
          onChange={(e) => setAgainst(e.target.value)}
          // A version's name defaults to "v<number>": said once, not twice.
          options={(versions.data?.versions ?? []).map((version) => ({
            value: version.id,
            label: `Version ${version.number}${version.isProduction ? " (live)" : ""}${version.name !== `v${version.number}` ? ` · ${version.name}` : ""}`,
          }))}
          placeholder="The draft"
        />
      </FormField>
      <ErrorAlert error={datasets.error ?? start.error} />
      <DataTable
        label="Imported datasets"
        cards
        rows={datasets.items}
        empty="No datasets yet: import one above."
        columns={[
          { key: "name", header: "Name", cell: (dataset) => dataset.name },
          { key: "cases", header: "Cases", nowrap: true, cell: (dataset) => dataset.caseCount.toLocaleString("en") },
          { key: "by", header: "Imported by", cell: (dataset) => dataset.createdBy },
          {
            key: "run",
            header: "",
            nowrap: true,
            cell: (dataset) => (
              <button
                type="button"
                disabled={start.isPending}
                onClick={() => start.mutate({ id, datasetId: dataset.id, ...(against ? { version: against } : {}) })}
              >
                Run
              </button>
            ),
          },
        ]}
      />
      <LoadMore list={datasets} />
    </Panel>
  );
}

/**
 * One run's results. They are asked again whenever the runs list (which polls while a run is in
 * progress) shows more cases `done`: with a filter, the cases still waiting are not in the answer,
 * so the answer alone cannot tell that more are coming.
 */
function ResultsPanel({ kind, id, runId, done }: { kind: KindPlural; id: string; runId: string; done?: number }) {
  const trpc = useTRPC();
  const procs = trpc.evaluations[kind] as typeof trpc.evaluations.flows;
  const queryClient = useQueryClient();
  const [outcome, setOutcome] = useState<"" | "passed" | "failed">("");
  const results = useQuery(
    procs.results.queryOptions({ id, runId, limit: 200, after: 0, ...(outcome ? { outcome } : {}) }),
  );
  useEffect(() => {
    if (done === undefined) return;
    const results = (trpc.evaluations[kind] as typeof trpc.evaluations.flows).results;
    void queryClient.invalidateQueries({ queryKey: results.queryKey({ id, runId }) });
  }, [done, trpc, kind, id, runId, queryClient]);
  return (
    <Panel
      title="Results"
      label="Results"
      actions={
        <Select
          aria-label="Show"
          value={outcome}
          onChange={(e) => setOutcome(e.target.value as typeof outcome)}
          options={[
            { value: "failed", label: "Failed only" },
            { value: "passed", label: "Passed only" },
          ]}
          placeholder="All cases"
        />
      }
    >
      <ErrorAlert error={results.error} />
      <DataTable
        label="Results per case"
        cards
        rows={results.data?.results ?? []}
        rowKey={(result) => result.caseId}
        empty="No cases to show."
        columns={[
          { key: "n", header: "#", nowrap: true, cell: (result) => result.position },
          { key: "input", header: "Input", cell: (result) => result.input },
          {
            key: "outcome",
            header: "Outcome",
            nowrap: true,
            cell: (result) => (result.status !== "done" ? "Waiting" : result.passed ? "✓ Passed" : "✗ Failed"),
          },
          { key: "output", header: "Output", cell: (result) => result.error ?? result.output },
          { key: "why", header: "Judge", cell: (result) => result.reason },
          { key: "credits", header: "Credits", nowrap: true, cell: (result) => result.credits },
          {
            key: "tokens",
            header: "Tokens",
            nowrap: true,
            cell: (result) => `${result.inputTokens} in · ${result.outputTokens} out`,
          },
          { key: "latency", header: "Latency", nowrap: true, cell: (result) => formatMs(result.latencyMs) },
        ]}
      />
      {results.data?.nextAfter !== null && results.data !== undefined && (
        <p className="muted">The first 200 cases are shown; the API pages through the rest.</p>
      )}
    </Panel>
  );
}

function ComparisonPanel({
  kind,
  id,
  base,
  candidate,
  onClose,
}: {
  kind: KindPlural;
  id: string;
  base: string;
  candidate: string;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const procs = trpc.evaluations[kind] as typeof trpc.evaluations.flows;
  const comparison = useQuery(procs.compare.queryOptions({ id, base, candidate }));
  const data = comparison.data;
  return (
    <Panel
      title="Comparison"
      label="Comparison"
      actions={
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      }
    >
      <ErrorAlert error={comparison.error} />
      {data && (
        <>
          <DataTable
            label="The two runs side by side"
            cards
            rows={[
              { label: "Against", base: target(data.base), candidate: target(data.candidate), change: "" },
              {
                label: "Pass rate",
                base: percent(data.base.passRate),
                candidate: percent(data.candidate.passRate),
                change: data.passRateChange === null ? "—" : signed(Math.round(data.passRateChange * 100), " pts"),
              },
              {
                label: "Credits",
                base: String(data.base.credits),
                candidate: String(data.candidate.credits),
                change: signed(data.creditsChange),
              },
              {
                label: "Avg latency",
                base: data.base.averageLatencyMs === null ? "—" : formatMs(data.base.averageLatencyMs),
                candidate: data.candidate.averageLatencyMs === null ? "—" : formatMs(data.candidate.averageLatencyMs),
                change: data.averageLatencyChange === null ? "—" : signed(data.averageLatencyChange, " ms"),
              },
            ]}
            rowKey={(row) => row.label}
            empty="Nothing to compare."
            columns={[
              { key: "label", header: "", nowrap: true, cell: (row) => row.label },
              { key: "base", header: "Base", cell: (row) => row.base },
              { key: "candidate", header: "Candidate", cell: (row) => row.candidate },
              { key: "change", header: "Change", cell: (row) => row.change },
            ]}
          />
          <h3>
            {data.changed.length === 0
              ? "No case changed outcome."
              : `${data.changed.length} case${data.changed.length === 1 ? "" : "s"} changed outcome`}
          </h3>
          <DataTable
            label="Cases that changed outcome"
            cards
            rows={data.changed}
            rowKey={(row) => row.caseId}
            empty="No case changed outcome."
            columns={[
              { key: "n", header: "#", nowrap: true, cell: (row) => row.position },
              { key: "input", header: "Input", cell: (row) => row.input },
              {
                key: "change",
                header: "Change",
                nowrap: true,
                cell: (row) => (row.change === "fixed" ? "Now passes" : "Now fails"),
              },
              { key: "base", header: "Base output", cell: (row) => row.base.output },
              { key: "candidate", header: "Candidate output", cell: (row) => row.candidate.output },
            ]}
          />
        </>
      )}
    </Panel>
  );
}
