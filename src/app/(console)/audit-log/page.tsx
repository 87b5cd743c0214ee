"use client";
// Organization › Audit log: every change and sign-in, newest first, each as a sentence with names
// ("ana@example.com gave Alice the plan Pro"), its before/after, door and request one click away.
// The filters (person, action, item, door, dates) are picked by name and kept in the URL, so
// reload and Back keep them; the export streams what they select.
import { useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useId, useState } from "react";
import {
  Button,
  CopyButton,
  ErrorAlert,
  FormField,
  LoadMore,
  PageHeader,
  Panel,
  SearchPicker,
  Select,
  type PickerOption,
  useCursorList,
  urlStatePage,
} from "@/components/console";
import { actionLabel, actorKindWords, fieldInSentence, KNOWN_ACTIONS, valueWords } from "@/lib/audit-words";
import { agoWords, doorWords } from "@/lib/change-words";
import { useTRPC } from "@/lib/trpc";
import { AUDIT_DOORS, type AuditEvent, type ReadableAuditEvent } from "@/schemas/org/audit";
import { fullWhen } from "@/lib/when";

const PAGE = 50;
const FILTERS = ["action", "actorId", "targetType", "targetId", "door", "from", "to"] as const;
type Filter = Partial<Record<(typeof FILTERS)[number], string>>;

const ITEM_KINDS: Record<string, string> = {
  end_user: "end user",
  app: "app",
  agent: "agent",
  flow: "flow",
  knowledgebase: "knowledgebase",
  page: "page",
  tier_plan: "plan",
  user_group: "group",
  portal: "portal",
  webhook_endpoint: "webhook endpoint",
};

/** The console's streamed export of the events the filters on screen select. */
function exportHref(format: "csv" | "jsonl", filter: Filter): string {
  const params = new URLSearchParams({ format });
  for (const key of FILTERS) if (filter[key]) params.set(key, filter[key]!);
  return `/api/console/audit-events/export?${params}`;
}

/** A date input's day as the start of that day (from) or of the next (to), in the reader's time zone. */
function dayBound(day: string, end: boolean): string {
  const at = new Date(`${day}T00:00:00`);
  if (end) at.setDate(at.getDate() + 1);
  return at.toISOString();
}

function dayOf(bound: string | undefined, end: boolean): string {
  if (!bound) return "";
  const at = new Date(bound);
  if (end) at.setDate(at.getDate() - 1);
  return `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, "0")}-${String(at.getDate()).padStart(2, "0")}`;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export default urlStatePage(AuditLog);

function AuditLog() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const filter: Filter = Object.fromEntries(
    FILTERS.flatMap((key) => (search.get(key) ? [[key, search.get(key)!]] : [])),
  );
  const list = useCursorList(
    (cursor) =>
      trpc.audit.readable.queryOptions({
        limit: PAGE,
        ...filter,
        door: filter.door as AuditEvent["door"] | undefined,
        ...(cursor ? { cursor } : {}),
      }),
    (page) => page.auditEvents,
  );

  function setFilter(change: Filter) {
    const params = new URLSearchParams();
    const next = { ...filter, ...change };
    for (const key of FILTERS) if (next[key]) params.set(key, next[key]!);
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
      <AuditFilters filter={filter} onChange={setFilter} firstEvent={list.items[0]} />
      <Panel>
        {list.isLoading && <p className="muted">Loading…</p>}
        <ErrorAlert error={list.error} />
        {list.isLoaded && (
          <section aria-label="Audit events" className="audit-events">
            {list.items.length === 0 ? (
              <p className="table-empty">
                {FILTERS.some((key) => filter[key]) ? "No events match these filters." : "Nothing recorded yet."}
              </p>
            ) : (
              <ol className="audit-list">
                {list.items.map((event) => (
                  <AuditRow key={event.id} event={event} onFilter={setFilter} />
                ))}
              </ol>
            )}
          </section>
        )}
        <LoadMore list={list} />
      </Panel>
    </>
  );
}

