// Usage: a rollup per UTC hour, day and month, written as runs finish and as refusals happen, and the
// reports read from it (GET /usage, the console's charts, the portal's credits). A report never
// reads executions: it sums at most one row per day (or hour, for a window that is not whole days)
// and group (BENCHMARKS.md).
import {
  USAGE_DEFAULT_DAYS,
  USAGE_MAX_DAYS,
  USAGE_MAX_GROUPS,
  USAGE_METRICS,
  type PortalUsage,
  type Refusal,
  type UsageGroup,
  type UsageGroupBy,
  type UsageInterval,
  type UsageMetrics,
  type UsagePoint,
  type UsageReport,
} from "@/schemas/runs/usage";
import { FAILURE_STATUSES, type ExecutionUsage } from "@/schemas/runs/runtime";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import { NO_FLUSH, type Db } from "@/server/db";
import { invalidRequest } from "@/server/errors";
import { logger } from "@/server/observability/log";
import { POOL_BONUS_SQL, POOL_USED_SQL } from "../support/credit-pool";
import { builderItemNames } from "../support/item-names";
import { beforeCursor, NEWEST_FIRST, toPage } from "../support/pagination";

/** The key of "none" (a run without an end user, portal or plan) and of the organization's own row. */
const NONE = "00000000-0000-0000-0000-000000000000";
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

type Dimension = "organization" | UsageGroupBy;

// ---- Writing ----

export interface UsageEvent {
  organizationId: string;
  /** When it happened; now unless a test or a backfill says otherwise. */
  at?: Date;
  /** The app run (for test runs: the agent, flow or app tested). */
  appId?: string | null;
  endUserId?: string | null;
  portalId?: string | null;
  /** The end user's pool that paid; without it the pool their next charge would take counts. */
  subscriptionId?: string | null;
  metrics?: Partial<UsageMetrics>;
  /** The error code of a run refused before it ran. */
  refusal?: string;
}

/** The rollup's counters a run adds to (searches only where a run is not split by model). */
const RUN_COUNTERS = [
  "credits",
  "conversations",
  "turns",
  "transactions",
  "test_runs",
  "failures",
  "input_tokens",
  "output_tokens",
];

/** `column = r.column + excluded.column` for each counter: an upsert adds to the bucket. */
function addedCounters(columns: readonly string[], ...more: string[]): string {
  return [...columns, ...more].map((column) => `${column} = r.${column} + excluded.${column}`).join(",\n    ");
}

/**
 * One upsert per event, a row per grain (hour, day, month) and dimension, always in the same order so concurrent writers
 * lock rows alike. The plan is the paying pool's, else the end user's first pool in charge order.
 * Like rate-limit counters it does not wait for a WAL flush (NO_FLUSH in src/server/db.ts): a
 * turn waits for one flush, its record's, and a crash of PostgreSQL loses at most the last
 * fraction of a second of usage, never a charge or a run.
 */
const USAGE_EVENT_CTE = `event as (
    select $1::uuid as organization_id,
      coalesce(
        (select s.tier_plan_id from subscriptions s join end_users u on u.id = s.end_user_id where s.id = $6::uuid and u.organization_id = $1::uuid),
        (select s.tier_plan_id from subscriptions s join end_users u on u.id = s.end_user_id
          where s.end_user_id = $4::uuid and u.organization_id = $1::uuid and s.status = 'active'
          order by s.credits_reset_at, s.created_at, s.id limit 1)
      ) as plan_id
    from no_flush
  )`;
