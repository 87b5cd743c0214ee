"use client";
import { skipToken, useQueries, useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Fragment, Suspense, useState, type ReactNode } from "react";
import { ExecutionTrace, formatMs } from "@/components/runtime/execution-trace";
import { EntityLink, EntityName, EntityPicker, useEntities, type EntityKind } from "@/components/entity-picker";
import { EndUserPicker } from "@/components/provisioning/end-user-picker";
import { EXECUTION_STATUSES, type ExecutionStatus } from "@/schemas/runtime";
import { errorMessage, useTRPC } from "@/lib/trpc";
import { PageHeader } from "@/components/console";

const PAGE = 25;

/** What the log is filtered by; each lives in the URL (?endUser=…&portal=…&item=…&itemKind=…&status=…), so reload and back keep it. */
type Filter = { endUser?: string; portal?: string; item?: string; itemKind?: ItemKind; status?: ExecutionStatus };
const FILTER_KEYS = ["endUser", "portal", "item", "itemKind", "status"] as const;

function readFilter(search: URLSearchParams): Filter {
  const status = search.get("status");
  return {
    endUser: search.get("endUser") ?? undefined,
    portal: search.get("portal") ?? undefined,
    item: search.get("item") ?? undefined,
    itemKind: ITEM_KINDS.find((known) => known === search.get("itemKind")),
    status: EXECUTION_STATUSES.find((known) => known === status),
  };
}

function Filters({ filter, onChange }: { filter: Filter; onChange: (next: Filter) => void }) {
  const trpc = useTRPC();
  const chosen = useQuery(trpc.endUsers.get.queryOptions(filter.endUser ? { endUserId: filter.endUser } : skipToken));
  const portals = useQuery(trpc.portals.list.queryOptions({ limit: 200 }));
  const items = useEntities(ITEM_KINDS);
  const item = items.entities.find((entity) => entity.id === filter.item);
  return (
    <div className="row" style={{ alignItems: "flex-end", marginBottom: "1rem" }} role="search" aria-label="Filter executions">
      {filter.item ? (
        <Chosen label="App, agent or flow" onClear={() => onChange({ ...filter, item: undefined, itemKind: undefined })} clearLabel="All items">
          <span data-testid="item-filter">
            {item ? <EntityLink kind={item.kind} id={item.id} name={item.name} /> : filter.itemKind ? <EntityName kind={filter.itemKind} id={filter.item} /> : "…"}
          </span>
        </Chosen>
      ) : (
        <EntityPicker
          kinds={ITEM_KINDS}
          label="App, agent or flow"
          emptyText="No apps, agents or flows yet."
          onPick={(entity) => onChange({ ...filter, item: entity.id, itemKind: ITEM_KINDS.find((known) => known === entity.kind) })}
        />
      )}
      <label>
        Status
        <select value={filter.status ?? ""} onChange={(e) => onChange({ ...filter, status: EXECUTION_STATUSES.find((known) => known === e.target.value) })}>
          <option value="">Any status</option>
          {EXECUTION_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status.replace("_", " ")}
            </option>
          ))}
        </select>
      </label>
      {filter.endUser ? (
        <Chosen label="End user" onClear={() => onChange({ ...filter, endUser: undefined })} clearLabel="All end users">
          <strong data-testid="end-user-filter">{chosen.data?.endUser.email ?? "…"}</strong>
        </Chosen>
      ) : (
        <EndUserPicker label="End user" onPick={(endUser) => onChange({ ...filter, endUser: endUser.id })} />
      )}
      <label>
        Portal
        <select value={filter.portal ?? ""} onChange={(e) => onChange({ ...filter, portal: e.target.value || undefined })}>
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

const ITEM_KINDS = ["app", "agent", "flow"] as const;
type ItemKind = (typeof ITEM_KINDS)[number];

/** A filter that is set: what it is set to, and the button that clears it. */
function Chosen({ label, clearLabel, onClear, children }: { label: string; clearLabel: string; onClear: () => void; children: ReactNode }) {
  return (
    <div style={{ display: "flex", flexDirection: "column", gap: "0.3rem", fontSize: "0.9rem" }}>
      {label}
      <span className="row" style={{ gap: "0.5rem" }}>
        {children}
        <button type="button" onClick={onClear}>
          {clearLabel}
        </button>
      </span>
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
  const filter = readFilter(search);
  const input = {
    order: "newest" as const,
    ...(filter.endUser ? { endUserId: filter.endUser } : {}),
    ...(filter.portal ? { portalId: filter.portal } : {}),
    ...(filter.item ? { itemId: filter.item } : {}),
    ...(filter.status ? { status: filter.status } : {}),
  };
  // One query per page loaded so far ("Load more" adds the next page's cursor); the input is strict, so no infinite-query extras.
  // A change of filter starts again from the first page.
  const filterKey = FILTER_KEYS.map((key) => filter[key] ?? "").join("|");
  const [paging, setPaging] = useState<{ key: string; cursors: (string | undefined)[] }>({ key: filterKey, cursors: [undefined] });
  const cursors = paging.key === filterKey ? paging.cursors : [undefined];
  const setCursors = (update: (current: (string | undefined)[]) => (string | undefined)[]) => setPaging({ key: filterKey, cursors: update(cursors) });
  const pages = useQueries({ queries: cursors.map((cursor) => trpc.runtime.executions.queryOptions({ limit: PAGE, ...input, ...(cursor ? { cursor } : {}) })) });

  function filterBy(next: Filter) {
    const params = new URLSearchParams();
    for (const key of FILTER_KEYS) if (next[key]) params.set(key, next[key]);
    const query = params.toString();
    // A new history entry per filter, so Back returns to the previous one.
    router.push(query ? `${pathname}?${query}` : pathname);
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
      <p className="muted">Every run — conversation turns, transactions and test cases — with its credits, latency and what each member and node did, newest first.</p>
      <div className="panel" style={{ overflowX: "auto" }}>
        <Filters filter={filter} onChange={filterBy} />
        {executions.isLoading && <p className="muted">Loading…</p>}
        {executions.error && (
          <p role="alert" className="error">
            {errorMessage(executions.error)}
          </p>
        )}
        {executions.data && rows.length === 0 && <p className="muted">{FILTER_KEYS.some((key) => filter[key]) ? "No runs match these filters." : "No runs yet."}</p>}
        {rows.length > 0 && (
          // Times, statuses and numbers stay on one line; on a phone the table scrolls in its own box.
          <div className="table-scroll" role="region" aria-label="Runs" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th>Time</th>
                  <th>Ran</th>
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
                      <td className="muted nowrap">{new Date(execution.createdAt).toLocaleString()}</td>
                      <td data-testid="execution-item" style={{ minWidth: "9rem" }}>
                        {execution.itemName !== null ? (
                          <EntityLink kind={execution.itemKind as EntityKind} id={execution.itemId} name={execution.itemName} />
                        ) : (
                          <span className="muted">A deleted {execution.itemKind}</span>
                        )}
                        <div className="muted">
                          {execution.kind} of the {execution.itemKind}
                        </div>
                      </td>
                      <td className="nowrap">
                        {execution.status === "succeeded" ? <span className="badge">succeeded</span> : <span className="badge revoked">{execution.status}</span>}
                      </td>
                      <td className="nowrap">{execution.credits}</td>
                      <td className="nowrap">{formatMs(execution.latencyMs)}</td>
                      <td className="muted" style={{ minWidth: "10rem" }}>
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
          </div>
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
