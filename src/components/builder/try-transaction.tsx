"use client";
// Tries the app's live transaction from its editor: JSON in, the output or the refusal out, exactly
// as a caller of POST /apps/{id}/transaction would see them (1 credit when it runs). It calls the
// published version, so a schema edited here counts once it is published.
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorAlert } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { InputForm } from "./input-form";
import { fieldsOfJsonSchema, missingFields } from "./input-form-model";

type Problem = { path: string; message: string };

function problemsOf(error: unknown): Problem[] {
  const problems = (error as { data?: { appError?: { problems?: unknown } } } | null)?.data?.appError?.problems;
  return Array.isArray(problems) ? (problems as Problem[]) : [];
}

/** The transaction's input as a form from the app's input schema (JSON under "Advanced"). */
export function TryTransaction({ appId, live, inputSchema }: { appId: string; live: boolean; inputSchema?: unknown }) {
  const trpc = useTRPC();
  const [values, setValues] = useState<Record<string, unknown>>({});
  const run = useMutation(trpc.runtime.transaction.mutationOptions());
  const fields = fieldsOfJsonSchema(inputSchema);
  const missing = missingFields(fields ?? [], values);
  const problems = problemsOf(run.error);

  return (
    <section className="try-transaction" aria-label="Try the transaction" data-testid="try-transaction">
      <h3>Try the transaction</h3>
      <p className="hint">
        {live
          ? "Runs the live version with this input, as a caller of the API would: 1 credit when it runs. Publish first to try schema edits."
          : "Publish the app to try its transaction."}
      </p>
      <InputForm
        label="Transaction input"
        fields={fields ?? []}
        startAdvanced={fields === null}
        values={values}
        onChange={setValues}
      />
      {missing.length > 0 && <p className="muted">Still to fill: {missing.join(", ")}.</p>}
      <div className="row">
        <button type="button" disabled={!live || run.isPending} onClick={() => run.mutate({ appId, input: values })}>
          {run.isPending ? "Running…" : "Run the transaction"}
        </button>
      </div>
      {run.error ? (
        <>
          <ErrorAlert error={run.error} title="The transaction was refused" />
          {problems.length > 1 && (
            <ul className="error" data-testid="transaction-problems">
              {problems.map((problem, index) => (
                <li key={index}>
                  <code>{problem.path}</code> {problem.message}
                </li>
              ))}
            </ul>
          )}
        </>
      ) : null}
      {run.data && !run.error && "status" in run.data && (
        <p role="status" data-testid="transaction-output">
          The run waits for an approval. <a href={`/approvals/${run.data.executionId}`}>Open it</a>
        </p>
      )}
      {run.data && !run.error && "output" in run.data && (
        <div role="status" data-testid="transaction-output">
          <p className="muted">Output</p>
          <pre>{JSON.stringify(run.data.output, null, 2)}</pre>
        </div>
      )}
    </section>
  );
}
