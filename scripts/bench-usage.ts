// The usage scenario of `npm run bench` (BENCH_ONLY=usage runs it alone, with no production
// build): a year of a large organization, 1,000,000 executions seeded in SQL (generate_series)
// and rolled up by the migration's usage_rollup_backfill, then GET /api/v1/usage through the REST
// handler in-process (no HTTP socket), one request at a time. Target: p99 < 200 ms for each query.
import pg from "pg";
import { SCOPES } from "@/schemas/identity/auth";
import { createRestHandler } from "@/server/adapters/rest";
import { closeDb, createDb } from "@/server/db";
import { createApiKey } from "@/server/services/identity/api-keys";
import { createOrganization } from "@/server/services/org/organizations";

const EXECUTIONS = Number(process.env.BENCH_USAGE_EXECUTIONS ?? 1_000_000);
const APPS = 20;
const END_USERS = 2_000;
const PORTALS = 3;
const PLANS = 4;
const TURNS_PER_SESSION = 5;
const ROUNDS = Number(process.env.BENCH_USAGE_ROUNDS ?? 20);
const DAY_MS = 86_400_000;

export interface UsageBench {
  executions: number;
  rollupRows: number;
  seedSeconds: number;
  rollupSeconds: number;
  queries: { name: string; p50Ms: number; p99Ms: number; maxMs: number; bytes: number }[];
}

/**
 * Runs come in sessions of TURNS_PER_SESSION within minutes, by one end user (4 in 5 sessions)
 * or the organization itself, in one portal; 70% conversation turns, 20% transactions, 10% test
 * cases; 1 in 13 fails and is refunded. Spread evenly over the last 365 days.
 */
