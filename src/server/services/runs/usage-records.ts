// Writing usage: a run, a search or a refusal added to its hour, day and month of the rollup the
// reports (usage.ts) read.
import { USAGE_METRICS, type UsageMetrics } from "@/schemas/runs/usage";
import { FAILURE_STATUSES, type ExecutionUsage } from "@/schemas/runs/runtime";
import { NO_FLUSH, type Db } from "@/server/db";
import { logger } from "@/server/observability/log";
import { queueForStatement, type StatementQueue } from "@/server/tick-batches";

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

/** The plan a run's usage counts under: the paying pool's, else the end user's first active pool in charge order. */
const usagePlan = (of: { subscription: string; endUser: string; organization: string }) => `coalesce(
        (select s.tier_plan_id from subscriptions s join end_users u on u.id = s.end_user_id where s.id = ${of.subscription} and u.organization_id = ${of.organization}),
        (select s.tier_plan_id from subscriptions s join end_users u on u.id = s.end_user_id
          where s.end_user_id = ${of.endUser} and u.organization_id = ${of.organization} and s.status = 'active'
          order by s.credits_reset_at, s.created_at, s.id limit 1)
      )`;

/** The dimensions a run's usage is added to (the plan's from `e.plan_id`), numbered in the order their rows are locked. */
const usageDimensions = (app: string, endUser: string, portal: string) =>
  `(values (1, 'organization', null::uuid), (2, 'app', ${app}), (3, 'end_user', ${endUser}), (4, 'portal', ${portal}), (5, 'plan', e.plan_id)) as d(n, dimension, key_id)`;

/**
 * One upsert per event, a row per grain (hour, day, month) and dimension, always in the same order so concurrent writers
 * lock rows alike. The plan is the paying pool's, else the end user's first pool in charge order.
 * Like rate-limit counters it does not wait for a WAL flush (NO_FLUSH in src/server/db.ts): a
 * turn waits for one flush, its record's, and a crash of PostgreSQL loses at most the last
 * fraction of a second of usage, never a charge or a run.
 */
const USAGE_EVENT_CTE = `event as (
    select $1::uuid as organization_id,
      ${usagePlan({ subscription: "$6::uuid", endUser: "$4::uuid", organization: "$1::uuid" })} as plan_id
    from no_flush
  )`;
