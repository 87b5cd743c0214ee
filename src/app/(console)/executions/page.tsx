"use client";
import { useQueries } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { ExecutionTrace, formatMs } from "@/components/runtime/execution-trace";
import { errorMessage, useTRPC } from "@/lib/trpc";

const PAGE = 25;

export default function ExecutionsPage() {
  const trpc = useTRPC();
  // One query per page loaded so far ("Load more" adds the next page's cursor); the input is strict, so no infinite-query extras.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const pages = useQueries({ queries: cursors.map((cursor) => trpc.runtime.executions.queryOptions({ limit: PAGE, ...(cursor ? { cursor } : {}) })) });
  const [open, setOpen] = useState<string | null>(null);
  const rows = pages.flatMap((page) => page.data?.executions ?? []);
  const last = pages[pages.length - 1];
  const executions = {
    isLoading: pages[0]?.isLoading ?? false,
    error: pages.find((page) => page.error)?.error ?? null,
    data: pages[0]?.data,
    hasNextPage: !!last?.data?.nextCursor,
    isFetchingNextPage: pages.length > 1 && !!last?.isLoading,
    fetchNextPage: () => last?.data?.nextCursor && setCursors((current) => [...current, last.data!.nextCursor!]),
  };
  return (
    <>
      <h1>Executions</h1>
      <p className="muted">Every run — conversation turns, transactions and test cases — with its credits, latency and what each member and node did, oldest first.</p>
      <div className="panel">
        {executions.isLoading && <p className="muted">Loading…</p>}
        {executions.error && (
          <p role="alert" className="error">
            {errorMessage(executions.error)}
          </p>
        )}
        {executions.data && rows.length === 0 && <p className="muted">No runs yet.</p>}
        {rows.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>Time</th>
                <th>Kind</th>
                <th>Status</th>
                <th>Credits</th>
                <th>Latency</th>
                <th>By</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rows.map((execution) => (
                <Fragment key={execution.id}>
                  <tr data-testid="execution-row">
                    <td className="muted">{new Date(execution.createdAt).toLocaleString()}</td>
                    <td>
                      {execution.kind} <span className="muted">({execution.itemKind})</span>
                    </td>
                    <td>{execution.status === "succeeded" ? <span className="badge">succeeded</span> : <span className="badge revoked">{execution.status}</span>}</td>
                    <td>{execution.credits}</td>
                    <td>{formatMs(execution.latencyMs)}</td>
                    <td className="muted">{execution.actor}</td>
                    <td>
                      <button type="button" aria-expanded={open === execution.id} onClick={() => setOpen(open === execution.id ? null : execution.id)}>
                        {open === execution.id ? "Hide trace" : "Trace"}
                      </button>
                    </td>
                  </tr>
                  {open === execution.id && (
                    <tr>
                      <td colSpan={7}>
                        <p style={{ marginTop: 0 }}>
                          <strong>Input:</strong> <span className="trace-output">{execution.input}</span>
                        </p>
                        {execution.output && (
                          <p>
                            <strong>Output:</strong> <span className="trace-output">{execution.output}</span>
                          </p>
                        )}
                        <ExecutionTrace execution={execution} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        )}
        {executions.hasNextPage && (
          <button type="button" onClick={() => executions.fetchNextPage()} disabled={executions.isFetchingNextPage}>
            {executions.isFetchingNextPage ? "Loading…" : "Load more"}
          </button>
        )}
      </div>
    </>
  );
}