async function seed(client: pg.Client, organizationId: string): Promise<void> {
  await client.query("BEGIN");
  await client.query(
    `CREATE TEMP TABLE apps ON COMMIT DROP AS SELECT n, gen_random_uuid() AS id FROM generate_series(0, $1 - 1) n;
     CREATE TEMP TABLE users ON COMMIT DROP AS SELECT n, gen_random_uuid() AS id FROM generate_series(0, $2 - 1) n;
     CREATE TEMP TABLE portal_ids ON COMMIT DROP AS SELECT n, gen_random_uuid() AS id FROM generate_series(0, $3 - 1) n;
     CREATE TEMP TABLE plans ON COMMIT DROP AS SELECT n, gen_random_uuid() AS id FROM generate_series(0, $4 - 1) n;`
      .replace("$1", String(APPS))
      .replace("$2", String(END_USERS))
      .replace("$3", String(PORTALS))
      .replace("$4", String(PLANS)),
  );
  await client.query(
    `INSERT INTO builder_items (id, organization_id, kind, draft, last_change, created_at, updated_at)
    SELECT id, $1, 'app', jsonb_build_object('name', 'App ' || n), jsonb_build_object('at', now(), 'by', 'bench', 'source', 'cli', 'action', 'created', 'summary', 'Created'), now(), now() FROM apps`,
    [organizationId],
  );
  await client.query(
    `INSERT INTO portals (id, organization_id, name, slug) SELECT id, $1, 'Portal ' || n, 'bench-usage-' || n FROM portal_ids`,
    [organizationId],
  );
  await client.query(
    `INSERT INTO tier_plans (id, organization_id, name, credit_allowance) SELECT id, $1, 'Plan ' || n, 1000 FROM plans`,
    [organizationId],
  );
  await client.query(
    `INSERT INTO end_users (id, organization_id, email, updated_at) SELECT id, $1, 'user' || n || '@bench.example', now() FROM users`,
    [organizationId],
  );
  await client.query(
    `INSERT INTO subscriptions (id, end_user_id, tier_plan_id, credit_allowance, credits_reset_at, provisioned_by, updated_at)
     SELECT gen_random_uuid(), users.id, plans.id, 1000, now() + interval '20 days', 'api', now() FROM users JOIN plans ON plans.n = users.n % ${PLANS}`,
  );
  await client.query(
    `INSERT INTO executions (id, organization_id, kind, item_id, item_kind, conversation_id, status, credits, latency_ms, input, output, trace, actor, end_user_id, portal_id, created_at)
     SELECT gen_random_uuid(), $1, run.kind, apps.id, 'app',
       CASE WHEN run.kind = 'conversation' THEN md5('session' || run.session)::uuid END,
       CASE WHEN run.failed THEN 'failed' ELSE 'succeeded' END, CASE WHEN run.failed THEN 0 ELSE 1 END,
       100, 'bench', '', '[]'::jsonb, 'bench', users.id, CASE WHEN users.id IS NOT NULL THEN portal_ids.id END,
       now() - (run.session::float8 / $2) * interval '365 days' + (i % ${TURNS_PER_SESSION}) * interval '2 minutes'
     FROM (
       SELECT i, i / ${TURNS_PER_SESSION} AS session, i % 13 = 0 AS failed,
         CASE WHEN (i / ${TURNS_PER_SESSION}) % 10 < 7 THEN 'conversation' WHEN (i / ${TURNS_PER_SESSION}) % 10 < 9 THEN 'transaction' ELSE 'test' END AS kind
       FROM generate_series(0, $2 - 1) AS i
     ) AS run
     JOIN apps ON apps.n = (run.session * 7) % ${APPS}
     JOIN portal_ids ON portal_ids.n = run.session % ${PORTALS}
     LEFT JOIN users ON run.session % 5 <> 0 AND users.n = (run.session * 7919) % ${END_USERS}`,
    [organizationId, EXECUTIONS],
  );
  await client.query("COMMIT");
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

export async function usageBench(databaseUrl: string): Promise<UsageBench> {
  const db = createDb(databaseUrl, 4);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const organization = await createOrganization(db, { name: "Usage benchmark", credits: 1_000_000_000 });
    const operator = { kind: "operator" as const, organizationId: organization.id };
    // A key per query: each asks ROUNDS + 3 times, within the limit of one key per minute.
    const newKey = async () =>
      (await createApiKey(db, operator, { name: "usage bench", kind: "organization", scopes: [...SCOPES] })).secret;

    let started = performance.now();
    await seed(client, organization.id);
    const seedSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    await client.query("SELECT usage_rollup_backfill($1)", [organization.id]);
    await client.query("ANALYZE usage_rollup");
    const rollupSeconds = (performance.now() - started) / 1000;
    console.log(`Usage: seeded in ${seedSeconds.toFixed(1)} s, rolled up in ${rollupSeconds.toFixed(1)} s`);
    const rollupRows = Number(
      (await client.query("SELECT count(*) FROM usage_rollup WHERE organization_id = $1", [organization.id])).rows[0]
        .count,
    );

    const handler = createRestHandler({ db: () => db });
    // The console asks for whole UTC days (day rows); any other window reads hour rows.
    const to = new Date(Math.ceil(Date.now() / DAY_MS) * DAY_MS);
    const year = `from=${new Date(to.getTime() - 365 * DAY_MS).toISOString()}&to=${to.toISOString()}`;
    const week = `from=${new Date(to.getTime() - 7 * DAY_MS).toISOString()}&to=${to.toISOString()}`;
    const cases: [string, string][] = [
      ["a year by day", `${year}&interval=day`],
      ["a year by week, by app", `${year}&interval=week&groupBy=app`],
      ["a year by month, by plan", `${year}&interval=month&groupBy=plan`],
      ["a year by day, by portal, CSV", `${year}&interval=day&groupBy=portal&format=csv`],
      ["a year by week, by end user (top 50)", `${year}&interval=week&groupBy=end_user`],
      ["the last 7 days by day, by app (the console's home)", `${week}&groupBy=app`],
      ["the last 30 days to now (hour rows), by end user (top 50)", "groupBy=end_user"],
      ["the last 30 days to now (hour rows), by app", "groupBy=app"],
    ];
    const queries: UsageBench["queries"] = [];
    for (const [name, query] of cases) {
      const path = `/usage?${query}`;
      const key = await newKey();
      const timings: number[] = [];
      let bytes = 0;
      for (let round = 0; round < ROUNDS + 3; round++) {
        const begin = performance.now();
        const response = await handler(
          new Request(`http://localhost/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } }),
        );
        const text = await response.text();
        const elapsed = performance.now() - begin;
        if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${text}`);
        bytes = text.length;
        if (round >= 3) timings.push(elapsed); // three warm-up rounds
      }
      timings.sort((a, b) => a - b);
      queries.push({
        name: `GET /usage, ${name}`,
        p50Ms: percentile(timings, 50),
        p99Ms: percentile(timings, 99),
        maxMs: timings[timings.length - 1]!,
        bytes,
      });
    }
    return { executions: EXECUTIONS, rollupRows, seedSeconds, rollupSeconds, queries };
  } finally {
    await client.end();
    await closeDb(db);
  }
}

export function printUsageBench(result: UsageBench): void {
  console.log(
    `Usage: ${result.executions.toLocaleString("en")} executions seeded in ${result.seedSeconds.toFixed(1)} s, rolled up in ${result.rollupSeconds.toFixed(1)} s into ${result.rollupRows.toLocaleString("en")} rows; ${ROUNDS} requests each, one at a time (target p99 < 200 ms):`,
  );
  for (const query of result.queries) {
    console.log(
      `  ${query.name}: p50 ${query.p50Ms.toFixed(1)} ms, p99 ${query.p99Ms.toFixed(1)} ms, slowest ${query.maxMs.toFixed(1)} ms, ${(query.bytes / 1024).toFixed(0)} KB ${query.p99Ms < 200 ? "PASS" : "FAIL"}`,
    );
  }
}
