"use client";
import { skipToken, useQuery } from "@tanstack/react-query";
import { ThumbsDown, ThumbsUp } from "lucide-react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useRef, type ReactNode } from "react";
import { X } from "lucide-react";
import { ExecutionTrace, formatMs, statusWords } from "@/components/runtime/execution-trace";
import Link from "next/link";
import {
  EntityLink,
  EntityName,
  EntityPicker,
  entityHref,
  useEntities,
  type EntityKind,
} from "@/components/entity-picker";
import { EndUserPicker } from "@/components/provisioning/end-user-picker";
import { usePortalList } from "@/components/provisioning/use-lists";
import {
  EXECUTION_STATUSES,
  FEEDBACK_RATINGS,
  type Execution,
  type ExecutionStatus,
  type FeedbackRating,
} from "@/schemas/runs/runtime";
import { useTRPC } from "@/lib/trpc";
import {
  DataTable,
  ErrorAlert,
  FormField,
  LoadMore,
  PageHeader,
  Select,
  type Column,
  urlStatePage,
  useCursorList,
  When,
} from "@/components/console";
import { RefusalsList } from "@/components/usage/refusals-list";
import { FAILURES, REFUSED } from "@/components/usage/executions-link";

const PAGE = 25;

/**
 * A run's trace in a drawer at the page's right, as wide as the screen allows (a modal dialog:
 * Escape and the Close button close it, focus stays inside). Its run lives in the URL (?run=…).
 */
function TraceDrawer({ executionId, known, onClose }: { executionId: string; known?: Execution; onClose: () => void }) {
  const trpc = useTRPC();
  const dialog = useRef<HTMLDialogElement>(null);
  const loaded = useQuery({ ...trpc.runtime.execution.queryOptions({ executionId }), enabled: !known });
  const execution = known ?? loaded.data?.execution;
  useEffect(() => {
    if (!dialog.current?.open) dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} className="trace-drawer" aria-labelledby="trace-drawer-title" onClose={onClose}>
      <header className="trace-drawer-head">
        <div>
          <h2 id="trace-drawer-title" className="flush-top">
            Trace{execution?.itemName ? ` of ${execution.itemName}` : ""}
          </h2>
          {execution && (
            <p className="muted flush-top">
              {execution.kind} of the {execution.itemKind} · <When at={execution.createdAt} /> ·{" "}
              {execution.endUserEmail ?? execution.actor}
            </p>
          )}
        </div>
        <button type="button" onClick={() => dialog.current?.close()} aria-label="Close the trace">
          <X size={16} aria-hidden className="icon" /> Close
        </button>
      </header>
      <ErrorAlert error={loaded.error} />
      {execution ? <RunDetail execution={execution} /> : !loaded.error && <p className="muted">Loading…</p>}
    </dialog>
  );
}

/** A run's input, output and trace. */
function RunDetail({ execution }: { execution: Execution }) {
  return (
    <>
      <p className="flush-top">
        <strong>Input:</strong> <span className="trace-output">{execution.input}</span>
      </p>
      {execution.output && (
        <p>
          <strong>Output:</strong> <span className="trace-output">{execution.output}</span>
        </p>
      )}
      <ExecutionTrace execution={execution} />
    </>
  );
}

/**
 * What the log is filtered by; each lives in the URL (?endUser=…&portal=…&item=…&itemKind=…&status=…), so reload and back keep it.
 * `status=refused` lists the runs refused before they ran instead (RefusalsList), by `code`.
 */