/** Person, action and item picked by name, door and days; each applies as soon as it is chosen. */
/** People as a select's options: each named with what they are (a member's email, a key's prefix). */
function personOptions(people: { id: string; name: string; detail: string }[]) {
  return people.map((person) => ({ value: person.id, label: `${person.name} (${person.detail})` }));
}

function AuditFilters({
  filter,
  onChange,
  firstEvent,
}: {
  filter: Filter;
  onChange: (change: Filter) => void;
  firstEvent: ReadableAuditEvent | undefined;
}) {
  const trpc = useTRPC();
  const options = useQuery(trpc.audit.filterOptions.queryOptions());
  const [query, setQuery] = useState("");
  const found = useQuery({ ...trpc.find.byName.queryOptions({ q: query }), enabled: query.trim().length > 0 });
  const needle = query.trim().toLowerCase();
  const items: PickerOption[] = [
    ...(found.data?.items ?? []).map((item) => ({
      id: `${item.kind}:${item.id}`,
      label: item.name,
      hint: ITEM_KINDS[item.kind] ?? item.kind,
    })),
    ...(options.data?.items ?? [])
      .filter((item) => needle && item.name.toLowerCase().includes(needle))
      .map((item) => ({ id: `${item.type}:${item.id}`, label: item.name, hint: ITEM_KINDS[item.type] ?? item.type })),
  ];
  const people = options.data?.people ?? [];
  const pickedPerson = filter.actorId && !people.some((person) => person.id === filter.actorId);
  const itemName =
    filter.targetId &&
    (options.data?.items.find((item) => item.id === filter.targetId)?.name ??
      (firstEvent?.target.id === filter.targetId ? firstEvent.target.name : "") ??
      "");

  return (
    <section className="panel audit-filters" aria-label="Filter the audit log">
      <FormField label="Person">
        <Select
          value={filter.actorId ?? ""}
          onChange={(e) => onChange({ actorId: e.target.value })}
          placeholder="Anyone"
          options={[
            ...(pickedPerson ? [{ value: filter.actorId!, label: "The one picked" }] : []),
            { group: "Members", options: personOptions(people.filter((person) => person.type === "member")) },
            { group: "API keys", options: personOptions(people.filter((person) => person.type !== "member")) },
          ]}
        />
      </FormField>
      <FormField label="Action">
        <Select
          value={filter.action ?? ""}
          onChange={(e) => onChange({ action: e.target.value })}
          placeholder="Any action"
          options={[
            ...(filter.action && !Object.values(KNOWN_ACTIONS).flat().includes(filter.action)
              ? [{ value: filter.action, label: filter.action }]
              : []),
            ...Object.entries(KNOWN_ACTIONS).map(([group, actions]) => ({
              group,
              options: actions.map((action) => ({ value: action, label: actionLabel(action) })),
            })),
          ]}
        />
      </FormField>
      {filter.targetId ? (
        <div className="audit-picked-item">
          <span className="audit-picked-label">Item</span>
          <span className="audit-chip">
            {itemName || "The item picked"}
            <Button
              variant="link"
              aria-label={`Clear the item filter${itemName ? ` (${itemName})` : ""}`}
              onClick={() => onChange({ targetId: "", targetType: "" })}
            >
              ×
            </Button>
          </span>
        </div>
      ) : (
        <SearchPicker
          label="Item"
          placeholder="An end user, app, plan, group…"
          options={items}
          onQueryChange={setQuery}
          searching={found.isLoading}
          emptyText={needle ? "Nothing of that name." : "Type a name."}
          onPick={(option) => {
            const [, id] = option.id.split(":");
            onChange({ targetId: id ?? "" });
          }}
        />
      )}
      <FormField label="Door">
        <Select
          value={filter.door ?? ""}
          onChange={(e) => onChange({ door: e.target.value })}
          options={AUDIT_DOORS.map((door) => ({
            value: door,
            label: doorWords(door)
              .replace(/^(in|through|from|with|by) (the )?/, "")
              .replace(/^./, (c) => c.toUpperCase()),
          }))}
          placeholder="Any"
        />
      </FormField>
      <FormField label="From">
        <input
          type="date"
          value={dayOf(filter.from, false)}
          onChange={(e) => onChange({ from: e.target.value ? dayBound(e.target.value, false) : "" })}
        />
      </FormField>
      <FormField label="To">
        <input
          type="date"
          value={dayOf(filter.to, true)}
          onChange={(e) => onChange({ to: e.target.value ? dayBound(e.target.value, true) : "" })}
        />
      </FormField>
      {Object.values(filter).some(Boolean) && (
        <Button className="audit-clear" onClick={() => onChange(Object.fromEntries(FILTERS.map((key) => [key, ""])))}>
          Clear filters
        </Button>
      )}
    </section>
  );
}

