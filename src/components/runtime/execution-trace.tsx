"use client";
import { ErrorAlert } from "@/components/console";
// What one run did: which members and nodes ran, with their model, latency and what they found
// (each passage from knowledge with its page or document, headings and first words).
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { withoutHeadingMarks } from "@/lib/passage-text";
import { useTRPC } from "@/lib/trpc";
import type { Execution, TracePassage } from "@/schemas/runs/runtime";
import "@/components/knowledge/knowledge.css";

export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** A run's status as words ("awaiting_approval" → "Awaiting approval"), as the Executions filter names them. */
export function statusWords(status: string): string {
  const words = status.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function ExecutionTrace({ execution }: { execution: Execution }) {
  const models = [...new Set(execution.trace.map((entry) => entry.model).filter(Boolean))];
  return (
    <div className="trace" data-testid="execution-trace">
      <p className="muted flush-top">
        {statusWords(execution.status)} · {formatMs(execution.latencyMs)} · {execution.credits} credit
        {execution.credits === 1 ? "" : "s"}
        {models.length > 0 ? ` · model ${models.join(", ")}` : ""}
      </p>
      <ErrorAlert error={execution.error} />
      {/* One step under the other, its output at the trace's full width: nothing scrolls sideways. */}
      {execution.trace.length === 0 ? (
        <p className="table-empty">Nothing ran.</p>
      ) : (
        <ol className="trace-steps" aria-label="Trace steps">
          {execution.trace.map((entry, index) => (
            <li key={`${entry.id}-${index}`} className="trace-step">
              <div className="trace-step-head">
                <strong>{entry.name}</strong>
                <span className="muted">
                  {entry.kind}
                  {entry.model ? ` · ${entry.model}` : ""} · {formatMs(entry.latencyMs)}
                </span>
              </div>
              {entry.note && <p className="muted trace-step-note">{entry.note}</p>}
              {entry.passages && entry.passages.length > 0 ? (
                <details data-testid="trace-passages">
                  <summary className="muted">
                    {entry.passages.length} passage{entry.passages.length === 1 ? "" : "s"} from knowledge
                  </summary>
                  <ol className="trace-passages">
                    {entry.retrieved?.length
                      ? entry.retrieved.map((passage, index) => <RetrievedPassage key={index} passage={passage} />)
                      : entry.passages.map((title, passage) => <li key={passage}>{title}</li>)}
                  </ol>
                </details>
              ) : null}
              {entry.input && (
                <details className="trace-step-input" data-testid="trace-input">
                  <summary className="muted">{entry.kind === "tool" ? "Arguments" : "Input"}</summary>
                  <div className="trace-step-output">{entry.input}</div>
                </details>
              )}
              {entry.output && <div className="trace-step-output">{entry.output}</div>}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

/** One passage a step retrieved: its page or document (linked), the headings above it, how it starts. */
function RetrievedPassage({ passage }: { passage: TracePassage }) {
  const href =
    passage.kind === "page"
      ? `/knowledge/${passage.knowledgebaseId}?page=${passage.id}`
      : `/knowledge/${passage.knowledgebaseId}/sources/${passage.id}`;
  return (
    <li data-testid="trace-passage">
      <Link href={href}>{passage.title}</Link>
      {passage.heading && <span className="muted"> › {passage.heading.split(" > ").join(" › ")}</span>}
      <blockquote className="trace-snippet">{withoutHeadingMarks(passage.snippet)}</blockquote>
    </li>
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
  if (query.error) return <ErrorAlert error={query.error} />;
  if (!query.data) return <p className="muted">Loading…</p>;
  return <ExecutionTrace execution={query.data.execution} />;
}