type Filter = {
  endUser?: string;
  portal?: string;
  item?: string;
  itemKind?: ItemKind;
  status?: ExecutionStatus | typeof FAILURES | typeof REFUSED;
  feedback?: FeedbackRating;
  code?: RefusalCode;
};
const FILTER_KEYS = ["endUser", "portal", "item", "itemKind", "status", "feedback", "code"] as const;
/** The runs table's columns: when, what ran, its outcome, credits, latency, who, and its trace. */
function runColumns(showTrace: (executionId: string) => void): Column<Execution>[] {
  return [
    {
      key: "time",
      header: "Time",
      nowrap: true,
      cell: (execution) => (
        <span className="muted">
          <When at={execution.createdAt} />
        </span>
      ),
    },
    {
      key: "ran",
      header: "Ran",
      cell: (execution) => <RanCell execution={execution} />,
    },
    {
      key: "status",
      header: "Status",
      nowrap: true,
      cell: (execution) => <StatusCell execution={execution} />,
    },
    { key: "credits", header: "Credits", nowrap: true, cell: (execution) => execution.credits },
    { key: "latency", header: "Latency", nowrap: true, cell: (execution) => formatMs(execution.latencyMs) },
    {
      key: "by",
      header: "By",
      cell: (execution) => <ByCell execution={execution} />,
    },
    {
      key: "trace",
      header: "",
      nowrap: true,
      cell: (execution) => (
        <button type="button" aria-haspopup="dialog" onClick={() => showTrace(execution.id)}>
          Trace
        </button>
      ),
    },
  ];
}

/** The run whose trace is open in the drawer. */
const RUN_KEY = "run";
const REFUSAL_CODES = ["insufficient_credits"] as const;
type RefusalCode = (typeof REFUSAL_CODES)[number];
const STATUSES = [...EXECUTION_STATUSES, FAILURES, REFUSED] as const;
const FEEDBACK_LABELS: Record<FeedbackRating, string> = { up: "Rated helpful", down: "Rated not helpful" };

function readFilter(search: URLSearchParams): Filter {
  const status = search.get("status");
  return {
    endUser: search.get("endUser") ?? undefined,
    portal: search.get("portal") ?? undefined,
    item: search.get("item") ?? undefined,
    itemKind: ITEM_KINDS.find((known) => known === search.get("itemKind")),
    status: STATUSES.find((known) => known === status),
    feedback: FEEDBACK_RATINGS.find((known) => known === search.get("feedback")),
    code: status === REFUSED ? REFUSAL_CODES.find((known) => known === search.get("code")) : undefined,
  };
}

function Filters({ filter, onChange }: { filter: Filter; onChange: (next: Filter) => void }) {
  const trpc = useTRPC();
  const chosen = useQuery(trpc.endUsers.get.queryOptions(filter.endUser ? { endUserId: filter.endUser } : skipToken));
  const portals = usePortalList();
  const items = useEntities(ITEM_KINDS);
  const item = items.entities.find((entity) => entity.id === filter.item);
  return (
    <div
      className="row"
      style={{ alignItems: "flex-end", marginBottom: "1rem" }}
      role="search"
      aria-label="Filter executions"
    >
      {filter.item ? (
        <Chosen
          label="App, agent or flow"
          onClear={() => onChange({ ...filter, item: undefined, itemKind: undefined })}
          clearLabel="All items"
        >
          <span data-testid="item-filter">
            {item ? (
              <EntityLink kind={item.kind} id={item.id} name={item.name} />
            ) : filter.itemKind ? (
              <EntityName kind={filter.itemKind} id={filter.item} />
            ) : (
              "…"
            )}
          </span>
        </Chosen>
      ) : (
        <EntityPicker
          kinds={ITEM_KINDS}
          label="App, agent or flow"
          emptyText="No apps, agents or flows yet."
          onPick={(entity) =>
            onChange({ ...filter, item: entity.id, itemKind: ITEM_KINDS.find((known) => known === entity.kind) })
          }
        />
      )}
      <FormField label="Status">
        <Select
          value={filter.status ?? ""}
          onChange={(e) =>
            onChange({ ...filter, status: STATUSES.find((known) => known === e.target.value), code: undefined })
          }
          options={[
            ...EXECUTION_STATUSES.map((status) => ({ value: status, label: statusWords(status) })),
            { value: FAILURES, label: "Failures (failed or output invalid)" },
            { value: REFUSED, label: "Refused before running" },
          ]}
          placeholder="Any status"
        />
      </FormField>
      {filter.status === REFUSED ? (
        <FormField label="Why">
          <Select
            value={filter.code ?? ""}
            onChange={(e) => onChange({ ...filter, code: REFUSAL_CODES.find((known) => known === e.target.value) })}
            options={REFUSAL_CODES.map((code) => ({ value: code, label: code.replace("_", " ") }))}
            placeholder="Any reason"
          />
        </FormField>
      ) : (
        <FormField label="Feedback">
          <Select
            value={filter.feedback ?? ""}
            onChange={(e) =>
              onChange({ ...filter, feedback: FEEDBACK_RATINGS.find((known) => known === e.target.value) })
            }
            options={FEEDBACK_RATINGS.map((rating) => ({ value: rating, label: FEEDBACK_LABELS[rating] }))}
            placeholder="Any feedback"
          />
        </FormField>
      )}
      {filter.endUser ? (
        <Chosen label="End user" onClear={() => onChange({ ...filter, endUser: undefined })} clearLabel="All end users">
          <strong data-testid="end-user-filter">{chosen.data?.endUser.email ?? "…"}</strong>
        </Chosen>
      ) : (
        <EndUserPicker label="End user" onPick={(endUser) => onChange({ ...filter, endUser: endUser.id })} />
      )}
      <FormField label="Portal">
        <Select
          value={filter.portal ?? ""}
          onChange={(e) => onChange({ ...filter, portal: e.target.value || undefined })}
          options={portals.items.map((portal) => ({ value: portal.id, label: portal.name }))}
          placeholder="All portals and doors"
        />
      </FormField>
      <LoadMore list={portals} />
    </div>
  );
}