/** One event: when, the sentence, and on demand its before/after, door, request and address. */
function AuditRow({ event, onFilter }: { event: ReadableAuditEvent; onFilter: (change: Filter) => void }) {
  const [open, setOpen] = useState(false);
  const detailId = useId();
  const changes = Object.entries(event.changes);
  return (
    <li className={`audit-item${event.outcome === "failure" ? " audit-failed" : ""}`}>
      <div className="audit-line">
        <time dateTime={event.occurredAt} title={fullWhen(event.occurredAt)}>
          {agoWords(event.occurredAt)}
        </time>
        <p className="audit-sentence">
          {event.sentence}
          {event.outcome === "failure" && <span className="badge revoked">failed</span>}
        </p>
        <span className="audit-tags">
          <span className="badge">{actorKindWords(event.actor)}</span>{" "}
          <span className="muted">{doorWords(event.door)}</span>
        </span>
        <button type="button" aria-expanded={open} aria-controls={detailId} onClick={() => setOpen(!open)}>
          {open ? "Hide details" : "Details"}
        </button>
      </div>
      {open && (
        <div id={detailId} className="audit-detail">
          {changes.length > 0 && (
            <table className="audit-diff">
              <caption className="visually-hidden">What changed</caption>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Before</th>
                  <th scope="col">After</th>
                </tr>
              </thead>
              <tbody>
                {changes.map(([field, [before, after]]) => (
                  <tr key={field}>
                    <th scope="row">{capitalised(fieldInSentence(field, before, after))}</th>
                    <td>{valueWords(before, event.names)}</td>
                    <td>{valueWords(after, event.names)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <dl className="audit-facts">
            <dt>When</dt>
            <dd>{fullWhen(event.occurredAt)}</dd>
            <dt>Who</dt>
            <dd>
              {event.actor.name} ({actorKindWords(event.actor)})
              {event.actor.id && (
                <Button variant="link" onClick={() => onFilter({ actorId: event.actor.id! })}>
                  Everything by them
                </Button>
              )}
            </dd>
            {event.target.id && (
              <>
                <dt>Item</dt>
                <dd>
                  {event.target.name || event.target.type}
                  <Button variant="link" onClick={() => onFilter({ targetId: event.target.id! })}>
                    Everything on this item
                  </Button>
                </dd>
              </>
            )}
            <dt>Door</dt>
            <dd>{doorWords(event.door)}</dd>
            <dt>Action</dt>
            <dd>
              <code>{event.action}</code>
            </dd>
            {event.requestId && (
              <>
                <dt>Request id</dt>
                <dd>
                  <code>{event.requestId}</code> <CopyButton text={event.requestId} label="Copy request id" />
                </dd>
              </>
            )}
            {event.ipAddress && (
              <>
                <dt>Address</dt>
                <dd>{event.ipAddress}</dd>
              </>
            )}
            {event.userAgent && (
              <>
                <dt>Browser or client</dt>
                <dd className="audit-agent">{event.userAgent}</dd>
              </>
            )}
          </dl>
        </div>
      )}
    </li>
  );
}