const USAGE_TOTALS_INSERT = `insert into usage_rollup as r (organization_id, grain, dimension, key_id, starts_at, credits, conversations, turns, transactions, test_runs, searches, failures, input_tokens, output_tokens, refusals)
  select e.organization_id, g.grain, d.dimension, coalesce(d.key_id, '${NONE}'::uuid), date_trunc(g.grain, $2::timestamptz, 'UTC'),
    $7::int8, $8::int8, $9::int8, $10::int8, $11::int8, $12::int8, $13::int8, $14::int8, $15::int8, $16::jsonb
  from event e
  cross join (values ('day'), ('hour'), ('month')) as g(grain)
  cross join lateral (values (1, 'organization', null::uuid), (2, 'app', $3::uuid), (3, 'end_user', $4::uuid), (4, 'portal', $5::uuid), (5, 'plan', e.plan_id)) as d(n, dimension, key_id)
  order by g.grain, d.n
  on conflict (organization_id, grain, dimension, key_id, starts_at) do update set
    ${addedCounters(RUN_COUNTERS, "searches")},
    refusals = case when excluded.refusals = '{}'::jsonb then r.refusals else (
      select jsonb_object_agg(code, coalesce((r.refusals ->> code)::int8, 0) + coalesce((excluded.refusals ->> code)::int8, 0))
      from jsonb_object_keys(r.refusals || excluded.refusals) as code
    ) end`;
const RECORD_USAGE_SQL = `
  with no_flush as (${NO_FLUSH}),
  ${USAGE_EVENT_CTE}
  ${USAGE_TOTALS_INSERT}`;

/**
 * Adds the event to its hour, day and month. It never throws: the run it follows is recorded and billed
 * already, and its caller must not take a failure here for the run's (and refund it).
 */
export async function recordUsage(db: Db, event: UsageEvent): Promise<void> {
  await db.pool
    .query({ name: "atrium_record_usage", text: RECORD_USAGE_SQL, values: usageValues(event) })
    .catch((error: unknown) =>
      logger().error({ err: error, organizationId: event.organizationId }, "Usage could not be recorded"),
    );
}

/** The parameters $1–$16 of RECORD_USAGE_SQL (and of RECORD_RUN_USAGE_SQL's first part). */
function usageValues(event: UsageEvent): unknown[] {
  const metrics = event.metrics ?? {};
  return [
    event.organizationId,
    (event.at ?? new Date()).toISOString(),
    event.appId ?? null,
    event.endUserId ?? null,
    event.portalId ?? null,
    event.subscriptionId ?? null,
    ...USAGE_METRICS.map((metric) => metrics[metric] ?? 0),
    JSON.stringify(event.refusal ? { [event.refusal]: 1 } : {}),
  ];
}

/** What a finished run adds: its credits, one turn, transaction or test case, and a failure if it failed. */
export interface RunUsage {
  kind: "conversation" | "transaction" | "test";
  itemId: string;
  status: string;
  credits: number;
  endUserId?: string | null;
  portalId?: string | null;
  subscriptionId?: string | null;
  /** The run started a conversation (its first turn, saved). */
  conversationStarted?: boolean;
  /** The run's model calls: its tokens, and by model its share of the credits. */
  usage?: ExecutionUsage;
  at?: Date;
}

/**
 * A run's totals (as RECORD_USAGE_SQL, $1–$16) and its row per model it called (the `model`
 * dimension), in one statement: its calls' tokens and credits summed by model ($17–$20), and the
 * run counted once in each. The key is md5(model id) made a version-8 uuid; usage_models keeps the
 * id for the report's names. The two inserts touch different rows (their dimensions differ).
 */
const RECORD_RUN_USAGE_SQL = `
  with no_flush as (${NO_FLUSH}),
  ${USAGE_EVENT_CTE},
  totals as (${USAGE_TOTALS_INSERT} returning 1),
  models as (
    select c.model_id, overlay(overlay(md5(c.model_id) placing '8' from 13 for 1) placing '8' from 17 for 1)::uuid as key_id, sum(c.credits)::int8 as credits, sum(c.input)::int8 as input, sum(c.output)::int8 as output
    from no_flush, unnest($17::text[], $18::int8[], $19::int8[], $20::int8[]) as c(model_id, credits, input, output)
    group by c.model_id
  ),
  names as (
    insert into usage_models (organization_id, key_id, model_id) select $1::uuid, key_id, model_id from models
    on conflict do nothing
  )
  insert into usage_rollup as r (organization_id, grain, dimension, key_id, starts_at, credits, conversations, turns, transactions, test_runs, failures, input_tokens, output_tokens)
  select $1::uuid, g.grain, 'model', m.key_id, date_trunc(g.grain, $2::timestamptz, 'UTC'), m.credits, $8::int8, $9::int8, $10::int8, $11::int8, $13::int8, m.input, m.output
  from models m cross join (values ('day'), ('hour'), ('month')) as g(grain)
  order by g.grain, m.key_id
  on conflict (organization_id, grain, dimension, key_id, starts_at) do update set
    ${addedCounters(RUN_COUNTERS)}`;

