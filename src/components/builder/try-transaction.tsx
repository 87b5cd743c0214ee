"use client";
// Tries the app's live transaction from its editor: JSON in, the output or the refusal out, exactly
// as a caller of POST /apps/{id}/transaction would see them (1 credit when it runs). It calls the
// published version, so a schema edited here counts once it is published.
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorAlert, FormField } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { MAX_JSON_BODY_BYTES } from "@/schemas/limits";
import { jsonProblem } from "./schema-form-model";

type Problem = { path: string; message: string };

function problemsOf(error: unknown): Problem[] {
  const problems = (error as { data?: { appError?: { problems?: unknown } } } | null)?.data?.appError?.problems;
  return Array.isArray(problems) ? (problems as Problem[]) : [];
}

export function TryTransaction({ appId, live }: { appId: string; live: boolean }) {
  const trpc = useTRPC();
  const [text, setText] = useState("{}");
  const run = useMutation(trpc.runtime.transaction.mutationOptions());
  const parse = jsonProblem(text);
  const parsed: unknown = parse ? null : JSON.parse(text);
  const notObject = !parse && (!parsed || typeof parsed !== "object" || Array.isArray(parsed));
  const inputError = parse
    ? `This is not valid JSON. ${parse.message}`
    : notObject
      ? "The input of a transaction is a JSON object, between { and }."
      : null;
  const problems = problemsOf(run.error);

  return (
    <section className="try-transaction" aria-label="Try the transaction" data-testid="try-transaction">
      <h3>Try the transaction</h3>
      <p className="hint">
        {live
          ? "Runs the live version with this input, as a caller of the API would: 1 credit when it runs. Publish first to try schema edits."
          : "Publish the app to try its transaction."}
      </p>
      <FormField label="Transaction input" error={inputError}>
        <textarea
          className="code"
          rows={4}
          value={text}
          maxLength={MAX_JSON_BODY_BYTES}
          spellCheck={false}
          onChange={(event) => setText(event.target.value)}
        />
      </FormField>
      <div className="row">
        <button
          type="button"
          disabled={!live || inputError !== null || run.isPending}
          onClick={() => run.mutate({ appId, input: parsed as Record<string, unknown> })}
        >
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
