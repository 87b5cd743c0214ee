"use client";
import { skipToken, useQueries, useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Fragment, Suspense, useState } from "react";
import { ExecutionTrace, formatMs } from "@/components/runtime/execution-trace";
import { SearchPicker } from "@/components/console";
import { errorMessage, useTRPC } from "@/lib/trpc";
import { PageHeader } from "@/components/console";

const PAGE = 25;

/** Filters by end user (picked by email) and portal; they live in the URL (?endUser=…&portal=…). */
function Filters({ endUserId, portalId, onChange }: { endUserId?: string; portalId?: string; onChange: (next: { endUser?: string; portal?: string }) => void }) {
  const trpc = useTRPC();
  const [query, setQuery] = useState("");
  const matches = useQuery(trpc.endUsers.list.queryOptions({ limit: 8, ...(query.trim() ? { query: query.trim() } : {}) }));
  const chosen = useQuery(trpc.endUsers.get.queryOptions(endUserId ? { endUserId } : skipToken));
  const portals = useQuery(trpc.portals.list.queryOptions({ limit: 200 }));
  return (
    <div className="row" style={{ alignItems: "flex-end", marginBottom: "1rem" }} role="search" aria-label="Filter executions">
      {endUserId ? (
        <div style={{ display: "flex", flexDirection: "column", gap: "0.3rem", fontSize: "0.9rem" }}>
          End user
          <span className="row" style={{ gap: "0.5rem" }}>
            <strong data-testid="end-user-filter">{chosen.data?.endUser.email ?? "…"}</strong>
            <button type="button" onClick={() => onChange({ endUser: undefined, portal: portalId })}>
              All end users
            </button>
          </span>
        </div>
      ) : (
        <SearchPicker
          label="End user"
          placeholder="Type part of an email…"
          emptyText="No end user matches."
          options={(matches.data?.endUsers ?? []).map((user) => ({ id: user.id, label: user.email, hint: user.fullName || undefined }))}
          onQueryChange={setQuery}
          onPick={(option) => onChange({ endUser: option.id, portal: portalId })}
        />
      )}
      <label>
        Portal
        <select value={portalId ?? ""} onChange={(e) => onChange({ endUser: endUserId, portal: e.target.value || undefined })}>
          <option value="">All portals and doors</option>
          {portals.data?.portals.map((portal) => (
            <option key={portal.id} value={portal.id}>
              {portal.name}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

export default function ExecutionsPage() {
  return (
    <Suspense fallback={<p className="muted">Loading…</p>}>
      <Executions />
    </Suspense>
  );
}

function Executions() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const endUserId = search.get("endUser") ?? undefined;
  const portalId = search.get("portal") ?? undefined;
  const filters = { ...(endUserId ? { endUserId } : {}), ...(portalId ? { portalId } : {}) };
  // One query per page loaded so far ("Load more" adds the next page's cursor); the input is strict, so no infinite-query extras.
  // A change of filter starts again from the first page.
  const filterKey = `${endUserId ?? ""}|${portalId ?? ""}`;
  const [paging, setPaging] = useState<{ key: string; cursors: (string | undefined)[] }>({ key: filterKey, cursors: [undefined] });
  const cursors = paging.key === filterKey ? paging.cursors : [undefined];
  const setCursors = (update: (current: (string | undefined)[]) => (string | undefined)[]) => setPaging({ key: filterKey, cursors: update(cursors) });
  const pages = useQueries({ queries: cursors.map((cursor) => trpc.runtime.executions.queryOptions({ limit: PAGE, ...filters, ...(cursor ? { cursor } : {}) })) });

  function filterBy(next: { endUser?: string; portal?: string }) {
    const params = new URLSearchParams();
    if (next.endUser) params.set("endUser", next.endUser);
    if (next.portal) params.set("portal", next.portal);
    const query = params.toString();
    router.replace(query ? `${pathname}?${query}` : pathname);
  }
  const [open, setOpen] = useState<string | null>(null);
  const rows = pages.flatMap((page) => page.data?.executions ?? []);
  const last = pages[pages.length - 1];
  const executions = {
    isLoading: pages[0]?.isLoading ?? false,
    error: pages.find((page) => page.error)?.error ?? null,
    data: pages[0]?.data,
    hasNextPage: !!last?.data?.nextCursor,
    isFetchingNextPage: pages.length > 1 && !!last?.isLoading,
    fetchNextPage: () => {
      const next = last?.data?.nextCursor;
      if (next) setCursors((current) => [...current, next]);
    },
  };
  return (
    <>
      <PageHeader title="Executions" />
      <p className="muted">Every run — conversation turns, transactions and test cases — with its credits, latency and what each member and node did, oldest first.</p>
      <div className="panel" style={{ overflowX: "auto" }}>
        <Filters endUserId={endUserId} portalId={portalId} onChange={filterBy} />
        {executions.isLoading && <p className="muted">Loading…</p>}
        {executions.error && (
          <p role="alert" className="error">
            {errorMessage(executions.error)}
          </p>
        )}
        {executions.data && rows.length === 0 && <p className="muted">{endUserId || portalId ? "No runs match these filters." : "No runs yet."}</p>}
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
                    <td className="muted">
                      {execution.endUserEmail ? (
                        <>
                          <span data-testid="execution-end-user">{execution.endUserEmail}</span>
                          {execution.portalName ? ` in ${execution.portalName}` : ""}
                          {execution.actor !== execution.endUserEmail && (
                            <>
                              <br />
                              <span style={{ fontSize: "0.8rem" }}>via {execution.actor}</span>
                            </>
                          )}
                        </>
                      ) : (
                        execution.actor
                      )}
                    </td>
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