/** Adds a finished run to the rollup: one statement, with its rows by model when it called any. Never throws. */
export async function recordRunUsage(db: Db, organizationId: string, run: RunUsage): Promise<void> {
  const event: UsageEvent = {
    organizationId,
    at: run.at ?? new Date(),
    appId: run.itemId,
    endUserId: run.endUserId,
    portalId: run.portalId,
    subscriptionId: run.subscriptionId,
    metrics: {
      credits: run.credits,
      conversations: run.conversationStarted ? 1 : 0,
      turns: run.kind === "conversation" ? 1 : 0,
      transactions: run.kind === "transaction" ? 1 : 0,
      testRuns: run.kind === "test" ? 1 : 0,
      failures: (FAILURE_STATUSES as readonly string[]).includes(run.status) ? 1 : 0,
      inputTokens: run.usage?.inputTokens ?? 0,
      outputTokens: run.usage?.outputTokens ?? 0,
    },
  };
  const calls = run.usage?.calls ?? [];
  if (calls.length === 0) return recordUsage(db, event);
  await db.pool
    .query({
      name: "atrium_record_run_usage",
      text: RECORD_RUN_USAGE_SQL,
      values: [
        ...usageValues(event),
        calls.map((call) => call.model),
        calls.map((call) => call.credits),
        calls.map((call) => call.inputTokens),
        calls.map((call) => call.outputTokens),
      ],
    })
    .catch((error: unknown) => logger().error({ err: error, organizationId }, "Usage could not be recorded"));
}

/**
 * A refusal's own row, for the list of refused runs. The plan is the pool the end user's next
 * charge would have taken, as the rollup counts it.
 */
const RECORD_REFUSAL_SQL = `
  with no_flush as (${NO_FLUSH})
  insert into run_refusals (id, organization_id, code, app_id, end_user_id, portal_id, plan_id, created_at)
  select gen_random_uuid(), $1::uuid, $2, $3::uuid, $4::uuid, $5::uuid,
    (select s.tier_plan_id from subscriptions s join end_users u on u.id = s.end_user_id
      where s.end_user_id = $4::uuid and u.organization_id = $1::uuid and s.status = 'active'
      order by s.credits_reset_at, s.created_at, s.id limit 1),
    $6::timestamptz
  from no_flush`;

/**
 * A run refused before it ran (402 and the like): counted apart, never as a turn or a failure, and
 * kept as a row of its own (not an execution: nothing ran). Like recordUsage it never throws.
 */
export async function recordRefusal(
  db: Db,
  event: Omit<UsageEvent, "metrics" | "refusal">,
  code: string,
): Promise<void> {
  const at = event.at ?? new Date();
  await db.pool
    .query({
      name: "atrium_record_refusal",
      text: RECORD_REFUSAL_SQL,
      values: [
        event.organizationId,
        code,
        event.appId ?? null,
        event.endUserId ?? null,
        event.portalId ?? null,
        at.toISOString(),
      ],
    })
    .catch((error: unknown) =>
      logger().error({ err: error, organizationId: event.organizationId }, "A refusal could not be recorded"),
    );
  await recordUsage(db, { ...event, at, refusal: code });
}

