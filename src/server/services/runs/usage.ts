// Usage: a rollup per UTC hour, day and month, written as runs finish and as refusals happen, and the
// reports read from it (GET /usage, the console's charts, the portal's credits). A report never
// reads executions: it sums at most one row per day (or hour, for a window that is not whole days)
// and group (BENCHMARKS.md).
import type { z } from "zod";
import {
  USAGE_DEFAULT_DAYS,
  USAGE_MAX_DAYS,
  USAGE_MAX_GROUPS,
  USAGE_METRICS,
  type PortalUsage,
  type ScopedUsageInput,
  type UsageInput,
  type UsageGroup,
  type UsageGroupBy,
  type UsageInterval,
  type UsageMetrics,
  type UsagePoint,
  type UsageReport,
} from "@/schemas/runs/usage";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { invalidRequest } from "@/server/errors";
import { POOL_BONUS_SQL, POOL_USED_SQL } from "../support/credit-pool";
import { builderItemNames } from "../support/item-names";
import { NONE } from "./usage-records";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

type Dimension = "organization" | UsageGroupBy;

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
  async function getUsage(db: Db, actor: Actor, input: z.input<typeof UsageInput>): Promise<UsageReport> {
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
  async function getScopedUsage(db: Db, actor: Actor, input: z.input<typeof ScopedUsageInput>): Promise<UsageReport> {
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
