// `npm run bench -- --scale` (issue 36): one organization grown to 10k, 100k and 1M end users
// (SCALE_STAGES picks the sizes), seeded in SQL at database speed and resumable (a marker row per
// stage in bench_scale_stages), measured against the production server at each size. The cluster
// lives in .bench/scale (SCALE_DIR) and outlives the run, so a later run resumes where seeding
// stopped and a measured size is not seeded twice (`--seed-only` seeds without measuring). Never
// part of CI.
import type { ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import {
  cpuProfileArgs,
  percentile,
  postApi,
  spawnBenchServer,
  treeCpuSeconds,
  treeMemory,
  waitForHealth,
} from "./bench-process";
import { SCOPES } from "@/schemas/identity/auth";
import { EMBEDDED_DATABASE, ensureDatabase, startEmbeddedCluster } from "@/server/database/embedded";
import { migrate } from "@/server/database/migrate";
import { closeDb, createDb, type Db } from "@/server/db";
import { createApiKey } from "@/server/services/identity/api-keys";
import { createOrganization } from "@/server/services/org/organizations";
import { effectiveAccess } from "@/server/services/portal/effective-access";
import { createTierPlan } from "@/server/services/provisioning/tier-plans";
import { createUserGroup } from "@/server/services/provisioning/user-groups";

const root = process.cwd();
const PORT = Number(process.env.BENCH_PORT ?? 3417);
const base = `http://127.0.0.1:${PORT}`;
const STAGES = (process.env.SCALE_STAGES ?? "10000,100000,1000000").split(",").map(Number);
const ROUNDS = Number(process.env.SCALE_ROUNDS ?? 200);
const WARMUP = 20;
const UPSERT_SECONDS = Number(process.env.SCALE_UPSERT_SECONDS ?? 10);
/** `SCALE_ONLY=upserts` measures provisioning alone (a quicker loop while working on it). */
const ONLY_UPSERTS = process.env.SCALE_ONLY === "upserts";
/** End users inserted per statement while growing the organization. */
const USER_BATCH = 50_000;
const GROUPS = 50;
const AGENTS = 700;
const FLOWS = 650;
const APPS = 650;
const DOCUMENTS = 10_000;
const CHUNKS_PER_DOCUMENT = 10;
const EXECUTIONS = 1_000_000;
/** Executions are by the organization's earliest end users (they exist from the first stage on). */
const ACTIVE_END_USERS = 10_000;
/** Users are created 30 s apart from this day: a million span a year. */
const FIRST_USER_AT = "2025-11-01T00:00:00Z";
/** Plans by share of end users: 70% Free, 20% Basic, 8% Pro, 2% Enterprise. */
const PLANS = [
  { name: "Free", credits: 50 },
  { name: "Basic", credits: 500 },
  { name: "Pro", credits: 5_000 },
  { name: "Enterprise", credits: 50_000 },
];

/**
 * Words a help centre uses, in the order the vocabulary below places them: the stop words first
 * (most frequent), then the domain words spread out among its ranks.
 */
const STOP_WORDS =
  `the a to of and in is for you your on with can this that be it are or from by as at an if not will have`
    .split(" ")
    .filter(Boolean);
const DOMAIN_WORDS = `account order refund payment invoice customer support team service product price plan
  subscription billing card shipping delivery return policy days time request contact email phone address
  password login sign security settings profile user admin access permission role group organization report
  data export import file document upload download share link page search result filter list view update
  change delete create add remove enable disable configure install setup integration api key token webhook
  error issue problem fix solution step guide help question answer feature release version upgrade
  migration backup restore database server network connection timeout limit quota usage credit balance
  discount coupon tax receipt currency transfer bank wallet cancel renewal trial period monthly annual
  warranty repair replacement damaged missing package tracking carrier courier warehouse stock inventory
  supplier vendor contract agreement terms privacy compliance audit log retention deletion consent
  notification alert reminder schedule calendar meeting appointment booking reservation availability
  location region country language timezone mobile app browser desktop device tablet sync
  offline online status outage maintenance incident escalation priority ticket agent chat conversation
  message reply feedback rating survey review complaint resolution manager department office branch
  employee onboarding training certificate course lesson module exam grade student teacher school
  patient prescription insurance claim coverage deductible premium policyholder beneficiary
  mortgage loan interest rate application approval eligibility verification identity passport license
  vehicle registration inspection fuel mileage lease rental deposit kitchen appliance
  dishwasher washer dryer refrigerator oven thermostat heating cooling battery charger cable
  adapter screen keyboard printer scanner camera speaker headphones router modem firmware driver
  kubernetes docker container cluster deployment pipeline build artifact repository branch commit merge
  encryption firewall proxy gateway latency throughput bandwidth replica failover snapshot`
  .split(/\s+/)
  .filter(Boolean);
const SYLLABLES = "ka lo mi ne ro ta vi su pe do ra li mo nu se ga te bo fi ku".split(" ");
/** Distinct words of the documents; they are drawn by Zipf's law (rank r with weight 1/r). */
const VOCABULARY_SIZE = 20_000;
/**
 * A domain word every DOMAIN_SPACING ranks: "account" (rank 40) is in about 30% of chunks,
 * "refund" (rank 120) 11%, "dishwasher" (rank 11,600) 0.1%.
 */
const DOMAIN_SPACING = 40;

/** The vocabulary by rank: stop words, then made-up words with the domain words spread among them. */
function vocabulary(): string[] {
  return Array.from({ length: VOCABULARY_SIZE }, (_, rank) => {
    if (rank < STOP_WORDS.length) return STOP_WORDS[rank]!;
    if (rank % DOMAIN_SPACING === 0 && rank / DOMAIN_SPACING - 1 < DOMAIN_WORDS.length)
      return DOMAIN_WORDS[rank / DOMAIN_SPACING - 1]!;
    let word = "";
    for (let n = rank; word.length < 6 || n > 0; n = Math.floor(n / SYLLABLES.length))
      word += SYLLABLES[n % SYLLABLES.length];
    return word;
  });
}

interface Setup {
  organizationId: string;
  keys: string[];
  planIds: string[];
  planGroupIds: string[];
  groupIds: string[];
  appIds: string[];
  portalIds: string[];
  knowledgebaseId: string;
}

interface Timing {
  name: string;
  p50Ms: number;
  p99Ms: number;
  target?: number;
  serverCpuUs: number;
  databaseCpuUs: number;
}

export interface StageResult {
  endUsers: number;
  seedSeconds: number;
  databaseMb: number;
  rssAtRestMb: number;
  privateAtRestMb: number;
  upserts: {
    perSecond: number;
    p50Ms: number;
    p99Ms: number;
    non2xx: number;
    serverCpuUs: number;
    databaseCpuUs: number;
  };
  timings: Timing[];
}

const log = (line: string) => console.log(`[scale ${new Date().toISOString().slice(11, 19)}] ${line}`);

async function stageDone(client: pg.Client, stage: string): Promise<unknown> {
  const { rows } = await client.query<{ info: unknown }>("SELECT info FROM bench_scale_stages WHERE stage = $1", [
    stage,
  ]);
  return rows[0]?.info;
}

/** Runs a seeding stage once: its marker row commits with its last statement. */
async function stage<T>(client: pg.Client, name: string, work: () => Promise<T>): Promise<T> {
  const done = await stageDone(client, name);
  if (done !== undefined) return done as T;
  const started = performance.now();
  log(`seeding ${name}…`);
  const info = await work();
  const seconds = (performance.now() - started) / 1000;
  await client.query("INSERT INTO bench_scale_stages (stage, seconds, info) VALUES ($1, $2, $3)", [
    name,
    seconds,
    JSON.stringify(info ?? null),
  ]);
  log(`seeded ${name} in ${seconds.toFixed(1)} s`);
  return info;
}

/** The organization, its keys, plans (each with its group), groups, portals and the catalog. */
async function seedOrganization(databaseUrl: string, client: pg.Client): Promise<Setup> {
  const db = createDb(databaseUrl, 2);
  try {
    const organization = await createOrganization(db, { name: "Scale benchmark", credits: 1_000_000_000 });
    const operator = { kind: "operator" as const, organizationId: organization.id };
    await client.query("UPDATE organizations SET groups_enabled = true WHERE id = $1", [organization.id]);
    const keys: string[] = [];
    for (let i = 0; i < 20; i++) {
      keys.push(
        (await createApiKey(db, operator, { name: `scale ${i}`, kind: "organization", scopes: [...SCOPES] })).secret,
      );
    }
    const plans = [];
    for (const plan of PLANS) {
      plans.push(
        (await createTierPlan(db, operator, { name: plan.name, creditAllowance: plan.credits, withGroup: true }))
          .tierPlan,
      );
    }
    const groupIds: string[] = [];
    for (let i = 0; i < GROUPS; i++) groupIds.push((await createUserGroup(db, operator, { name: `Team ${i}` })).id);
    const { rows: planGroups } = await client.query<{ group_id: string }>(
      "SELECT group_id FROM tier_plans WHERE id = ANY($1::uuid[]) ORDER BY array_position($1::uuid[], id)",
      [plans.map((plan) => plan.id)],
    );
    return {
      organizationId: organization.id,
      keys,
      planIds: plans.map((plan) => plan.id),
      planGroupIds: planGroups.map((row) => row.group_id),
      groupIds,
      appIds: [],
      portalIds: [],
      knowledgebaseId: "",
    };
  } finally {
    await closeDb(db);
  }
}

/** 2,000 agents, flows and apps (drafts; the apps named in executions and grants), three portals, group grants. */
async function seedCatalog(client: pg.Client, setup: Setup): Promise<Pick<Setup, "appIds" | "portalIds">> {
  await client.query("BEGIN");
  const { rows: items } = await client.query<{ id: string; kind: string }>(
    `INSERT INTO builder_items (id, organization_id, kind, draft, last_change, created_at, updated_at)
     SELECT gen_random_uuid(), $1, kind::"BuilderKind",
       jsonb_build_object('name', initcap(kind) || ' ' || n, 'description', 'Seeded for the scale benchmark'),
       jsonb_build_object('at', now(), 'by', 'bench', 'source', 'cli', 'action', 'created', 'summary', 'Created'),
       now() - (n || ' minutes')::interval, now()
     FROM (SELECT 'agent' AS kind, n FROM generate_series(1, $2) n
           UNION ALL SELECT 'flow', n FROM generate_series(1, $3) n
           UNION ALL SELECT 'app', n FROM generate_series(1, $4) n) AS catalog
     RETURNING id, kind::text`,
    [setup.organizationId, AGENTS, FLOWS, APPS],
  );
  const appIds = items.filter((item) => item.kind === "app").map((item) => item.id);
  const { rows: portals } = await client.query<{ id: string }>(
    `INSERT INTO portals (id, organization_id, name, slug)
     SELECT gen_random_uuid(), $1::uuid, 'Portal ' || n, 'scale-' || n || '-' || substr(md5($1::uuid::text), 1, 8)
     FROM generate_series(1, 3) n RETURNING id`,
    [setup.organizationId],
  );
  // Each group opens two apps.
  await client.query(
    `INSERT INTO grants (id, organization_id, group_id, target_kind, target_id, source)
     SELECT gen_random_uuid(), $1, g.id, 'app', ($3::uuid[])[1 + (g.n * 2 + k) % cardinality($3::uuid[])], 'api'
     FROM unnest($2::uuid[]) WITH ORDINALITY AS g(id, n), generate_series(0, 1) k`,
    [setup.organizationId, setup.groupIds, appIds],
  );
  await client.query("COMMIT");
  return { appIds, portalIds: portals.map((portal) => portal.id) };
}

/** 10,000 ready documents of ~10 chunks each, text drawn from the vocabulary (tsvectors filled by the table). */
async function seedKnowledge(client: pg.Client, organizationId: string): Promise<string> {
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO knowledgebases (id, organization_id, name, description, updated_at)
     VALUES (gen_random_uuid(), $1, 'Help centre', 'Seeded for the scale benchmark', now()) RETURNING id`,
    [organizationId],
  );
  const knowledgebaseId = rows[0]!.id;
  for (let from = 0; from < DOCUMENTS; from += 1_000) {
    await client.query("BEGIN");
    await client.query(
      `CREATE TEMP TABLE batch ON COMMIT DROP AS
       SELECT n, gen_random_uuid() AS id FROM generate_series($1::int, $2::int) n`,
      [from, Math.min(DOCUMENTS, from + 1_000) - 1],
    );
    await client.query(
      `INSERT INTO sources (id, organization_id, knowledgebase_id, name, type, status, created_via, size_bytes, text, created_at, updated_at)
       SELECT id, $1, $2, 'Document ' || n || '.md', 'markdown', 'ready', 'api', 9000, '', now() - (n || ' minutes')::interval, now()
       FROM batch`,
      [organizationId, knowledgebaseId],
    );
    // Ranks drawn log-uniformly follow Zipf's law; the correlated generate_series bound makes
    // each chunk draw its own words.
    await client.query(
      `INSERT INTO source_chunks (id, source_id, knowledgebase_id, position, text, heading)
       SELECT gen_random_uuid(), b.id, $1, p,
         (SELECT string_agg(($2::text[])[least(cardinality($2::text[]), floor(exp(random() * ln(cardinality($2::text[]) + 1)))::int)], ' ')
          FROM generate_series(1, 110 + (b.n * 7 + p * 13) % 60)),
         'Document ' || b.n || ' > Section ' || p
       FROM batch b CROSS JOIN generate_series(0, $3 - 1) p`,
      [knowledgebaseId, vocabulary(), CHUNKS_PER_DOCUMENT],
    );
    await client.query("COMMIT");
  }
  return knowledgebaseId;
}

/**
 * End users numbered [from, to): each holds a plan (its group follows), 5% a second one; 30% are in
 * a team, 10% in two; 10% hold a grant of their own; each has its end_user.created audit event.
 * Ids derive from the number, so a stage that stopped half-way is simply run again.
 */
async function seedEndUsers(client: pg.Client, setup: Setup, from: number, to: number): Promise<void> {
  const planOf = (n: string) =>
    `(CASE WHEN ${n} % 100 < 70 THEN 1 WHEN ${n} % 100 < 90 THEN 2 WHEN ${n} % 100 < 98 THEN 3 ELSE 4 END)`;
  for (let lo = from; lo < to; lo += USER_BATCH) {
    const hi = Math.min(to, lo + USER_BATCH) - 1;
    await client.query("BEGIN");
    await client.query(
      `CREATE TEMP TABLE batch ON COMMIT DROP AS
       SELECT n, bench_uuid('scale-user-' || n) AS id, $1::timestamptz + n * interval '30 seconds' AS at
       FROM generate_series($2::int, $3::int) n`,
      [FIRST_USER_AT, lo, hi],
    );
    await client.query(
      `INSERT INTO end_users (id, organization_id, email, full_name, email_verified_at, last_seen_at, created_at, updated_at)
       SELECT id, $1, 'user' || n || '@scale.example', 'User ' || n, at, at + interval '1 day', at, at FROM batch
       ON CONFLICT DO NOTHING`,
      [setup.organizationId],
    );
    await client.query(
      `INSERT INTO subscriptions (id, end_user_id, tier_plan_id, credit_allowance, credits_reset_at, provisioned_by, created_at, updated_at)
       SELECT gen_random_uuid(), b.id, ($1::uuid[])[plan], ($2::int[])[plan], now() + interval '20 days', 'api', b.at, b.at
       FROM batch b, LATERAL (SELECT ${planOf("b.n")} AS plan UNION SELECT 2 WHERE b.n % 20 = 7) AS held
       ON CONFLICT DO NOTHING`,
      [setup.planIds, PLANS.map((plan) => plan.credits)],
    );
    await client.query(
      `INSERT INTO group_members (group_id, end_user_id, added_at)
       SELECT p.group_id, s.end_user_id, s.created_at FROM subscriptions s JOIN tier_plans p ON p.id = s.tier_plan_id
       JOIN batch b ON b.id = s.end_user_id
       UNION ALL
       SELECT ($1::uuid[])[1 + (b.n * 31) % cardinality($1::uuid[])], b.id, b.at FROM batch b WHERE b.n % 10 < 3
       UNION ALL
       SELECT ($1::uuid[])[1 + (b.n * 17 + 5) % cardinality($1::uuid[])], b.id, b.at FROM batch b WHERE b.n % 10 = 0
       ON CONFLICT DO NOTHING`,
      [setup.groupIds],
    );
    await client.query(
      `INSERT INTO grants (id, organization_id, end_user_id, target_kind, target_id, source, created_at)
       SELECT gen_random_uuid(), $1, b.id, 'app', ($2::uuid[])[1 + b.n % cardinality($2::uuid[])], 'api', b.at
       FROM batch b WHERE b.n % 10 = 3
       ON CONFLICT DO NOTHING`,
      [setup.organizationId, setup.appIds],
    );
    await client.query(
      `INSERT INTO audit_events (id, organization_id, occurred_at, actor_type, actor_label, door, action, target_type, target_id, target_label, webhook_type)
       SELECT bench_uuid('scale-audit-' || n), $1, at, 'org_key', 'CRM sync', 'api', 'end_user.create', 'end_user', id::text,
         'user' || n || '@scale.example', 'end_user.created'
       FROM batch ON CONFLICT DO NOTHING`,
      [setup.organizationId],
    );
    await client.query("COMMIT");
    log(`  end users ${(hi + 1).toLocaleString("en")} of ${to.toLocaleString("en")}`);
  }
}

/** A year of runs (sessions of five turns) by the first end users and the organization, then the usage rollup. */
async function seedExecutions(client: pg.Client, setup: Setup): Promise<void> {
  await client.query("BEGIN");
  await client.query(
    `INSERT INTO executions (id, organization_id, kind, item_id, item_kind, conversation_id, status, credits, latency_ms, input, output, trace, actor, end_user_id, portal_id, created_at)
     SELECT gen_random_uuid(), $1, run.kind, ($2::uuid[])[1 + (run.session * 7) % cardinality($2::uuid[])], 'app',
       CASE WHEN run.kind = 'conversation' THEN bench_uuid('scale-session-' || run.session) END,
       CASE WHEN run.failed THEN 'failed' ELSE 'succeeded' END, CASE WHEN run.failed THEN 0 ELSE 1 END, 100,
       'How do I change the billing address on my invoice?', 'You can change it under Settings > Billing.', '[]'::jsonb, 'bench',
       CASE WHEN run.session % 5 <> 0 THEN bench_uuid('scale-user-' || ((run.session * 7919) % $4)) END,
       CASE WHEN run.session % 5 <> 0 THEN ($3::uuid[])[1 + run.session % cardinality($3::uuid[])] END,
       now() - (run.session::float8 / ($5 / 5)) * interval '365 days' + (run.i % 5) * interval '2 minutes'
     FROM (
       SELECT i, i / 5 AS session, i % 13 = 0 AS failed,
         CASE WHEN (i / 5) % 10 < 7 THEN 'conversation' WHEN (i / 5) % 10 < 9 THEN 'transaction' ELSE 'test' END AS kind
       FROM generate_series(0, $5 - 1) AS i
     ) AS run`,
    [setup.organizationId, setup.appIds, setup.portalIds, ACTIVE_END_USERS, EXECUTIONS],
  );
  await client.query("COMMIT");
  await client.query("SELECT usage_rollup_backfill($1)", [setup.organizationId]);
}

/** One published app on the built-in model, and one end user (of the first ones) with a grant to it and a plan. */
async function seedConversationApp(setup: Setup): Promise<{ appId: string; endUserId: string }> {
  const key = setup.keys[0]!;
  const { agent } = await post<{ agent: { id: string } }>(key, "/agents", {
    name: "Billing agent",
    description: "Invoices, refunds and payments",
  });
  await post(key, `/agents/${agent.id}/publish`, {});
  const { app } = await post<{ app: { id: string } }>(key, "/apps", {
    name: "Helpdesk",
    members: [{ id: agent.id, kind: "agent" }],
  });
  await post(key, `/apps/${app.id}/publish`, {});
  const { endUser } = await post<{ endUser: { id: string } }>(key, "/end-users", {
    email: "user42@scale.example",
    tierPlanIds: [setup.planIds[3]],
    grants: [{ targetKind: "app", targetId: app.id }],
  });
  return { appId: app.id, endUserId: endUser.id };
}

const post = <T>(key: string, route: string, body: unknown) => postApi<T>(base, key, route, body);

function startServer(databaseUrl: string, dataDir: string): ChildProcess {
  return spawnBenchServer([...cpuProfileArgs(), path.join(root, "scripts/start.mjs")], {
    port: PORT,
    databaseUrl,
    dataDir,
  });
}

/** ROUNDS requests one at a time (after WARMUP), each made by `request(round)`; p50/p99 and CPU per request. */
async function timed(
  name: string,
  pids: { server: number; postmaster: number },
  request: (round: number) => Promise<void>,
  target?: number,
): Promise<Timing> {
  try {
    return await timedRounds(name, pids, request, target);
  } catch (error) {
    // One scenario failing (its message is printed) leaves the others to measure.
    log(`${name}: FAILED: ${(error as Error).message.slice(0, 300)}`);
    return { name, p50Ms: NaN, p99Ms: NaN, target, serverCpuUs: NaN, databaseCpuUs: NaN };
  }
}

async function timedRounds(
  name: string,
  pids: { server: number; postmaster: number },
  request: (round: number) => Promise<void>,
  target?: number,
): Promise<Timing> {
  for (let round = 0; round < WARMUP; round++) await request(round);
  const cpuBefore = [treeCpuSeconds(pids.server), treeCpuSeconds(pids.postmaster)];
  const timings: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    await request(WARMUP + round);
    timings.push(performance.now() - started);
  }
  const serverCpu = treeCpuSeconds(pids.server) - cpuBefore[0]!;
  const databaseCpu = treeCpuSeconds(pids.postmaster) - cpuBefore[1]!;
  timings.sort((a, b) => a - b);
  const timing = {
    name,
    p50Ms: percentile(timings, 50),
    p99Ms: percentile(timings, 99),
    target,
    serverCpuUs: (serverCpu / ROUNDS) * 1e6,
    databaseCpuUs: (databaseCpu / ROUNDS) * 1e6,
  };
  log(
    `${name}: p50 ${timing.p50Ms.toFixed(1)} ms, p99 ${timing.p99Ms.toFixed(1)} ms` +
      (target ? ` (target ≤ ${target} ms) ${timing.p99Ms <= target ? "PASS" : "FAIL"}` : "") +
      `; CPU per request: server ${timing.serverCpuUs.toFixed(0)} µs, PostgreSQL ${timing.databaseCpuUs.toFixed(0)} µs`,
  );
  return timing;
}

async function getJson(key: string, route: string): Promise<unknown> {
  const response = await fetch(`${base}/api/v1${route}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${route}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** UPSERT_SECONDS of provisioning at 20 connections, with the CPU per request of the server and of PostgreSQL. */
async function upserts(
  setup: Setup,
  size: number,
  pids: { server: number; postmaster: number },
): Promise<StageResult["upserts"]> {
  const cpuBefore = [treeCpuSeconds(pids.server), treeCpuSeconds(pids.postmaster)];
  const result = await upsertLoad(setup, size);
  const serverCpu = treeCpuSeconds(pids.server) - cpuBefore[0]!;
  const databaseCpu = treeCpuSeconds(pids.postmaster) - cpuBefore[1]!;
  return {
    perSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    serverCpuUs: (serverCpu / result.requests.total) * 1e6,
    databaseCpuUs: (databaseCpu / result.requests.total) * 1e6,
  };
}

function upsertLoad(setup: Setup, size: number): Promise<autocannon.Result> {
  let n = 0;
  let next = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${base}/api/v1/end-users`,
        connections: 20,
        duration: UPSERT_SECONDS,
        setupClient: (client) =>
          client.setHeaders({
            authorization: `Bearer ${setup.keys[next++ % setup.keys.length]}`,
            "content-type": "application/json",
          }),
        requests: [
          {
            method: "POST",
            setupRequest: (request: object) => ({
              ...request,
              // Half new people, half updates of existing ones (a sync job's mix).
              body: JSON.stringify({
                email:
                  n % 2 === 0
                    ? `sync-${size}-${process.pid}-${n++}@scale.example`
                    : `user${(n++ * 7919) % size}@scale.example`,
                tierPlanIds: [setup.planIds[1]],
                groupIds: [setup.groupIds[n % setup.groupIds.length]],
                grants: [{ targetKind: "app", targetId: setup.appIds[n % setup.appIds.length] }],
              }),
            }),
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

/** The requests people make most, one at a time: p50, p99 and CPU per request of each. */
async function requestTimings(
  client: pg.Client,
  db: Db,
  setup: Setup,
  size: number,
  pids: { server: number; postmaster: number },
  key: string,
  conversation: { appId: string; endUserId: string },
): Promise<Timing[]> {
  const userNumber = (round: number) => (round * 7919 + 13) % size;
  const userId = async (round: number) =>
    (await client.query<{ id: string }>("SELECT bench_uuid('scale-user-' || $1::int) AS id", [userNumber(round)]))
      .rows[0]!.id;
  const ids: string[] = [];
  for (let round = 0; round < ROUNDS + WARMUP; round++) ids.push(await userId(round));
  const activeIds: string[] = [];
  for (let round = 0; round < ROUNDS + WARMUP; round++)
    activeIds.push(
      (
        await client.query<{ id: string }>("SELECT bench_uuid('scale-user-' || $1::int) AS id", [
          (round * 7919) % ACTIVE_END_USERS,
        ])
      ).rows[0]!.id,
    );
  const operator = { kind: "operator" as const, organizationId: setup.organizationId };
  const queries = [
    "refund shipping days",
    "change billing address invoice",
    "reset password login",
    "kubernetes cluster failover",
    "warranty repair damaged package",
  ];
  const year = `from=${new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z&to=${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z`;
  const timings: Timing[] = [];
  timings.push(
    await timed("GET /end-users/{id}", pids, async (r) => void (await getJson(key, `/end-users/${ids[r]}`)), 50),
  );
  timings.push(
    await timed(
      "GET /end-users?email=",
      pids,
      async (r) => void (await getJson(key, `/end-users?email=user${userNumber(r)}%40scale.example`)),
      50,
    ),
  );
  for (const [label, planIndex] of [
    ["Free, 70%", 0],
    ["Enterprise, 2%", 3],
  ] as const) {
    timings.push(
      await timed(
        `GET /end-users?tierPlanId= (${label}), a page of 50`,
        pids,
        async () => void (await getJson(key, `/end-users?tierPlanId=${setup.planIds[planIndex]}&limit=50`)),
        50,
      ),
    );
  }
  timings.push(
    await timed(
      "GET /end-users?groupId= (a team, ~0.8%), a page of 50",
      pids,
      async (r) =>
        void (await getJson(key, `/end-users?groupId=${setup.groupIds[r % setup.groupIds.length]}&limit=50`)),
      50,
    ),
  );
  timings.push(
    await timed(
      "effective access (the console's access view; service in-process)",
      pids,
      async (r) => void (await effectiveAccess(db, operator, { endUserId: ids[r]! })),
      50,
    ),
  );
  timings.push(
    await timed(
      "POST /apps/{id}/conversation for an end user, built-in model",
      pids,
      async () =>
        void (await post(key, `/apps/${conversation.appId}/conversation`, {
          message: "How long do refunds take?",
          endUserId: conversation.endUserId,
        })),
      100,
    ),
  );
  timings.push(
    await timed(
      "POST /knowledgebases/{id}/search (10,000 documents)",
      pids,
      async (r) =>
        void (await post(key, `/knowledgebases/${setup.knowledgebaseId}/search`, {
          query: queries[r % queries.length],
        })),
      150,
    ),
  );
  timings.push(
    await timed(
      "GET /usage, a year by day",
      pids,
      async () => void (await getJson(key, `/usage?${year}&interval=day`)),
      200,
    ),
  );
  timings.push(
    await timed(
      "GET /executions?itemId=&order=newest, a page of 50",
      pids,
      async (r) =>
        void (await getJson(key, `/executions?itemId=${setup.appIds[r % setup.appIds.length]}&order=newest&limit=50`)),
      50,
    ),
  );
  timings.push(
    await timed(
      "GET /executions?endUserId=&order=newest, a page of 50",
      pids,
      async (r) => void (await getJson(key, `/executions?endUserId=${activeIds[r]}&order=newest&limit=50`)),
      50,
    ),
  );
  timings.push(
    await timed(
      "GET /audit-events?targetType=end_user&targetId=",
      pids,
      async (r) => void (await getJson(key, `/audit-events?targetType=end_user&targetId=${ids[r]}&limit=50`)),
      50,
    ),
  );
  return timings;
}

async function measure(
  databaseUrl: string,
  dataDir: string,
  postmaster: number,
  client: pg.Client,
  setup: Setup,
  size: number,
  seedSeconds: number,
): Promise<StageResult> {
  const server = startServer(databaseUrl, dataDir);
  const db = createDb(databaseUrl, 2);
  try {
    await waitForHealth(server, base, 120_000);
    const conversation = (await stage(client, "conversation-app", () => seedConversationApp(setup))) as {
      appId: string;
      endUserId: string;
    };
    const key = setup.keys[1]!;
    // Memory at rest: started, one request of each kind answered, then idle for two seconds.
    await getJson(key, "/end-users?limit=1");
    await new Promise((r) => setTimeout(r, 2_000));
    const atRest = treeMemory(server.pid!);
    log(`server at rest: RSS ${atRest.rss.toFixed(0)} MB, private ${atRest.private.toFixed(0)} MB`);
    const pids = { server: server.pid!, postmaster };
    const timings = ONLY_UPSERTS ? [] : await requestTimings(client, db, setup, size, pids, key, conversation);
    const upserted = await upserts(setup, size, pids);
    log(
      `POST /end-users, 20 connections, half new and half known emails: ${upserted.perSecond}/s, p50 ${upserted.p50Ms} ms, p99 ${upserted.p99Ms} ms, non-2xx ${upserted.non2xx} (target ≥ 500/s) ${upserted.perSecond >= 500 ? "PASS" : "FAIL"}; CPU per request: server ${upserted.serverCpuUs.toFixed(0)} µs, PostgreSQL ${upserted.databaseCpuUs.toFixed(0)} µs`,
    );
    const databaseMb =
      Number((await client.query("SELECT pg_database_size(current_database()) AS size")).rows[0].size) / 2 ** 20;
    return {
      endUsers: size,
      seedSeconds,
      databaseMb,
      rssAtRestMb: atRest.rss,
      privateAtRestMb: atRest.private,
      upserts: upserted,
      timings,
    };
  } finally {
    await closeDb(db);
    if (server.exitCode === null && server.signalCode === null) {
      server.kill("SIGTERM");
      await new Promise((r) => server.once("exit", r));
    }
  }
}

export async function scaleBench(): Promise<void> {
  const dataDir = path.resolve(process.env.SCALE_DIR ?? path.join(root, ".bench", "scale"));
  mkdirSync(dataDir, { recursive: true });
  chmodSync(dataDir, 0o755);
  const cluster = await startEmbeddedCluster(path.join(dataDir, "postgres"), { log });
  const client = new pg.Client({ connectionString: cluster.urlFor(EMBEDDED_DATABASE) });
  try {
    await ensureDatabase(cluster.adminUrl, EMBEDDED_DATABASE);
    const databaseUrl = cluster.urlFor(EMBEDDED_DATABASE);
    const postmaster = Number(readFileSync(path.join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
    await migrate(databaseUrl);
    await client.connect();
    // A uuid named by a text, with the version and variant bits of a random one (the API checks them).
    await client.query(
      `CREATE OR REPLACE FUNCTION bench_uuid(name text) RETURNS uuid LANGUAGE sql IMMUTABLE AS
       $$ SELECT overlay(overlay(md5(name) placing '4' from 13) placing '8' from 17)::uuid $$`,
    );
    await client.query(
      "CREATE TABLE IF NOT EXISTS bench_scale_stages (stage text PRIMARY KEY, seconds float8 NOT NULL, info jsonb, done_at timestamptz NOT NULL DEFAULT now())",
    );
    const setup = await stage(client, "organization", () => seedOrganization(databaseUrl, client));
    Object.assign(setup, await stage(client, "catalog", () => seedCatalog(client, setup)));
    setup.knowledgebaseId = await stage(client, "knowledge-zipf", () => seedKnowledge(client, setup.organizationId));
    await stage(client, "executions", () => seedExecutions(client, setup));
    const results: StageResult[] = [];
    for (const size of STAGES) {
      // The organization only grows: a size below what is already seeded cannot be measured.
      const largest = await client.query<{ seeded: number | null }>(
        "SELECT max(substring(stage from 11)::int) AS seeded FROM bench_scale_stages WHERE stage LIKE 'end-users-%'",
      );
      if ((largest.rows[0]?.seeded ?? 0) > size) {
        log(`skipping ${size.toLocaleString("en")} end users: the organization already has more (delete ${dataDir})`);
        continue;
      }
      // Resumes from the largest size already seeded below this one.
      const { rows } = await client.query<{ seeded: number | null }>(
        "SELECT max(substring(stage from 11)::int) AS seeded FROM bench_scale_stages WHERE stage LIKE 'end-users-%' AND substring(stage from 11)::int < $1",
        [size],
      );
      await stage(client, `end-users-${size}`, async () => {
        await seedEndUsers(client, setup, rows[0]?.seeded ?? 0, size);
        await client.query("ANALYZE");
      });
      const seedSeconds = Number(
        (await client.query("SELECT seconds FROM bench_scale_stages WHERE stage = $1", [`end-users-${size}`])).rows[0]
          .seconds,
      );
      if (process.argv.includes("--seed-only")) continue;
      log(`measuring at ${size.toLocaleString("en")} end users`);
      const result = await measure(databaseUrl, dataDir, postmaster, client, setup, size, seedSeconds);
      results.push(result);
      print(result);
    }
    mkdirSync(path.join(root, ".bench"), { recursive: true });
    const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
    writeFileSync(
      path.join(root, ".bench", `scale-${new Date().toISOString().replaceAll(":", "")}.json`),
      JSON.stringify({ date: new Date().toISOString(), machine, rounds: ROUNDS, results }, null, 2),
    );
  } finally {
    await client.end().catch(() => {});
    await cluster.release();
  }
}

function print(result: StageResult): void {
  console.log("");
  console.log(
    `At ${result.endUsers.toLocaleString("en")} end users (seeded in ${result.seedSeconds.toFixed(0)} s): database ${result.databaseMb.toFixed(0)} MB, server RSS at rest ${result.rssAtRestMb.toFixed(0)} MB (private ${result.privateAtRestMb.toFixed(0)} MB); ${ROUNDS} requests each, one at a time`,
  );
  console.log("| Request | p50 (ms) | p99 (ms) | target p99 | server CPU µs | PostgreSQL CPU µs |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const t of result.timings) {
    const verdict = t.target ? `≤ ${t.target} ms ${t.p99Ms <= t.target ? "PASS" : "**FAIL**"}` : "";
    console.log(
      `| ${t.name} | ${t.p50Ms.toFixed(1)} | ${t.p99Ms.toFixed(1)} | ${verdict} | ${t.serverCpuUs.toFixed(0)} | ${t.databaseCpuUs.toFixed(0)} |`,
    );
  }
  const u = result.upserts;
  console.log(
    `| POST /end-users, 20 connections (half new emails) | ${u.p50Ms} | ${u.p99Ms} | ≥ 500/s: ${u.perSecond}/s ${u.perSecond >= 500 ? "PASS" : "**FAIL**"} | ${u.serverCpuUs.toFixed(0)} | ${u.databaseCpuUs.toFixed(0)} |`,
  );
  console.log("");
}
