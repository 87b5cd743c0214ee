// The audit log, read from audit_events (written by events.ts): a filtered list newest first,
// an export streamed page by page (never the whole log in memory), and the retention sweep,
// the one path the table's append-only trigger lets delete.
import { auditSentence } from "@/lib/audit-words";
import type {
  AuditEvent,
  AuditFilterOptions,
  AuditFilters,
  ExportAuditEventsInput,
  ListAuditEventsInput,
  ReadableAuditEvent,
} from "@/schemas/org/audit";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { decodeCursor, encodeCursor } from "../support/pagination";

interface AuditRow {
  id: string;
  occurred_at: Date;
  actor_type: AuditEvent["actor"]["type"];
  actor_id: string | null;
  actor_label: string;
  door: AuditEvent["door"];
  action: string;
  target_type: string;
  target_id: string | null;
  target_label: string;
  changes: AuditEvent["changes"];
  request_id: string | null;
  ip_address: string | null;
  user_agent: string | null;
  outcome: AuditEvent["outcome"];
}

function toAuditEvent(row: AuditRow): AuditEvent {
  return {
    id: row.id,
    occurredAt: row.occurred_at.toISOString(),
    actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
    door: row.door,
    action: row.action,
    target: { type: row.target_type, id: row.target_id, label: row.target_label },
    changes: row.changes,
    requestId: row.request_id,
    ipAddress: row.ip_address,
    userAgent: row.user_agent,
    outcome: row.outcome,
  };
}

const COLUMNS = `id, occurred_at, actor_type, actor_id, actor_label, door, action, target_type, target_id, target_label, changes, request_id, ip_address, user_agent, outcome`;

