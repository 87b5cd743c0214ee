"use client";
// What one run did: which members and nodes ran, with their model, latency and what they found.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage, useTRPC } from "@/lib/trpc";
import type { Execution } from "@/schemas/runtime";
import "@/components/knowledge/knowledge.css";

export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

export function ExecutionTrace({ execution }: { execution: Execution }) {
  const models = [...new Set(execution.trace.map((entry) => entry.model).filter(Boolean))];
  return (
    <div className="trace" data-testid="execution-trace">
      <p className="muted" style={{ marginTop: 0 }}>
        {execution.status} · {formatMs(execution.latencyMs)} · {execution.credits} credit{execution.credits === 1 ? "" : "s"}
        {models.length > 0 ? ` · model ${models.join(", ")}` : ""}
      </p>
      {execution.error && (
        <p role="alert" className="error">
          {execution.error}
        </p>
      )}
      {execution.trace.length === 0 ? (
        <p className="muted">Nothing ran.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Ran</th>
              <th>Kind</th>
              <th>Model</th>
              <th>Latency</th>
              <th>Output</th>
            </tr>
          </thead>
          <tbody>
            {execution.trace.map((entry, index) => (
              <tr key={`${entry.id}-${index}`}>
                <td>
                  <strong>{entry.name}</strong>
                  {entry.passages && entry.passages.length > 0 ? (
                    <details data-testid="trace-passages">
                      <summary className="muted">
                        {entry.passages.length} passage{entry.passages.length === 1 ? "" : "s"} from knowledge
                      </summary>
                      <ol className="trace-passages">
                        {entry.passages.map((title, passage) => (
                          <li key={passage}>{title}</li>
                        ))}
                      </ol>
                    </details>
                  ) : null}
                </td>
                <td>{entry.kind}</td>
                <td>{entry.model ?? "—"}</td>
                <td>{formatMs(entry.latencyMs)}</td>
                <td className="trace-output">{entry.output}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** A collapsed "Trace" that loads the execution when opened. */
export function TraceDetails({ executionId, label = "Trace" }: { executionId: string; label?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(event) => setOpen((event.target as HTMLDetailsElement).open)}>
      <summary>{label}</summary>
      {open && <LoadedTrace executionId={executionId} />}
    </details>
  );
}

function LoadedTrace({ executionId }: { executionId: string }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.runtime.execution.queryOptions({ executionId }, { staleTime: Infinity }));
  if (query.error)
    return (
      <p role="alert" className="error">
        {errorMessage(query.error)}
      </p>
    );
  if (!query.data) return <p className="muted">Loading…</p>;
  return <ExecutionTrace execution={query.data.execution} />;
}