/** The runs refused before they ran, newest first, with the names of what they were for. */
export const listRefusals = guarded(
  { scope: "end_users:read" },
  async function listRefusals(
    db: Db,
    actor: Actor,
    input: { limit: number; cursor?: string; code?: string; appId?: string; endUserId?: string; portalId?: string },
  ): Promise<{ refusals: Refusal[]; nextCursor: string | null }> {
    const { organizationId } = actor;
    const rows = await db.runRefusal.findMany({
      where: {
        organizationId,
        ...(input.code ? { code: input.code } : {}),
        ...(input.appId ? { appId: input.appId } : {}),
        ...(input.endUserId ? { endUserId: input.endUserId } : {}),
        ...(input.portalId ? { portalId: input.portalId } : {}),
        ...beforeCursor(input.cursor),
      },
      orderBy: NEWEST_FIRST,
      take: input.limit + 1,
    });
    const page = toPage(rows, input.limit);
    const ids = (key: "appId" | "endUserId" | "portalId" | "planId") => [
      ...new Set(page.items.flatMap((row) => (row[key] ? [row[key]] : []))),
    ];
    const [apps, endUsers, portals, plans] = await Promise.all([
      db.builderItem.findMany({
        where: { organizationId, id: { in: ids("appId") } },
        select: { id: true, kind: true, draft: true },
      }),
      db.endUser.findMany({
        where: { organizationId, id: { in: ids("endUserId") } },
        select: { id: true, email: true },
      }),
      db.portal.findMany({ where: { organizationId, id: { in: ids("portalId") } }, select: { id: true, name: true } }),
      db.tierPlan.findMany({ where: { organizationId, id: { in: ids("planId") } }, select: { id: true, name: true } }),
    ]);
    const appsById = new Map(apps.map((app) => [app.id, app]));
    const emails = new Map(endUsers.map((endUser) => [endUser.id, endUser.email]));
    const portalNames = new Map(portals.map((portal) => [portal.id, portal.name]));
    const planNames = new Map(plans.map((plan) => [plan.id, plan.name]));
    const refusals = page.items.map((row): Refusal => {
      const app = row.appId ? appsById.get(row.appId) : undefined;
      return {
        id: row.id,
        code: row.code,
        appId: row.appId,
        appKind: app?.kind ?? null,
        appName: app ? String((app.draft as { name?: unknown } | null)?.name ?? "") : null,
        endUserId: row.endUserId,
        endUserEmail: row.endUserId ? (emails.get(row.endUserId) ?? null) : null,
        portalId: row.portalId,
        portalName: row.portalId ? (portalNames.get(row.portalId) ?? null) : null,
        planId: row.planId,
        planName: row.planId ? (planNames.get(row.planId) ?? null) : null,
        createdAt: row.createdAt.toISOString(),
      };
    });
    return { refusals, nextCursor: page.nextCursor };
  },
);

// ---- Reading ----

interface Window {
  from: Date;
  to: Date;
}

/** The window asked for: `to` defaults to now, `from` to USAGE_DEFAULT_DAYS before it. */
export function usageWindow(input: { from?: string; to?: string }, now = new Date()): Window {
  const to = input.to ? new Date(input.to) : now;
  const from = input.from ? new Date(input.from) : new Date(to.getTime() - USAGE_DEFAULT_DAYS * DAY_MS);
  if (from.getTime() >= to.getTime()) throw invalidRequest([{ path: "from", message: "must be before `to`" }]);
  if (to.getTime() - from.getTime() > USAGE_MAX_DAYS * DAY_MS)
    throw invalidRequest([{ path: "to", message: `must be at most ${USAGE_MAX_DAYS} days after \`from\`` }]);
  return { from, to };
}

/** The UTC start of the bucket holding `date`; weeks start on Monday. */
export function bucketStart(date: Date, interval: UsageInterval): Date {
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth();
  if (interval === "month") return new Date(Date.UTC(y, m, 1));
  const day = Date.UTC(y, m, date.getUTCDate());
  return interval === "day" ? new Date(day) : new Date(day - ((date.getUTCDay() + 6) % 7) * DAY_MS);
}

function nextBucket(start: Date, interval: UsageInterval): Date {
  if (interval === "month") return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  return new Date(start.getTime() + (interval === "day" ? 1 : 7) * DAY_MS);
}

