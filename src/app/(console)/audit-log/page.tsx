"use client";
// Organization › Audit log: every change and sign-in, newest first, with the filters of
// GET /audit-events kept in the URL (reload and Back keep them), and an export of what they select.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Suspense, useState, type FormEvent } from "react";
import { DataTable, ErrorAlert, FormField, LoadMore, PageHeader, Panel, useCursorList } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { AUDIT_DOORS, type AuditEvent } from "@/schemas/audit";

const PAGE = 50;
const FILTERS = ["action", "actorId", "targetType", "targetId", "door"] as const;
type Filter = Partial<Record<(typeof FILTERS)[number], string>>;

function describeChanges(changes: AuditEvent["changes"]): string {
  return Object.entries(changes)
    .map(([field, [before, after]]) => `${field}: ${JSON.stringify(before)} → ${JSON.stringify(after)}`)
    .join("; ");
}

/** The console's streamed export of the events the filters on screen select. */
function exportHref(format: "csv" | "jsonl", filter: Filter): string {
  const params = new URLSearchParams({ format });
  for (const key of FILTERS) if (filter[key]) params.set(key, filter[key]!);
  return `/api/console/audit-events/export?${params}`;
}

export default function AuditLogPage() {
  return (
    <Suspense fallback={<p className="muted">Loading…</p>}>
      <AuditLog />
    </Suspense>
  );
}

function AuditLog() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const filter: Filter = Object.fromEntries(
    FILTERS.flatMap((key) => (search.get(key) ? [[key, search.get(key)!]] : [])),
  );
  const [draft, setDraft] = useState<Filter>(filter);
  const list = useCursorList(
    (cursor) =>
      trpc.audit.list.queryOptions({
        limit: PAGE,
        ...filter,
        door: filter.door as AuditEvent["door"] | undefined,
        ...(cursor ? { cursor } : {}),
      }),
    (page) => page.auditEvents,
  );

  function apply(event: FormEvent) {
    event.preventDefault();
    const params = new URLSearchParams();
    for (const key of FILTERS) if (draft[key]?.trim()) params.set(key, draft[key]!.trim());
    const query = params.toString();
    router.push(query ? `${pathname}?${query}` : pathname);
  }

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change made through the console, the API, MCP, the CLI, portals and the directory, and every sign-in, newest first. Nothing here can be changed or deleted."
        actions={
          <>
            <a className="button" href={exportHref("csv", filter)} download>
              Export CSV
            </a>
            <a className="button" href={exportHref("jsonl", filter)} download>
              Export JSON Lines
            </a>
          </>
        }
      />
      <form
        className="panel row"
        onSubmit={apply}
        aria-label="Filter the audit log"
        style={{ flexWrap: "wrap", gap: "0.5rem", alignItems: "end" }}
      >
        <FormField label="Action">
          <input
            value={draft.action ?? ""}
            onChange={(e) => setDraft({ ...draft, action: e.target.value })}
            placeholder="end_user.update or end_user."
          />
        </FormField>
        <FormField label="Actor id">
          <input value={draft.actorId ?? ""} onChange={(e) => setDraft({ ...draft, actorId: e.target.value })} />
        </FormField>
        <FormField label="Target type">
          <input
            value={draft.targetType ?? ""}
            onChange={(e) => setDraft({ ...draft, targetType: e.target.value })}
            placeholder="end_user"
          />
        </FormField>
        <FormField label="Target id">
          <input value={draft.targetId ?? ""} onChange={(e) => setDraft({ ...draft, targetId: e.target.value })} />
        </FormField>
        <FormField label="Door">
          <select value={draft.door ?? ""} onChange={(e) => setDraft({ ...draft, door: e.target.value })}>
            <option value="">Any</option>
            {AUDIT_DOORS.map((door) => (
              <option key={door} value={door}>
                {door}
              </option>
            ))}
          </select>
        </FormField>
        <button className="primary" type="submit">
          Filter
        </button>
      </form>
      <Panel>
        {list.isLoading && <p className="muted">Loading…</p>}
        <ErrorAlert error={list.error} />
        {list.isLoaded && (
          <DataTable
            label="Audit events"
            cards
            rows={list.items}
            rowKey={(event) => event.id}
            empty={FILTERS.some((key) => filter[key]) ? "No events match these filters." : "Nothing recorded yet."}
            columns={[
              {
                key: "when",
                header: "When",
                nowrap: true,
                cell: (event) => new Date(event.occurredAt).toLocaleString(),
              },
              {
                key: "who",
                header: "Who",
                cell: (event) => <span className="audit-name">{`${event.actor.label} (${event.actor.type})`}</span>,
              },
              { key: "door", header: "Door", nowrap: true, cell: (event) => event.door },
              {
                key: "action",
                header: "Action",
                nowrap: true,
                cell: (event) => (event.outcome === "failure" ? `${event.action} (failed)` : event.action),
              },
              {
                key: "target",
                header: "Target",
                cell: (event) => (
                  <span className="audit-name">{event.target.label || event.target.id || event.target.type}</span>
                ),
              },
              {
                key: "changes",
                header: "Changes",
                cell: (event) => <span className="audit-changes">{describeChanges(event.changes)}</span>,
              },
              {
                key: "request",
                header: "Request",
                cell: (event) => (
                  <span className="audit-request">
                    {[event.requestId, event.ipAddress].filter(Boolean).join(" · ")}
                  </span>
                ),
              },
            ]}
          />
        )}
        <LoadMore list={list} />
      </Panel>
    </>
  );
}
