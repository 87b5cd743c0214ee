"use client";
// The studio's test run: a form from the flow's declared inputs (JSON under "Advanced"), Run, and
// what came out: the answer, the run's time, credits and tokens; each step's result is on its card
// and, whole, in the inspector when the step is selected.
import { Play } from "lucide-react";
import Link from "next/link";
import { Button, ErrorAlert } from "@/components/console";
import { formatMs, statusWords } from "@/components/runtime/execution-trace";
import { costWords } from "@/lib/cost-words";
import type { FlowInput } from "@/schemas/builder/builder";
import { InputForm } from "../input-form";
import { fieldsOfFlowInputs, missingFields } from "../input-form-model";
import type { TestRun } from "./use-test-run";

export function TestRunPanel({
  flowId,
  inputs,
  run,
  saved,
}: {
  flowId: string;
  inputs: FlowInput[];
  run: TestRun;
  saved: boolean;
}) {
  const { values, setValues } = run;
  const fields = fieldsOfFlowInputs(inputs);
  const missing = missingFields(fields, values);
  const { answer, execution } = run;
  return (
    <section className="test-run" aria-label="Test run" data-testid="test-run">
      <p className="muted flush-top">
        Runs the draft as saved now with these inputs: a test run, 1 credit or its models&apos; price.
      </p>
      <InputForm label="Flow inputs" fields={fields} values={values} onChange={setValues} />
      {missing.length > 0 && <p className="muted">Still to fill: {missing.join(", ")}.</p>}
      <Button variant="primary" disabled={run.pending || !saved || missing.length > 0} onClick={() => run.run(values)}>
        <Play size={16} aria-hidden />{" "}
        {run.pending ? "Running…" : saved ? "Run the flow" : "Waiting for the draft to save…"}
      </Button>
      <ErrorAlert error={run.error} />
      {answer && (
        <div role="status" className="test-run-answer" data-testid="test-run-answer">
          <p className="muted" data-testid="test-run-cost">
            {execution
              ? `${statusWords(execution.status)} · ${formatMs(execution.latencyMs)} · ${costWords({
                  credits: execution.credits,
                  inputTokens: execution.usage?.inputTokens,
                  outputTokens: execution.usage?.outputTokens,
                })}`
              : `${formatMs(answer.latencyMs)} · ${costWords(answer)}`}
          </p>
          <ErrorAlert error={answer.error} />
          {!answer.error && <pre>{answer.reply || "(an empty answer)"}</pre>}
          <p className="muted">Each step says how it ran; select one to read its whole output.</p>
        </div>
      )}
      <p className="muted">
        Many cases at once, in the background, against the draft or a version:{" "}
        <Link href={`/flows/${flowId}/evaluations`}>Evaluations</Link>.
      </p>
    </section>
  );
}
