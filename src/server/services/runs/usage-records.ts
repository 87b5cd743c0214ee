// Writing usage: a run, a search or a refusal added to its hour, day and month of the rollup the
// reports (usage.ts) read.
import { USAGE_METRICS, type UsageMetrics } from "@/schemas/runs/usage";
import { FAILURE_STATUSES, type ExecutionUsage } from "@/schemas/runs/runtime";
import { NO_FLUSH, type Db } from "@/server/db";
import { logger } from "@/server/observability/log";

/** The key of "none" (a run without an end user, portal or plan) and of the organization's own row. */
export const NONE = "00000000-0000-0000-0000-000000000000";

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