function bucketStarts(window: Window, interval: UsageInterval): string[] {
  const starts: string[] = [];
  for (let start = bucketStart(window.from, interval); start < window.to; start = nextBucket(start, interval))
    starts.push(start.toISOString());
  return starts;
}

const zeroMetrics = (): UsageMetrics => ({
  credits: 0,
  conversations: 0,
  turns: 0,
  transactions: 0,
  testRuns: 0,
  searches: 0,
  failures: 0,
  inputTokens: 0,
  outputTokens: 0,
});

const SUMS = `sum(credits)::int8 as "credits", sum(conversations)::int8 as "conversations", sum(turns)::int8 as "turns",
  sum(transactions)::int8 as "transactions", sum(test_runs)::int8 as "testRuns", sum(searches)::int8 as "searches",
  sum(failures)::int8 as "failures", sum(input_tokens)::int8 as "inputTokens", sum(output_tokens)::int8 as "outputTokens"`;
/** $1 organization, $2 dimension, $3 from, $4 to, $5 grain: the window's rows of one grain. */
const IN_WINDOW =
  "organization_id = $1::uuid and grain = $5 and dimension = $2 and starts_at >= date_trunc($5, $3::timestamptz, 'UTC') and starts_at < $4::timestamptz";

/** Sums per bucket ($6) of one key ($7) of a dimension (the organization's row, or one end user's). */
const SERIES_SQL = `select date_trunc($6, starts_at, 'UTC') as start, ${SUMS} from usage_rollup where ${IN_WINDOW} and key_id = $7::uuid group by 1`;
/**
 * Sums per bucket ($6) and key of the USAGE_MAX_GROUPS keys with the most credits, then turns.
 * The ranking reads month rows for the whole months of the window ($7 to $8; an empty range when
 * it holds none) and the window's own grain for the days or hours around them, hashed by key
 * alone: a year of 2,000 end users is some 24,000 month rows instead of a row per day each was
 * active. Then each top key's rows are read by the primary key.
 */
const GROUPS_SQL = `
  with ranked as (
    select key_id, credits, turns from usage_rollup
    where organization_id = $1::uuid and grain = 'month' and dimension = $2 and starts_at >= $7::timestamptz and starts_at < $8::timestamptz
    union all
    select key_id, credits, turns from usage_rollup where ${IN_WINDOW} and starts_at < $7::timestamptz
    union all
    select key_id, credits, turns from usage_rollup where ${IN_WINDOW} and starts_at >= $8::timestamptz
  ),
  top as (
    select key_id from ranked group by key_id order by sum(credits) desc, sum(turns) desc, key_id limit ${USAGE_MAX_GROUPS}
  )
  select date_trunc($6, r.starts_at, 'UTC') as start, r.key_id, ${SUMS}
  from top cross join lateral (
    select * from usage_rollup r
    where r.organization_id = $1::uuid and r.grain = $5 and r.dimension = $2 and r.key_id = top.key_id
      and r.starts_at >= date_trunc($5, $3::timestamptz, 'UTC') and r.starts_at < $4::timestamptz
  ) r
  group by 1, 2`;
const REFUSALS_SQL = `
  select e.code, sum(e.count::int8)::int8 as count
  from usage_rollup r cross join lateral jsonb_each_text(r.refusals) as e(code, count)
  where ${IN_WINDOW} and key_id = $6::uuid and refusals <> '{}'::jsonb
  group by e.code`;

type SumRow = { start: Date; key_id?: string } & Record<keyof UsageMetrics, string | number>;

function toPoint(start: string, row: SumRow | undefined): UsagePoint {
  const point: UsagePoint = { start, ...zeroMetrics() };
  if (row) for (const metric of USAGE_METRICS) point[metric] = Number(row[metric] ?? 0);
  return point;
}

function totalOf(series: UsagePoint[]): UsageMetrics {
  const totals = zeroMetrics();
  for (const point of series) for (const metric of USAGE_METRICS) totals[metric] += point[metric];
  return totals;
}

/** Every bucket of the window, zero where nothing happened. */
function fill(starts: string[], rows: SumRow[]): UsagePoint[] {
  const byStart = new Map(rows.map((row) => [row.start.toISOString(), row]));
  return starts.map((start) => toPoint(start, byStart.get(start)));
}