const USAGE_TOTALS_INSERT = `insert into usage_rollup as r (organization_id, grain, dimension, key_id, starts_at, credits, conversations, turns, transactions, test_runs, searches, failures, input_tokens, output_tokens, refusals)
  select e.organization_id, g.grain, d.dimension, coalesce(d.key_id, '${NONE}'::uuid), date_trunc(g.grain, $2::timestamptz, 'UTC'),
    $7::int8, $8::int8, $9::int8, $10::int8, $11::int8, $12::int8, $13::int8, $14::int8, $15::int8, $16::jsonb
  from event e
  cross join (values ('day'), ('hour'), ('month')) as g(grain)
  cross join lateral ${usageDimensions("$3::uuid", "$4::uuid", "$5::uuid")}
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

/** The parameters $1–$16 of RECORD_USAGE_SQL. */
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

/** `$n::type[]` read at subscript `i`. */
const element = (n: number, type: string, i: string) => `($${n}::${type}[])[${i}]`;
/** The runs' counters, each a parameter array of RECORD_RUNS_USAGE_SQL (an element per run, $6–$13). */
const RUN_COUNTER_VALUES = RUN_COUNTERS.map((column, k) => `${element(k + 6, "int8", "i")} as ${column}`).join(", ");
const GRAINS = "(values ('day'), ('hour'), ('month')) as g(grain)";
const sums = (from: string, columns: readonly string[]) =>
  columns.map((column) => `sum(${from}.${column})::int8`).join(", ");

/**
 * Finished runs' usage, one or many, in one statement: each run added to its hour, day and month
 * of every dimension (as RECORD_USAGE_SQL) and to its row per model it called (the `model`
 * dimension: its calls' tokens and credits summed by model, and the run counted once in each).
 * Runs of the same rows are summed first, so each row is updated once; rows are locked in one
 * order (grain, dimension, organization, key, start) in every statement. The key of a model is
 * md5(its id) made a version-8 uuid; usage_models keeps the id for the report's names. The two
 * inserts touch different rows (their dimensions differ). The plan is the paying pool's, else the
 * end user's first pool in charge order. The arrays are read by subscript, not unnest: planned for
 * the sizes given, a batch's plan would be made anew on every call (as the key count's was,
 * src/server/auth/authenticate.ts); each call's run ($15) is its index in the runs' arrays.
 */
const RECORD_RUNS_USAGE_SQL = `
  with no_flush as (${NO_FLUSH}),
  runs as (
    select r.*,
      ${usagePlan({ subscription: "r.subscription_id", endUser: "r.end_user_id", organization: "r.organization_id" })} as plan_id
    from (
      select i as n, ${element(1, "uuid", "i")} as organization_id, ${element(2, "timestamptz", "i")} as at, ${element(3, "uuid", "i")} as app_id,
        ${element(4, "uuid", "i")} as end_user_id, ${element(5, "uuid", "i")} as portal_id, ${element(14, "uuid", "i")} as subscription_id, ${RUN_COUNTER_VALUES}
      from no_flush, generate_subscripts($1::uuid[], 1) as i
    ) r
  ),
  totals as (
    insert into usage_rollup as r (organization_id, grain, dimension, key_id, starts_at, ${RUN_COUNTERS.join(", ")})
    select e.organization_id, g.grain, d.dimension, coalesce(d.key_id, '${NONE}'::uuid), date_trunc(g.grain, e.at, 'UTC'), ${sums("e", RUN_COUNTERS)}
    from runs e
    cross join ${GRAINS}
    cross join lateral ${usageDimensions("e.app_id", "e.end_user_id", "e.portal_id")}
    group by g.grain, d.n, d.dimension, e.organization_id, 4, 5
    order by g.grain, d.n, e.organization_id, 4, 5
    on conflict (organization_id, grain, dimension, key_id, starts_at) do update set
      ${addedCounters(RUN_COUNTERS)}
    returning 1
  ),
  models as (
    select e.organization_id, e.at, c.model_id, overlay(overlay(md5(c.model_id) placing '8' from 13 for 1) placing '8' from 17 for 1)::uuid as key_id,
      c.credits, c.input_tokens, c.output_tokens, e.conversations, e.turns, e.transactions, e.test_runs, e.failures
    from (
      select c.n, c.model_id, sum(c.credits)::int8 as credits, sum(c.input)::int8 as input_tokens, sum(c.output)::int8 as output_tokens
      from (
        select ${element(15, "int8", "j")} as n, ${element(16, "text", "j")} as model_id, ${element(17, "int8", "j")} as credits,
          ${element(18, "int8", "j")} as input, ${element(19, "int8", "j")} as output
        from generate_subscripts($15::int8[], 1) as j
      ) c
      group by c.n, c.model_id
    ) c join runs e on e.n = c.n
  ),
  names as (
    insert into usage_models (organization_id, key_id, model_id)
    select distinct organization_id, key_id, model_id from models
    on conflict do nothing
  )
  insert into usage_rollup as r (organization_id, grain, dimension, key_id, starts_at, ${RUN_COUNTERS.join(", ")})
  select m.organization_id, g.grain, 'model', m.key_id, date_trunc(g.grain, m.at, 'UTC'), ${sums("m", RUN_COUNTERS)}
  from models m cross join ${GRAINS}
  group by g.grain, m.key_id, m.organization_id, 5
  order by g.grain, m.key_id, m.organization_id, 5
  on conflict (organization_id, grain, dimension, key_id, starts_at) do update set
    ${addedCounters(RUN_COUNTERS)}`;

/** A run's usage waiting for its statement, and its caller. */
interface PendingRun {
  event: UsageEvent;
  calls: readonly ExecutionUsage["calls"][number][];
  done: () => void;
}
/** The most runs one statement records (a larger backlog goes in several), one statement at a time. */
const USAGE_STATEMENT_LIMITS = { most: 500, inFlight: 1 };
const recording = new WeakMap<Db, StatementQueue<PendingRun>>();

/**
 * Adds a finished run to the rollup; never throws. Runs of the process that end while its last
 * usage statement runs wait for it and go together in the next (one at a time per database
 * client): under load a statement carries several turns, and the rows every run of an
 * organization updates (its hour, day and month) are updated once for all of them.
 */
export function recordRunUsage(db: Db, organizationId: string, run: RunUsage): Promise<void> {
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
  return new Promise((done) =>
    queueForStatement(
      recording,
      db,
      { event, calls: run.usage?.calls ?? [], done },
      USAGE_STATEMENT_LIMITS,
      sendAndRelease,
    ),
  );
}

/** The runs' statement; their turns go on once it has answered, whatever it answered. */
async function sendAndRelease(db: Db, runs: PendingRun[]): Promise<void> {
  try {
    await sendRuns(db, runs);
  } finally {
    for (const run of runs) run.done();
  }
}

/** The runs in one statement; if it fails, each alone, so that one run's failure is logged for it alone. */
async function sendRuns(db: Db, runs: PendingRun[]): Promise<void> {
  try {
    await recordRuns(db, runs);
  } catch (error) {
    if (runs.length === 1) {
      logger().error({ err: error, organizationId: runs[0]!.event.organizationId }, "Usage could not be recorded");
      return;
    }
    for (const run of runs) await sendRuns(db, [run]);
  }
}

function recordRuns(db: Db, runs: PendingRun[]) {
  const column = (value: (event: UsageEvent) => unknown) => runs.map(({ event }) => value(event));
  const metric = (name: keyof UsageMetrics) => column((event) => event.metrics?.[name] ?? 0);
  const calls = runs.flatMap(({ calls }, i) => calls.map((call) => ({ ...call, n: i + 1 })));
  return db.pool.query({
    name: "atrium_record_run_usage",
    text: RECORD_RUNS_USAGE_SQL,
    values: [
      column((event) => event.organizationId),
      column((event) => event.at!.toISOString()),
      column((event) => event.appId ?? null),
      column((event) => event.endUserId ?? null),
      column((event) => event.portalId ?? null),
      metric("credits"),
      metric("conversations"),
      metric("turns"),
      metric("transactions"),
      metric("testRuns"),
      metric("failures"),
      metric("inputTokens"),
      metric("outputTokens"),
      column((event) => event.subscriptionId ?? null),
      calls.map((call) => call.n),
      calls.map((call) => call.model),
      calls.map((call) => call.credits),
      calls.map((call) => call.inputTokens),
      calls.map((call) => call.outputTokens),
    ],
  });
}