/** The where clause of the filters and the cursor (rows before it, newest first), with its values. */
function whereOf(
  organizationId: string,
  filters: Partial<AuditFilters>,
  before: { at: Date; id: string } | null,
): { sql: string; values: unknown[] } {
  const values: unknown[] = [organizationId];
  const clauses = ["organization_id = $1::uuid"];
  const add = (clause: (n: string) => string, value: unknown) => {
    values.push(value);
    clauses.push(clause(`$${values.length}`));
  };
  if (filters.actorId) add((n) => `actor_id = ${n}`, filters.actorId);
  // An action ending with "." names every action on that resource ("end_user.").
  if (filters.action?.endsWith(".")) add((n) => `starts_with(action, ${n})`, filters.action);
  else if (filters.action) add((n) => `action = ${n}`, filters.action);
  if (filters.targetType) add((n) => `target_type = ${n}`, filters.targetType);
  if (filters.targetId) add((n) => `target_id = ${n}`, filters.targetId);
  if (filters.door) add((n) => `door = ${n}`, filters.door);
  if (filters.from) add((n) => `occurred_at >= ${n}::timestamptz`, filters.from);
  if (filters.to) add((n) => `occurred_at < ${n}::timestamptz`, filters.to);
  if (before) {
    values.push(before.at, before.id);
    clauses.push(`(occurred_at, id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
  }
  return { sql: clauses.join(" and "), values };
}

async function page(
  db: Db,
  organizationId: string,
  filters: Partial<AuditFilters>,
  before: { at: Date; id: string } | null,
  limit: number,
): Promise<AuditRow[]> {
  const where = whereOf(organizationId, filters, before);
  const { rows } = await db.pool.query<AuditRow>(
    `select ${COLUMNS} from audit_events where ${where.sql} order by occurred_at desc, id desc limit ${Number(limit)}`,
    where.values,
  );
  return rows;
}

export const listAuditEvents = guarded(
  { scope: "audit:read", may: "settings" },
  async function listAuditEvents(
    db: Db,
    actor: Actor,
    input: ListAuditEventsInput,
  ): Promise<{
    auditEvents: AuditEvent[];
    nextCursor: string | null;
  }> {
    const cursor = input.cursor ? decodeCursor(input.cursor) : null;
    const rows = await page(
      db,
      actor.organizationId,
      input,
      cursor && { at: cursor.createdAt, id: cursor.id },
      input.limit + 1,
    );
    const items = rows.slice(0, input.limit);
    const last = items[items.length - 1];
    return {
      auditEvents: items.map(toAuditEvent),
      nextCursor: rows.length > input.limit && last ? encodeCursor({ createdAt: last.occurred_at, id: last.id }) : null,
    };
  },
);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every id-shaped string inside a value (the `changes` of an event), for resolving to names. */
function idsIn(value: unknown, into: Set<string>): void {
  if (typeof value === "string") {
    if (UUID.test(value)) into.add(value.toLowerCase());
  } else if (Array.isArray(value)) for (const item of value) idsIn(item, into);
  else if (value && typeof value === "object") for (const item of Object.values(value)) idsIn(item, into);
}

interface NameRow {
  id: string;
  name: string;
  /** A member's role while they belong to the organization. */
  role: string | null;
}

/**
 * Today's names of the given ids among the organization's people and items, in one statement
 * scoped by organization in every branch: an id of another organization resolves to nothing.
 */
async function namesOf(db: Db, organizationId: string, ids: string[]): Promise<Map<string, NameRow>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.pool.query<NameRow>(
    `select m.id::text, u.email as name, case when m.removed_at is null then m.role::text end as role
       from members m join users u on u.id = m.user_id where m.organization_id = $1::uuid and m.id = any($2::uuid[])
     union all select e.id::text, case when e.full_name = '' then e.email else e.full_name end, null
       from end_users e where e.organization_id = $1::uuid and e.id = any($2::uuid[]) and e.deleted_at is null
     union all select s.id::text, case when e.full_name = '' then e.email else e.full_name end, null
       from subscriptions s join end_users e on e.id = s.end_user_id
       where e.organization_id = $1::uuid and s.id = any($2::uuid[]) and e.deleted_at is null
     union all select k.id::text, k.name, null from api_keys k where k.organization_id = $1::uuid and k.id = any($2::uuid[])
     union all select p.id::text, p.name, null from tier_plans p where p.organization_id = $1::uuid and p.id = any($2::uuid[])
     union all select g.id::text, g.name, null from user_groups g where g.organization_id = $1::uuid and g.id = any($2::uuid[])
     union all select i.id::text, coalesce(i.draft->>'name', ''), null
       from builder_items i where i.organization_id = $1::uuid and i.id = any($2::uuid[])
     union all select k.id::text, k.name, null from knowledgebases k where k.organization_id = $1::uuid and k.id = any($2::uuid[])
     union all select p.id::text, p.name, null from portals p where p.organization_id = $1::uuid and p.id = any($2::uuid[])
     union all select w.id::text, w.url, null from webhook_endpoints w where w.organization_id = $1::uuid and w.id = any($2::uuid[])
     union all select s.id::text, s.name, null from sources s where s.organization_id = $1::uuid and s.id = any($2::uuid[])
     union all select p.id::text, p.title, null from pages p where p.organization_id = $1::uuid and p.id = any($2::uuid[])`,
    [organizationId, ids],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** Targets named after people: today's name reads better than the address stored then. */
const LIVE_NAMED_TARGETS = new Set(["end_user", "member", "subscription"]);

function readable(event: AuditEvent, names: Map<string, NameRow>): ReadableAuditEvent {
  const actorRow = event.actor.id ? names.get(event.actor.id.toLowerCase()) : undefined;
  const targetRow = event.target.id ? names.get(event.target.id.toLowerCase()) : undefined;
  const storedTarget = UUID.test(event.target.label) ? "" : event.target.label;
  const targetName =
    (LIVE_NAMED_TARGETS.has(event.target.type) ? targetRow?.name || storedTarget : storedTarget || targetRow?.name) ??
    "";
  const ownIds = new Set<string>();
  idsIn(event.changes, ownIds);
  const changeNames: Record<string, string> = {};
  for (const id of ownIds) if (names.get(id)?.name) changeNames[id] = names.get(id)!.name;
  const resolved = {
    ...event,
    actor: {
      ...event.actor,
      name:
        (event.actor.type === "member" || event.actor.type === "end_user" ? actorRow?.name : null) || event.actor.label,
      role: event.actor.type === "member" ? (actorRow?.role ?? null) : null,
    },
    target: { ...event.target, name: targetName },
    names: changeNames,
  };
  return { ...resolved, sentence: auditSentence(resolved) };
}

/**
 * The console's Audit log: the list's filters and pages, each event with its actor, target and
 * the ids inside its changes named as the organization calls them today, and as a sentence.
 */
export const readAuditLog = guarded(
  { scope: "audit:read", may: "settings" },
  async function readAuditLog(
    db: Db,
    actor: Actor,
    input: ListAuditEventsInput,
  ): Promise<{ auditEvents: ReadableAuditEvent[]; nextCursor: string | null }> {
    const listed = await listAuditEvents(db, actor, input);
    const ids = new Set<string>();
    for (const event of listed.auditEvents) {
      for (const id of [event.actor.id, event.target.id]) if (id && UUID.test(id)) ids.add(id.toLowerCase());
      idsIn(event.changes, ids);
    }
    const names = await namesOf(db, actor.organizationId, [...ids]);
    return {
      auditEvents: listed.auditEvents.map((event) => readable(event, names)),
      nextCursor: listed.nextCursor,
    };
  },
);

/** The people and keys who act in the organization, and its items picked by name in the filters. */
export const auditFilterOptions = guarded(
  { scope: "audit:read", may: "settings" },
  async function auditFilterOptions(db: Db, actor: Actor): Promise<AuditFilterOptions> {
    const organizationId = actor.organizationId;
    const [people, items] = await Promise.all([
      db.pool.query<AuditFilterOptions["people"][number]>(
        `(select m.id::text, 'member' as type, u.email as name,
            case when m.removed_at is null then m.role::text else 'former member' end as detail
          from members m join users u on u.id = m.user_id where m.organization_id = $1::uuid order by u.email limit 500)
         union all
         (select k.id::text, case when k.kind = 'personal' then 'personal_key' else 'org_key' end, k.name,
            case when k.revoked_at is null then 'API key' else 'revoked API key' end
          from api_keys k where k.organization_id = $1::uuid order by k.name limit 500)`,
        [organizationId],
      ),
      db.pool.query<AuditFilterOptions["items"][number]>(
        `(select p.id::text, 'tier_plan' as type, p.name from tier_plans p where p.organization_id = $1::uuid order by p.name limit 200)
         union all (select g.id::text, 'user_group', g.name from user_groups g where g.organization_id = $1::uuid order by g.name limit 200)
         union all (select p.id::text, 'portal', p.name from portals p where p.organization_id = $1::uuid order by p.name limit 200)
         union all (select w.id::text, 'webhook_endpoint', w.url from webhook_endpoints w where w.organization_id = $1::uuid order by w.url limit 200)`,
        [organizationId],
      ),
    ]);
    return { people: people.rows, items: items.rows };
  },
);

const EXPORT_PAGE = 1000;
const CSV_COLUMNS = [
  "id",
  "occurredAt",
  "actorType",
  "actorId",
  "actorLabel",
  "door",
  "action",
  "targetType",
  "targetId",
  "targetLabel",
  "changes",
  "requestId",
  "ipAddress",
  "userAgent",
  "outcome",
];

function csvField(value: unknown): string {
  const text = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  // A leading =, +, - or @ would run as a formula in a spreadsheet: prefixed with a quote.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function csvLine(event: AuditEvent): string {
  const values = [
    event.id,
    event.occurredAt,
    event.actor.type,
    event.actor.id,
    event.actor.label,
    event.door,
    event.action,
    event.target.type,
    event.target.id,
    event.target.label,
    event.changes,
    event.requestId,
    event.ipAddress,
    event.userAgent,
    event.outcome,
  ];
  return `${values.map(csvField).join(",")}\r\n`;
}

/**
 * Every matching event, newest first, as lines of text (JSON Lines, or CSV after its header),
 * read a page at a time: memory stays bounded by one page whatever the log's size. The first
 * page is read before this returns, so a database that cannot answer fails the request with its
 * error instead of a 200 whose body breaks off.
 */
export const exportAuditEvents = guarded(
  { scope: "audit:read", may: "settings" },
  async function exportAuditEvents(
    db: Db,
    actor: Actor,
    input: ExportAuditEventsInput,
  ): Promise<AsyncGenerator<string>> {
    const organizationId = actor.organizationId;
    const firstPage = await page(db, organizationId, input, null, EXPORT_PAGE);
    async function* lines(): AsyncGenerator<string> {
      if (input.format === "csv") yield `${CSV_COLUMNS.join(",")}\r\n`;
      let before: { at: Date; id: string } | null = null;
      for (;;) {
        const rows: typeof firstPage = before ? await page(db, organizationId, input, before, EXPORT_PAGE) : firstPage;
        if (rows.length === 0) return;
        yield rows
          .map((row) =>
            input.format === "csv" ? csvLine(toAuditEvent(row)) : `${JSON.stringify(toAuditEvent(row))}\n`,
          )
          .join("");
        const last = rows[rows.length - 1]!;
        before = { at: last.occurred_at, id: last.id };
        if (rows.length < EXPORT_PAGE) return;
      }
    }
    return lines();
  },
);

/**
 * Deletes the events older than each organization's retention (audit_retention_days): the only
 * deletion the append-only trigger allows, since this transaction sets atrium.audit_sweep.
 */
export async function sweepAuditEvents(db: Db): Promise<number> {
  const [, deleted] = await db.$transaction([allowSweep(db), deleteExpired(db)]);
  return deleted;
}

function allowSweep(db: Pick<Db, "$executeRaw">) {
  return db.$executeRaw`select set_config('atrium.audit_sweep', 'on', true)`;
}

function deleteExpired(db: Pick<Db, "$executeRaw">) {
  return db.$executeRaw`delete from audit_events e using organizations o
    where o.id = e.organization_id and e.occurred_at < now() - o.audit_retention_days * interval '1 day'`;
}

/** How often the retention sweep runs (src/server/jobs/webhook-delivery.ts asks; one process sweeps). */
export const AUDIT_SWEEP_EVERY_MS = 24 * 3_600_000;
const SWEEP_TASK = "audit_sweep";

/**
 * The scheduled sweep: when its time has come (scheduled_tasks), the caller that moves the next
 * run on sweeps, in the same transaction; every other process asking meanwhile finds it not due.
 * Returns the events deleted, or null when it was not this caller's to run.
 */
export async function sweepAuditEventsWhenDue(db: Db, now = new Date()): Promise<number | null> {
  const next = new Date(now.getTime() + AUDIT_SWEEP_EVERY_MS);
  return db.$transaction(async (tx) => {
    // Of processes racing here, the row lock lets one move next_run_at; the others re-check and find it in the future.
    const claimed = await tx.$executeRaw`
      insert into scheduled_tasks (name, next_run_at) values (${SWEEP_TASK}, ${next})
      on conflict (name) do update set next_run_at = excluded.next_run_at where scheduled_tasks.next_run_at <= ${now}`;
    if (claimed !== 1) return null;
    await allowSweep(tx);
    return deleteExpired(tx);
  });
}