const NONE_NAMES: Record<UsageGroupBy, string> = {
  app: "No app",
  end_user: "No end user (the organization's own runs)",
  portal: "No portal",
  plan: "No plan",
  model: "No model",
};

async function groupNames(
  db: Db,
  organizationId: string,
  groupBy: UsageGroupBy,
  ids: string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  if (groupBy === "app") return builderItemNames(db, organizationId, ids);
  if (groupBy === "model") {
    const rows = await db.usageModel.findMany({ where: { organizationId, keyId: { in: ids } } });
    return new Map(rows.map((row) => [row.keyId, row.modelId]));
  }
  if (groupBy === "end_user") {
    const rows = await db.endUser.findMany({
      where: { organizationId, id: { in: ids } },
      select: { id: true, email: true, fullName: true },
    });
    return new Map(rows.map((row) => [row.id, row.fullName ? `${row.fullName} <${row.email}>` : row.email]));
  }
  const rows =
    groupBy === "portal"
      ? await db.portal.findMany({ where: { organizationId, id: { in: ids } }, select: { id: true, name: true } })
      : await db.tierPlan.findMany({ where: { organizationId, id: { in: ids } }, select: { id: true, name: true } });
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** The whole UTC months inside the window, as [start, end); an empty range at `from` when there are none. */
function wholeMonths(window: Window): [string, string] {
  const first = bucketStart(window.from, "month");
  const start = first.getTime() === window.from.getTime() ? first : nextBucket(first, "month");
  const end = bucketStart(window.to, "month");
  return start < end
    ? [start.toISOString(), end.toISOString()]
    : [window.from.toISOString(), window.from.toISOString()];
}

interface ReportRequest {
  organizationId: string;
  window: Window;
  interval: UsageInterval;
  /** Whose usage: the organization's, or one app's, end user's or portal's. */
  scope: { dimension: Dimension; keyId: string };
  groupBy?: UsageGroupBy;
}

async function usageReport(db: Db, request: ReportRequest): Promise<UsageReport> {
  const { organizationId, window, interval, scope, groupBy } = request;
  const starts = bucketStarts(window, interval);
  // Day rows when the window is whole UTC days (the console's always is): 24 times fewer rows.
  const grain = window.from.getTime() % DAY_MS === 0 && window.to.getTime() % DAY_MS === 0 ? "day" : "hour";
  // Unnamed statements: each is planned for its own window and dimension, where a cached generic
  // plan could read a dimension of thousands of keys as if it had twenty.
  const windowOf = (dimension: Dimension) => [
    organizationId,
    dimension,
    window.from.toISOString(),
    window.to.toISOString(),
    grain,
  ];
  const [series, refusals, groupRows] = await Promise.all([
    db.pool.query<SumRow>({ text: SERIES_SQL, values: [...windowOf(scope.dimension), interval, scope.keyId] }),
    db.pool.query<{ code: string; count: string }>({
      text: REFUSALS_SQL,
      values: [...windowOf(scope.dimension), scope.keyId],
    }),
    groupBy
      ? db.pool.query<SumRow>({ text: GROUPS_SQL, values: [...windowOf(groupBy), interval, ...wholeMonths(window)] })
      : null,
  ]);
  const filled = fill(starts, series.rows);
  const report: UsageReport = {
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    interval,
    totals: totalOf(filled),
    series: filled,
    refusals: Object.fromEntries(refusals.rows.map((row) => [row.code, Number(row.count)])),
  };
  if (groupBy && groupRows) {
    const byKey = new Map<string, SumRow[]>();
    for (const row of groupRows.rows) byKey.set(row.key_id!, [...(byKey.get(row.key_id!) ?? []), row]);
    const names = await groupNames(
      db,
      organizationId,
      groupBy,
      [...byKey.keys()].filter((key) => key !== NONE),
    );
    const groups: UsageGroup[] = [...byKey].map(([key, rows]) => {
      const groupSeries = fill(starts, rows);
      const id = key === NONE ? null : key;
      return {
        id,
        name: id ? (names.get(id) ?? "(deleted)") : NONE_NAMES[groupBy],
        totals: totalOf(groupSeries),
        series: groupSeries,
      };
    });
    report.groups = groups.sort(
      (a, b) =>
        b.totals.credits - a.totals.credits ||
        b.totals.turns - a.totals.turns ||
        String(a.id).localeCompare(String(b.id)),
    );
  }
  return report;
}

export const getUsage = guarded(
  { scope: "end_users:read" },
  async function getUsage(
    db: Db,
    actor: Actor,
    input: { from?: string; to?: string; interval?: UsageInterval; groupBy?: UsageGroupBy },
  ): Promise<UsageReport> {
    return usageReport(db, {
      organizationId: actor.organizationId,
      window: usageWindow(input),
      interval: input.interval ?? "day",
      scope: { dimension: "organization", keyId: NONE },
      groupBy: input.groupBy,
    });
  },
);

/** One app's, end user's or portal's usage (their console pages); the organization's without one. */
export const getScopedUsage = guarded(
  { scope: "end_users:read" },
  async function getScopedUsage(
    db: Db,
    actor: Actor,
    input: {
      from?: string;
      to?: string;
      interval?: UsageInterval;
      appId?: string;
      endUserId?: string;
      portalId?: string;
    },
  ): Promise<UsageReport> {
    const scope: ReportRequest["scope"] = input.endUserId
      ? { dimension: "end_user", keyId: input.endUserId }
      : input.appId
        ? { dimension: "app", keyId: input.appId }
        : input.portalId
          ? { dimension: "portal", keyId: input.portalId }
          : { dimension: "organization", keyId: NONE };
    return usageReport(db, {
      organizationId: actor.organizationId,
      window: usageWindow(input),
      interval: input.interval ?? "day",
      scope,
    });
  },
);

/** The signed-in end user's own credits by UTC day over this month. */
export async function getPortalUsage(db: Db, actor: EndUserActor, now = new Date()): Promise<PortalUsage> {
  const from = bucketStart(now, "month");
  const window = { from, to: nextBucket(from, "month") };
  const report = await usageReport(db, {
    organizationId: actor.organizationId,
    window,
    interval: "day",
    scope: { dimension: "end_user", keyId: actor.endUser.id },
  });
  return {
    from: report.from,
    to: report.to,
    total: report.totals.credits,
    series: report.series.map((point) => ({ start: point.start, credits: point.credits })),
  };
}

// Built on first use: credits.ts, which it reads, loads this module in turn.
const nearLimitSql = () => `
  select u.id, u.email, u.full_name as "fullName",
    sum(${POOL_USED_SQL})::int8 as used, sum(s.credit_allowance + ${POOL_BONUS_SQL})::int8 as allowance
  from subscriptions s join end_users u on u.id = s.end_user_id
  where u.organization_id = $1::uuid and u.deleted_at is null and s.status = 'active'
  group by u.id
  having sum(s.credit_allowance + ${POOL_BONUS_SQL}) > 0 and sum(${POOL_USED_SQL}) > 0
  order by sum(${POOL_USED_SQL})::float8 / sum(s.credit_allowance + ${POOL_BONUS_SQL}) desc, u.id
  limit $2`;

/** The end users who have used the largest share of their active pools (the console's home). */
export const endUsersNearLimit = guarded(
  { scope: "end_users:read" },
  async function endUsersNearLimit(db: Db, actor: Actor, input: { limit: number }) {
    const { rows } = await db.pool.query<{
      id: string;
      email: string;
      fullName: string;
      used: string;
      allowance: string;
    }>({
      name: "atrium_end_users_near_limit",
      text: nearLimitSql(),
      values: [actor.organizationId, input.limit],
    });
    return {
      endUsers: rows.map((row) => ({
        id: row.id,
        email: row.email,
        fullName: row.fullName,
        used: Number(row.used),
        allowance: Number(row.allowance),
      })),
    };
  },
);