const ITEM_KINDS = ["app", "agent", "flow"] as const;
type ItemKind = (typeof ITEM_KINDS)[number];

/** A filter that is set: what it is set to, and the button that clears it. */
function Chosen({
  label,
  clearLabel,
  onClear,
  children,
}: {
  label: string;
  clearLabel: string;
  onClear: () => void;
  children: ReactNode;
}) {
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

export default urlStatePage(Executions);

function Executions() {
  const search = useSearchParams();
  const filter = readFilter(search);
  const { status } = filter;
  if (status === REFUSED) return <Refused filter={filter} />;
  return <Runs filter={{ ...filter, status }} />;
}

/** The log's filters above the runs refused before they ran. */
function Refused({ filter }: { filter: Filter }) {
  const filterBy = useFilterBy();
  return (
    <>
      <PageHeader
        title="Executions"
        description="Runs refused before they ran: nothing ran and nothing was charged, so they have no trace. Newest first."
      />
      <div className="panel" style={{ overflowX: "auto" }}>
        <Filters filter={filter} onChange={filterBy} />
        <RefusalsList
          filter={{ code: filter.code, appId: filter.item, endUserId: filter.endUser, portalId: filter.portal }}
        />
      </div>
    </>
  );
}

function useFilterBy() {
  const router = useRouter();
  const pathname = usePathname();
  return (next: Filter) => {
    const params = new URLSearchParams();
    for (const key of FILTER_KEYS) if (next[key]) params.set(key, next[key]);
    const query = params.toString();
    // A new history entry per filter, so Back returns to the previous one.
    router.push(query ? `${pathname}?${query}` : pathname);
  };
}

function Runs({ filter }: { filter: Filter & { status?: ExecutionStatus | typeof FAILURES } }) {
  const trpc = useTRPC();
  const filterBy = useFilterBy();
  const input = {
    order: "newest" as const,
    ...(filter.endUser ? { endUserId: filter.endUser } : {}),
    ...(filter.portal ? { portalId: filter.portal } : {}),
    ...(filter.item ? { itemId: filter.item } : {}),
    ...(filter.status === FAILURES ? { outcome: "failure" as const } : filter.status ? { status: filter.status } : {}),
    ...(filter.feedback ? { feedback: filter.feedback } : {}),
  };
  // A change of filter starts again from the first page.
  const executions = useCursorList(
    (cursor) => trpc.runtime.executions.queryOptions({ limit: PAGE, ...input, ...(cursor ? { cursor } : {}) }),
    (page) => page.executions,
  );

  const { open, showTrace } = useTraceParam();
  const rows = executions.items;
  return (
    <>
      <PageHeader
        title="Executions"
        description="Every run — conversation turns, transactions and test cases — with its credits, latency and what each member and node did, newest first."
      />
      <div className="panel" style={{ overflowX: "auto" }}>
        <Filters filter={filter} onChange={filterBy} />
        {executions.isLoading && <p className="muted">Loading…</p>}
        <ErrorAlert error={executions.error} />
        {/* On a phone each run is a card (console.css, .table-cards) and its open trace reads under it at the page's width. */}
        {executions.isLoaded && (
          <DataTable
            label="Runs"
            cards
            rows={rows}
            rowTestId="execution-row"
            empty={
              FILTER_KEYS.some((key) => filter[key]) ? (
                "No runs match these filters."
              ) : (
                <>
                  No runs yet: each conversation turn, transaction and test case shows here.{" "}
                  <Link href="/chat">Try an app in Chat</Link>.
                </>
              )
            }
            columns={runColumns(showTrace)}
          />
        )}
        <LoadMore list={executions} />
      </div>
      {open && (
        <TraceDrawer
          key={open}
          executionId={open}
          known={rows.find((execution) => execution.id === open)}
          onClose={() => showTrace(null)}
        />
      )}
    </>
  );
}

/** The run whose trace is open, in the URL (?run=…): opening it adds a history entry, closing it does not. */
function useTraceParam() {
  const search = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const open = search.get(RUN_KEY);
  function showTrace(executionId: string | null) {
    const params = new URLSearchParams(search.toString());
    if (executionId) params.set(RUN_KEY, executionId);
    else params.delete(RUN_KEY);
    const query = params.toString();
    if (executionId) router.push(`${pathname}?${query}`, { scroll: false });
    else router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  }
  return { open, showTrace };
}

/** What ran: a link to the item (or a deleted one), and the kind of run. */
function RanCell({ execution }: { execution: Execution }) {
  return (
    <div data-testid="execution-item" className="cell-min-9">
      {execution.itemName !== null ? (
        // A link only: the id to copy is on the item's page, not on every run.
        <Link href={entityHref(execution.itemKind as EntityKind, execution.itemId)}>
          {execution.itemName || "Untitled"}
        </Link>
      ) : (
        <span className="muted">A deleted {execution.itemKind}</span>
      )}
      <div className="muted">
        {execution.kind} of the {execution.itemKind}
      </div>
    </div>
  );
}

/** The outcome (awaiting approval links to the approval), and the feedback given on it. */
function StatusCell({ execution }: { execution: Execution }) {
  return (
    <>
      {execution.status === "succeeded" ? (
        <span className="badge">{statusWords(execution.status)}</span>
      ) : execution.status === "awaiting_approval" ? (
        <Link className="badge" href={`/approvals/${execution.id}`}>
          {statusWords(execution.status)}
        </Link>
      ) : (
        <span className="badge revoked">{statusWords(execution.status)}</span>
      )}
      {execution.feedback && (
        <div className="muted" data-testid="execution-feedback" title={execution.feedback.reason ?? undefined}>
          {execution.feedback.rating === "up" ? (
            <ThumbsUp size={14} aria-hidden />
          ) : (
            <ThumbsDown size={14} aria-hidden />
          )}{" "}
          {FEEDBACK_LABELS[execution.feedback.rating]}
          {execution.feedback.reason ? `: “${execution.feedback.reason}”` : ""}
        </div>
      )}
    </>
  );
}

/** Who ran it: the end user and portal, with the door it came through when that is not them. */
function ByCell({ execution }: { execution: Execution }) {
  return (
    <div className="muted cell-min-10">
      {execution.endUserEmail ? (
        <>
          <span data-testid="execution-end-user">{execution.endUserEmail}</span>
          {execution.portalName ? ` in ${execution.portalName}` : ""}
          {execution.actor !== execution.endUserEmail && (
            <>
              <br />
              <span className="small">via {execution.actor}</span>
            </>
          )}
        </>
      ) : (
        execution.actor
      )}
    </div>
  );
}
