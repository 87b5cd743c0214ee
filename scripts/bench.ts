// `npm run bench`: a production build on a fresh embedded database, driven by autocannon over
// loopback, beside a raw node:http server and the floor (scripts/bench-floor.ts). Prints
// requests/s, latency and CPU per request per scenario, the ratios the issues set targets for,
// the server's peak memory, and a cursor walk over 5,000 published flows (GET /flows, keyset
// pages). Results also go to .bench/results.json.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import http from "node:http";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  mkdirSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { buildServer } from "./build-server.mjs";
import { eventsBench, printEventsBench } from "./bench-events";
import { meteringBench, printMeteringBench } from "./bench-metering";
import {
  compiledServerArgs,
  cpuProfileArgs,
  memoryOf,
  percentile,
  postApi,
  spawnBenchServer,
  treeCpuSeconds,
  treeMemory,
  waitForHealth,
} from "./bench-process";
import { scaleBench } from "./bench-scale";
import { streamsBench } from "./bench-streams";
import { printUsageBench, usageBench } from "./bench-usage";
import { SCOPES } from "@/schemas/identity/auth";
import { startEmbeddedCluster, ensureDatabase, EMBEDDED_DATABASE } from "@/server/database/embedded";
import { migrate } from "@/server/database/migrate";
import { closeDb, createDb } from "@/server/db";
import { createApiKey } from "@/server/services/identity/api-keys";
import { createOrganization } from "@/server/services/org/organizations";
import { builtInStatus } from "@/server/runtime/built-ins";
import { defaultModels } from "@/server/runtime/models";
import { createTierPlan } from "@/server/services/provisioning/tier-plans";
import { createUserGroup } from "@/server/services/provisioning/user-groups";

const root = process.cwd();
const PORT = Number(process.env.BENCH_PORT ?? 3900);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const KEYS = 50;
const FLOWS = 5_000;
const FLOW_PAGE = 50;
const FLOW_WALKS = Number(process.env.BENCH_FLOW_WALKS ?? 20);
const FLOW_WARMUP_WALKS = 5;
const base = `http://127.0.0.1:${PORT}`;
const CORPUS_DOCS = Number(process.env.BENCH_CORPUS_DOCS ?? 1000);
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 400);

interface Scenario {
  name: string;
  path: string;
  /** Another server than the first Atrium process (the raw node:http baseline, the floor, a second process). */
  origin?: string;
  /** A Bearer key per connection, so the per-key limit is not what is measured. */
  authenticated: boolean;
  /** A POST whose JSON body is made afresh for every request. */
  body?: () => unknown;
  /** Concurrent connections, when not BENCH_CONNECTIONS. */
  connections?: number;
}

interface Result {
  scenario: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** Requests answered in the measured seconds. */
  requests: number;
  /** CPU time per request of the process answering (with its children) and of PostgreSQL. */
  serverCpuUs?: number;
  databaseCpuUs?: number;
}

const RAW_PORT = PORT + 1;
const FLOOR_PORT = PORT + 2;
const RAW_BASELINE = "raw node:http server, the same body as GET /models (the limit for an HTTP answer here)";
const FLOOR = "floor: GET /models's key check and model list behind bare node:http (scripts/bench-floor.ts)";
const MODELS = "GET /api/v1/models with a valid key";

const SCENARIOS: Scenario[] = [
  { name: RAW_BASELINE, path: "/models", origin: `http://127.0.0.1:${RAW_PORT}`, authenticated: false },
  { name: FLOOR, path: "/models", origin: `http://127.0.0.1:${FLOOR_PORT}`, authenticated: true },
  {
    name: "baseline: bare route handler, no auth (GET /api/bench/models)",
    path: "/api/bench/models",
    authenticated: false,
  },
  { name: MODELS, path: "/api/v1/models", authenticated: true },
];

/**
 * The raw baseline: a node:http server in its own process answering every request with the
 * JSON of GET /models, and nothing else: no routing, no framework, no database.
 */
function startRawServer(): ChildProcess {
  const body = JSON.stringify({ models: defaultModels(), builtIns: builtInStatus() });
  const source = `require("node:http").createServer((q, s) => { s.writeHead(200, { "content-type": "application/json" }); s.end(process.env.BODY); }).listen(${RAW_PORT}, () => process.send("ready"));`;
  return spawn(process.execPath, ["-e", source], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    env: { ...process.env, BODY: body },
  });
}

/** The floor (scripts/bench-floor.ts) in its own process, on the bench's database and raised limit. */
function startFloorServer(databaseUrl: string): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", path.join(root, "scripts/bench-floor.ts")], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(FLOOR_PORT), RATE_LIMIT_PER_MINUTE: "100000000" },
  });
}

function run(scenario: Scenario, keys: string[], duration: number): Promise<Result> {
  let next = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: (scenario.origin ?? base) + scenario.path,
        connections: scenario.connections ?? CONNECTIONS,
        duration,
        setupClient: (client) => {
          if (scenario.authenticated) {
            client.setHeaders({
              authorization: `Bearer ${keys[next++ % keys.length]}`,
              ...(scenario.body ? { "content-type": "application/json" } : {}),
            });
          }
        },
        ...(scenario.body
          ? {
              requests: [
                {
                  method: "POST" as const,
                  setupRequest: (request: object) => ({ ...request, body: JSON.stringify(scenario.body!()) }),
                },
              ],
            }
          : {}),
      },
      (error, result) => {
        if (error) return reject(error);
        resolve({
          scenario: scenario.name,
          requestsPerSecond: Math.round(result.requests.average),
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          non2xx: result.non2xx,
          errors: result.errors,
          requests: result.requests.total,
        });
      },
    );
  });
}

/**
 * POST /end-users as a CRM sync sends it: a new email each time, two plans (one with its plan
 * group), one group and one app grant.
 */
async function provisioningScenario(key: string, organizationId: string, databaseUrl: string): Promise<Scenario> {
  const db = createDb(databaseUrl, 2);
  const operator = { kind: "operator" as const, organizationId };
  const [basic, gold, group] = await Promise.all([
    createTierPlan(db, operator, { name: "Basic", creditAllowance: 100, withGroup: false }),
    createTierPlan(db, operator, { name: "Gold", creditAllowance: 500, withGroup: true }),
    createUserGroup(db, operator, { name: "Newsletter" }),
  ]);
  await closeDb(db);
  const app = await fetch(`${base}/api/v1/apps`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Helpdesk" }),
  }).then((r) => r.json() as Promise<{ app: { id: string } }>);
  let n = 0;
  return {
    name: "POST /api/v1/end-users: new email, two plans, one group, one grant (20 connections)",
    path: "/api/v1/end-users",
    authenticated: true,
    // A sync job's worth of concurrency; at 50 connections the queue alone would be 100 ms.
    connections: 20,
    body: () => ({
      email: `bench-${process.pid}-${n++}@example.com`,
      tierPlanIds: [basic.tierPlan.id, gold.tierPlan.id],
      groupIds: [group.id],
      grants: [{ targetKind: "app", targetId: app.app.id }],
    }),
  };
}

/**
 * The two detail reads issue 17 measures against GET /models: an end user with two subscriptions,
 * a group and a grant, and a knowledgebase with 50 pages.
 */
async function detailScenarios(key: string): Promise<Scenario[]> {
  const endUsers = await fetch(`${base}/api/v1/end-users?limit=1`, {
    headers: { authorization: `Bearer ${key}` },
  }).then((r) => r.json() as Promise<{ endUsers: { id: string }[] }>);
  const endUserId = endUsers.endUsers[0]?.id;
  if (!endUserId) throw new Error("No end user to read: the provisioning scenario creates them.");
  const { knowledgebase } = await post<{ knowledgebase: { id: string } }>(key, "/knowledgebases", {
    name: "Fifty pages",
  });
  for (let page = 0; page < 50; page++) {
    await post(key, `/knowledgebases/${knowledgebase.id}/pages`, {
      title: `Page ${page}`,
      markdown: `# Page ${page}\n\nSome text about topic ${page}.`,
    });
  }
  return [
    {
      name: "GET /api/v1/end-users/{id} (two plans, a group, a grant)",
      path: `/api/v1/end-users/${endUserId}`,
      authenticated: true,
    },
    {
      name: "GET /api/v1/knowledgebases/{id} (50 pages)",
      path: `/api/v1/knowledgebases/${knowledgebase.id}`,
      authenticated: true,
    },
  ];
}

/** Conversation turns as fast as 16 clients can send them (each a new conversation with the built-in model). */
function conversationThroughputScenario(appId: string): Scenario {
  return {
    name: "POST /api/v1/apps/{id}/conversation, built-in model (16 connections)",
    path: `/api/v1/apps/${appId}/conversation`,
    authenticated: true,
    connections: 16,
    body: () => ({ message: "How long do refunds take, and are shipping costs refunded?" }),
  };
}

const post = <T>(key: string, route: string, body: unknown) => postApi<T>(base, key, route, body);

/** A published two-member app (broadcast: both members answer, the built-in model synthesizes) over a knowledge page. */
async function conversationApp(key: string): Promise<string> {
  const { knowledgebase } = await post<{ knowledgebase: { id: string } }>(key, "/knowledgebases", {
    name: "Help centre",
  });
  await post(key, `/knowledgebases/${knowledgebase.id}/pages`, {
    title: "Refund policy",
    markdown:
      "Refunds are paid within 14 days of the request. Shipping costs are not refunded. Contact billing for invoices.",
  });
  const agents: string[] = [];
  for (const [name, description] of [
    ["Billing agent", "Invoices, refunds and payments"],
    ["Support agent", "Technical problems and outages"],
  ]) {
    const { agent } = await post<{ agent: { id: string } }>(key, "/agents", {
      name,
      description,
      knowledge: [{ knowledgebaseId: knowledgebase.id }],
    });
    await post(key, `/agents/${agent.id}/publish`, {});
    agents.push(agent.id);
  }
  const { app } = await post<{ app: { id: string } }>(key, "/apps", {
    name: "Helpdesk",
    orchestrationMode: "broadcast",
    members: agents.map((id) => ({ id, kind: "agent" })),
  });
  await post(key, `/apps/${app.id}/publish`, {});
  return app.id;
}

const CONVERSATIONS = 20;

/**
 * 20 conversations at once, as people chat: each sends a message, reads the reply, pauses a
 * moment (0.2–1 s, from a seeded generator so runs compare) and goes on in the same
 * conversation. With the built-in model the reply time is the server's own overhead.
 */
async function conversations(keys: string[], appId: string): Promise<{ turns: number; p50Ms: number; p99Ms: number }> {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const timings: number[] = [];
  const until = Date.now() + DURATION * 1000;
  await Promise.all(
    Array.from({ length: CONVERSATIONS }, async (_, n) => {
      let conversationId: string | undefined;
      for (let turn = 0; Date.now() < until; turn++) {
        const started = performance.now();
        const reply = await post<{ conversation_id: string }>(keys[n % keys.length]!, `/apps/${appId}/conversation`, {
          message: "How long do refunds take, and are shipping costs refunded?",
          ...(conversationId ? { conversation_id: conversationId } : {}),
        });
        if (turn > 0) timings.push(performance.now() - started); // each conversation's first turn warms up
        conversationId = reply.conversation_id;
        await new Promise((resolve) => setTimeout(resolve, 200 + random() * 800));
      }
    }),
  );
  timings.sort((a, b) => a - b);
  return { turns: timings.length, p50Ms: percentile(timings, 50), p99Ms: percentile(timings, 99) };
}

/** Time from sending a streaming conversation request to its first SSE event, one request at a time. */
async function firstEventLatencies(
  key: string,
  appId: string,
  count: number,
): Promise<{ p50Ms: number; p99Ms: number }> {
  const timings: number[] = [];
  for (let i = 0; i < count + 10; i++) {
    const started = performance.now();
    const response = await fetch(`${base}/api/v1/apps/${appId}/conversation`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "How long do refunds take?", stream: true }),
    });
    const reader = response.body!.getReader();
    // The first event (a step or a delta), past the comment line that opens the stream.
    let received = "";
    while (!/^event: /m.test(received)) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error("The stream ended before its first event.");
      received += new TextDecoder().decode(chunk.value);
    }
    const elapsed = performance.now() - started;
    while (!(await reader.read()).done);
    if (i >= 10) timings.push(elapsed); // the first 10 warm up
  }
  timings.sort((a, b) => a - b);
  return { p50Ms: percentile(timings, 50), p99Ms: percentile(timings, 99) };
}

/** 5,000 published flows (one version each, live), inserted in three SQL statements. */
async function seedFlows(databaseUrl: string, organizationId: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const inputs = [{ key: "question", label: "Question", description: "", type: "text", required: true, options: [] }];
    const nodes = [
      { id: "start", type: "trigger_start", data: {}, blocks: [] },
      { id: "answer", type: "llm", data: { prompt: "{{inputs.question}}" }, blocks: [] },
      { id: "out", type: "output", data: { value: "{{nodes.answer.output}}" }, blocks: [] },
    ];
    const lastChange = {
      at: new Date().toISOString(),
      by: "bench",
      source: "cli",
      action: "published",
      summary: "Published version 1 (live)",
    };
    await client.query("BEGIN");
    await client.query(
      `CREATE TEMP TABLE seed ON COMMIT DROP AS
         SELECT i, gen_random_uuid() AS item_id, gen_random_uuid() AS version_id,
                clock_timestamp() - ($1 - i) * interval '1 millisecond' AS created_at,
                jsonb_build_object('name', 'Flow ' || i, 'slug', 'flow-' || i, 'description', 'Benchmark flow ' || i, 'kind', 'form',
                                   'questions', '[]'::jsonb, 'inputs', $2::jsonb, 'nodes', $3::jsonb) AS doc
         FROM generate_series(1, $1) AS i`,
      [FLOWS, JSON.stringify(inputs), JSON.stringify(nodes)],
    );
    await client.query(
      `INSERT INTO builder_items (id, organization_id, kind, draft, production_version_id, version_count, last_change, live_at, created_at, updated_at)
       SELECT item_id, $1, 'flow', doc, version_id, 1, $2::jsonb, created_at, created_at, created_at FROM seed`,
      [organizationId, JSON.stringify(lastChange)],
    );
    await client.query(
      `INSERT INTO builder_versions (id, item_id, organization_id, number, name, document, published_by, source, created_at)
       SELECT version_id, item_id, $1, 1, 'v1', doc, 'bench', 'cli', created_at FROM seed`,
      [organizationId],
    );
    await client.query("COMMIT");
    await client.query("ANALYZE builder_items; ANALYZE builder_versions");
  } finally {
    await client.end();
  }
}

interface FlowWalk {
  pages: number;
  p50Ms: number;
  p99Ms: number;
  page1Ms: number;
  lastPageMs: number;
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** Walks every page of GET /flows with cursors, FLOW_WALKS times (after warm-up walks). */
async function walkFlows(key: string): Promise<FlowWalk> {
  const byPage: number[][] = [];
  for (let walk = -FLOW_WARMUP_WALKS; walk < FLOW_WALKS; walk++) {
    let cursor: string | null = null;
    let page = 0;
    let seen = 0;
    do {
      const started = performance.now();
      const response = await fetch(`${base}/api/v1/flows?limit=${FLOW_PAGE}${cursor ? `&cursor=${cursor}` : ""}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await response.json()) as { flows: unknown[]; nextCursor: string | null };
      const elapsed = performance.now() - started;
      if (!response.ok) throw new Error(`GET /flows answered ${response.status}`);
      if (walk >= 0) (byPage[page] ??= []).push(elapsed);
      seen += body.flows.length;
      cursor = body.nextCursor;
      page++;
    } while (cursor);
    if (seen !== FLOWS) throw new Error(`The walk saw ${seen} flows, not ${FLOWS}.`);
  }
  const all = byPage.flat().sort((a, b) => a - b);
  return {
    pages: byPage.length,
    p50Ms: percentile(all, 50),
    p99Ms: percentile(all, 99),
    page1Ms: median(byPage[0]!),
    lastPageMs: median(byPage[byPage.length - 1]!),
  };
}

// ---------------------------------------------------------------------------------------------
// Knowledge: ingest a generated markdown corpus through the API, time it until every source is
// `ready` (indexing runs in the server's background worker), then time searches over it.

const WORDS = (
  "river mountain engine protocol garden ledger harbor lantern meadow orbit pioneer quartz reactor signal tunnel valley " +
  "whisper yonder zenith anchor beacon canyon delta ember falcon glacier horizon island jungle kernel lagoon magnet " +
  "nebula oasis prism quiver rocket summit thunder umbra vortex willow xenon yacht zephyr invoice refund shipping " +
  "warranty onboarding payroll compliance latency throughput backup restore migration incident postmortem rollout"
).split(" ");

function corpusDocument(i: number): string {
  let seed = i * 7919 + 17;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const word = () => WORDS[Math.floor(next() * WORDS.length)]!;
  const sections: string[] = [`# Document ${i}: ${word()} ${word()}`];
  while (sections.join("\n\n").length < 5000) {
    sections.push(`## ${word()} ${word()}`);
    sections.push(Array.from({ length: 60 }, () => word()).join(" ") + ` ref-${i}.`);
  }
  return sections.join("\n\n");
}

interface SequentialRead {
  table: string;
  rows: number;
  liveRows: number;
}

/** What PostgreSQL counts of each table's rows read by sequential scans, and its live rows. */
async function sequentialRows(databaseUrl: string): Promise<Map<string, { rows: number; liveRows: number }>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // A backend reports its counts once it is idle, at most once a second.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const { rows } = await client.query<{ relname: string; seq_tup_read: string; n_live_tup: string }>(
      "select relname, seq_tup_read, n_live_tup from pg_stat_user_tables",
    );
    return new Map(
      rows.map((row) => [row.relname, { rows: Number(row.seq_tup_read), liveRows: Number(row.n_live_tup) }]),
    );
  } finally {
    await client.end();
  }
}

/**
 * The five tables whose rows sequential scans read most between two counts: a statement whose
 * plan reads a growing table whole shows here (a plan made while the subscriptions table was
 * small once read all of it on every POST /end-users: BENCHMARKS.md, 2026-12-07).
 */
function sequentialReadsSince(
  before: Map<string, { rows: number }>,
  after: Map<string, { rows: number; liveRows: number }>,
): SequentialRead[] {
  return [...after]
    .map(([table, { rows, liveRows }]) => ({ table, rows: rows - (before.get(table)?.rows ?? 0), liveRows }))
    .filter((read) => read.rows > 0)
    .sort((a, b) => b.rows - a.rows)
    .slice(0, 5);
}

/** Posts documents as sources of a new knowledgebase, 8 at a time, and waits until all are ready. */
async function ingest(
  key: string,
  name: string,
  documents: { name: string; markdown: string }[],
): Promise<{ kbId: string; postSeconds: number; ingestSeconds: number }> {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const created = await fetch(`${base}/api/v1/knowledgebases`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name }),
  });
  const kbId = ((await created.json()) as { knowledgebase: { id: string } }).knowledgebase.id;
  const started = performance.now();
  let nextDoc = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (nextDoc < documents.length) {
        const document = documents[nextDoc++]!;
        const response = await fetch(`${base}/api/v1/knowledgebases/${kbId}/sources`, {
          method: "POST",
          headers,
          body: JSON.stringify({ name: document.name, contentMarkdown: document.markdown }),
        });
        if (response.status !== 202) throw new Error(`add source: ${response.status} ${await response.text()}`);
      }
    }),
  );
  const posted = performance.now();
  for (;;) {
    const detail = (await (await fetch(`${base}/api/v1/knowledgebases/${kbId}`, { headers })).json()) as {
      sources: { status: string }[];
    };
    const ready = detail.sources.filter((s) => s.status === "ready").length;
    const failed = detail.sources.filter((s) => s.status === "failed").length;
    if (failed > 0) throw new Error(`${failed} sources failed`);
    if (ready === documents.length) break;
    if (performance.now() - started > 300_000)
      throw new Error(`only ${ready} of ${documents.length} ready after 300 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { kbId, postSeconds: (posted - started) / 1000, ingestSeconds: (performance.now() - started) / 1000 };
}

/** One search of a knowledgebase over HTTP, as a client's: how long it took, in ms; throws unless it found results. */
async function timedSearch(key: string, kbId: string, query: string): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(`${base}/api/v1/knowledgebases/${kbId}/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ query, limit: 10 }),
  });
  const body = (await response.json()) as { results?: unknown[] };
  if (response.status !== 200 || !body.results) throw new Error(`search: ${response.status} ${JSON.stringify(body)}`);
  return performance.now() - t0;
}

async function knowledgeScenario(key: string) {
  const documents = Array.from({ length: CORPUS_DOCS }, (_, i) => ({
    name: `doc-${i}.md`,
    markdown: corpusDocument(i),
  }));
  const bytes = documents.reduce((sum, doc) => sum + Buffer.byteLength(doc.markdown), 0);
  console.log(`Knowledge: ingesting ${documents.length} documents (${(bytes / 1024 / 1024).toFixed(1)} MB)…`);
  const { kbId, postSeconds, ingestSeconds } = await ingest(key, "Bench corpus", documents);
  console.log(
    `Knowledge: all ${documents.length} posted in ${postSeconds.toFixed(1)} s, all ready in ${ingestSeconds.toFixed(1)} s`,
  );

  const timings: number[] = [];
  for (let i = 0; i < SEARCHES + 20; i++) {
    const query =
      i % 3 === 0 ? `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}` : WORDS[(i * 13) % WORDS.length]!;
    const ms = await timedSearch(key, kbId, query);
    if (i >= 20) timings.push(ms); // the first 20 warm up
  }
  timings.sort((a, b) => a - b);
  return {
    documents: documents.length,
    megabytes: bytes / 1024 / 1024,
    postSeconds,
    ingestSeconds,
    searches: timings.length,
    searchP50Ms: percentile(timings, 50),
    searchP99Ms: percentile(timings, 99),
  };
}

// ---------------------------------------------------------------------------------------------
// Manual pages: the search stalls of issue 25. Real manual pages (eval/command-manuals, a few
// hundred documents) and 60 short everyday questions written in a person's words, asked one at a
// time over HTTP: every question must answer quickly, so the slowest is reported beside p99.

const MANUALS = path.join(root, "eval", "command-manuals");
const MANUAL_ROUNDS = Number(process.env.BENCH_MANUAL_ROUNDS ?? 5);

function manualQuestions(): string[] {
  return readFileSync(path.join(MANUALS, "questions.tsv"), "utf8")
    .split("\n")
    .filter((line) => line.trim() && !line.startsWith("#"))
    .map((line) => line.split("\t")[0]!);
}

async function manualPagesScenario(key: string) {
  const files = readdirSync(path.join(MANUALS, "corpus"))
    .filter((file) => file.endsWith(".md"))
    .sort();
  const documents = files.map((file) => ({
    name: file.replace(/\.md$/, ""),
    markdown: readFileSync(path.join(MANUALS, "corpus", file), "utf8"),
  }));
  const { kbId, ingestSeconds } = await ingest(key, "Manual pages", documents);
  console.log(`Manual pages: ${documents.length} documents ready in ${ingestSeconds.toFixed(1)} s`);
  const questions = manualQuestions();
  const ask = (query: string) => timedSearch(key, kbId, query);
  for (const question of questions) await ask(question); // one warm-up round
  const timings: { ms: number; question: string }[] = [];
  for (let round = 0; round < MANUAL_ROUNDS; round++)
    for (const question of questions) timings.push({ ms: await ask(question), question });
  const sorted = timings.map((t) => t.ms).sort((a, b) => a - b);
  const byTime = [...timings].sort((a, b) => b.ms - a.ms);
  console.log(
    `Manual pages: the slowest searches\n${byTime
      .slice(0, 5)
      .map((t) => `  ${t.ms.toFixed(1)} ms  ${t.question}`)
      .join("\n")}`,
  );
  const slowest = byTime[0]!;
  return {
    documents: documents.length,
    questions: questions.length,
    searches: timings.length,
    ingestSeconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: slowest.ms,
    slowest: slowest.question,
  };
}

/**
 * A scenario alone, in-process on an embedded database of its own, with no build: BENCH_ONLY=usage,
 * events (the cost of recording events on write paths) and metering (what pricing a turn by its
 * tokens costs it). The rate limit still runs on every request, and never refuses.
 */
async function onItsOwnDatabase(scenario: (databaseUrl: string) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "atrium-bench-"));
  chmodSync(dataDir, 0o755);
  const cluster = await startEmbeddedCluster(path.join(dataDir, "postgres"), { ephemeral: true });
  try {
    await ensureDatabase(cluster.adminUrl, EMBEDDED_DATABASE);
    const databaseUrl = cluster.urlFor(EMBEDDED_DATABASE);
    await migrate(databaseUrl);
    process.env.RATE_LIMIT_PER_MINUTE = "100000000";
    await scenario(databaseUrl);
  } finally {
    await cluster.release();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// `npm run bench -- --soak [--minutes=30] [--processes=2]`: mixed load for a long while (API reads, provisioning
// with webhook deliveries to a local receiver, conversation turns and streams, sources indexed and
// searched) on the server `npm start` serves, API only (Next.js is never loaded, so no build is needed).
// Every 10 s it samples the server's RSS and, from GET /api/metrics, its JS heap, external memory
// and ArrayBuffers, and prints each one's slope in MB a minute after a warm-up: RSS rising while
// the heap stays flat is native memory (the allocator, zlib, TLS, pg buffers). MALLOC_ARENA_MAX,
// when set, is passed to the server, to compare glibc's arena count with and without a cap.

const SOAK_SAMPLE_MS = 10_000;
const METRICS_TOKEN = "bench-soak-metrics";

interface SoakSample {
  seconds: number;
  rssMb: number;
  heapUsedMb: number;
  /** What V8 holds for its heap, used or not: RSS can grow with it while the heap in use stays flat. */
  heapCommittedMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  arenas: number;
}

/** Least-squares slope of `value` over time, in MB a minute. */
function slopePerMinute(samples: SoakSample[], value: (sample: SoakSample) => number): number {
  const n = samples.length;
  if (n < 2) return 0;
  const meanT = samples.reduce((sum, s) => sum + s.seconds, 0) / n;
  const meanV = samples.reduce((sum, s) => sum + value(s), 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const s of samples) {
    covariance += (s.seconds - meanT) * (value(s) - meanV);
    variance += (s.seconds - meanT) ** 2;
  }
  return variance === 0 ? 0 : (covariance / variance) * 60;
}

/** glibc's malloc arenas past the main one: anonymous mappings aligned to their 64 MiB heap size. */
function mallocArenas(pid: number): number {
  try {
    return readFileSync(`/proc/${pid}/maps`, "utf8")
      .split("\n")
      .filter((line) => {
        const [range, , , , inode, name] = line.split(/\s+/);
        if (!range || inode !== "0" || name) return false;
        return BigInt(`0x${range.split("-")[0]}`) % 0x4000000n === 0n;
      }).length;
  } catch {
    return 0;
  }
}

async function soakSample(origin: string, pid: number, startedAt: number): Promise<SoakSample> {
  const text = await fetch(`${origin}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then(
    (r) => r.text(),
  );
  const metric = (name: string) => Number(new RegExp(`^${name} ([0-9.e+]+)`, "m").exec(text)?.[1] ?? 0) / 2 ** 20;
  return {
    seconds: (Date.now() - startedAt) / 1000,
    rssMb: memoryOf(pid).rss,
    heapUsedMb: metric("atrium_process_nodejs_heap_size_used_bytes"),
    heapCommittedMb: metric("atrium_process_nodejs_heap_size_total_bytes"),
    externalMb: metric("atrium_process_nodejs_external_memory_bytes"),
    arrayBuffersMb: metric("atrium_process_nodejs_array_buffers_bytes"),
    arenas: mallocArenas(pid),
  };
}

/** Runs `step` over and over until `until`, counting failures rather than stopping. */
async function loopUntil(until: number, step: () => Promise<unknown>, failures: { count: number }): Promise<void> {
  while (Date.now() < until) {
    await step().catch(() => {
      failures.count++;
    });
  }
}

/** What the soak's mixed load needs on the database every server shares. */
interface SoakTarget {
  key: string;
  appId: string;
  knowledgebaseId: string;
}

/** One server's share of the mixed load, until `until`: the same mix on every process. */
async function soakLoad(origin: string, target: SoakTarget, until: number, failures: { count: number }) {
  let n = 0;
  const { key, appId, knowledgebaseId } = target;
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const asJson = (route: string, body?: unknown) =>
    fetch(`${origin}/api/v1${route}`, {
      method: body === undefined ? "GET" : "POST",
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (response) => {
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`${route}: ${response.status}`);
    });
  const stream = async () => {
    const response = await fetch(`${origin}/api/v1/apps/${appId}/conversation`, {
      method: "POST",
      headers,
      body: JSON.stringify({ message: "How long do refunds take?", stream: true }),
    });
    await response.arrayBuffer();
  };
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const seconds = Math.max(1, Math.round((until - Date.now()) / 1000));
  const port = new URL(origin).port;
  await Promise.all([
    run(
      { name: `soak: GET /models (:${port})`, origin, path: "/api/v1/models", authenticated: true, connections: 8 },
      [key],
      seconds,
    ),
    run(
      {
        name: `soak: POST /end-users (:${port})`,
        origin,
        path: "/api/v1/end-users",
        authenticated: true,
        connections: 4,
        // Every fifth a known email renamed (an update), the rest new accounts.
        body: () => ({ email: `soak-${port}-${n % 5 === 0 ? n % 50 : n}@example.com`, fullName: `Soak ${n++}` }),
      },
      [key],
      seconds,
    ),
    ...Array.from({ length: 4 }, () =>
      loopUntil(
        until,
        () => asJson(`/apps/${appId}/conversation`, { message: "Are shipping costs refunded?" }),
        failures,
      ),
    ),
    ...Array.from({ length: 2 }, () => loopUntil(until, stream, failures)),
    loopUntil(
      until,
      async () => {
        await asJson(`/knowledgebases/${knowledgebaseId}/sources`, {
          name: `Doc ${port}-${n}`,
          contentMarkdown: corpusDocument(n).repeat(10),
        });
        await asJson(`/knowledgebases/${knowledgebaseId}/search`, { query: "refund shipping", limit: 10 });
        await pause(1000);
      },
      failures,
    ),
  ]);
}

async function soakBench(): Promise<void> {
  const argument = (name: string) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1];
  const minutes = Number(argument("minutes") ?? process.env.BENCH_SOAK_MINUTES ?? 30);
  const processes = Number(argument("processes") ?? 1);
  await buildServer();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "atrium-bench-"));
  chmodSync(dataDir, 0o755);
  const cluster = await startEmbeddedCluster(path.join(dataDir, "postgres"), { ephemeral: true });
  const servers: ChildProcess[] = [];
  const receiver = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(204).end());
  });
  try {
    await ensureDatabase(cluster.adminUrl, EMBEDDED_DATABASE);
    const databaseUrl = cluster.urlFor(EMBEDDED_DATABASE);
    await migrate(databaseUrl);
    const db = createDb(databaseUrl, 2);
    const organization = await createOrganization(db, { name: "Soak", credits: 1_000_000_000 });
    const operator = { kind: "operator" as const, organizationId: organization.id };
    const key = (await createApiKey(db, operator, { name: "soak", kind: "organization", scopes: [...SCOPES] })).secret;
    await closeDb(db);
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const receiverPort = (receiver.address() as { port: number }).port;

    // The server `npm start` serves (its compiled bundle), without the launcher; with --processes=N,
    // N of them on consecutive ports over the one database, as a scaled-out deployment runs.
    const origins = Array.from({ length: processes }, (_, i) => `http://127.0.0.1:${PORT + i}`);
    for (const [i, origin] of origins.entries()) {
      const server = spawnBenchServer(
        compiledServerArgs(),
        { port: PORT + i, databaseUrl, dataDir },
        {
          METRICS_TOKEN,
          ALLOW_PRIVATE_INTEGRATION_URLS: "true",
          ATRIUM_SECRET_KEY: process.env.ATRIUM_SECRET_KEY ?? "bench-soak-secret-key-0123456789abcdef",
        },
      );
      servers.push(server);
      await waitForHealth(server, origin, 60_000);
    }
    await post(key, "/webhook-endpoints", { url: `http://127.0.0.1:${receiverPort}/hook`, eventTypes: ["*"] });
    const appId = await conversationApp(key);
    const { knowledgebase } = await post<{ knowledgebase: { id: string } }>(key, "/knowledgebases", { name: "Soak" });
    const target = { key, appId, knowledgebaseId: knowledgebase.id };

    console.log(
      `Soak: ${minutes} min of mixed load on ${processes} process(es); MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? "(unset)"}; a sample every ${SOAK_SAMPLE_MS / 1000} s`,
    );
    const startedAt = Date.now();
    const until = startedAt + minutes * 60_000;
    const sampleAll = () => Promise.all(servers.map((server, i) => soakSample(origins[i]!, server.pid!, startedAt)));
    const samples: SoakSample[][] = servers.map(() => []);
    const record = (round: SoakSample[]) =>
      round.forEach((s, i) => {
        samples[i]!.push(s);
        console.log(
          `  ${s.seconds.toFixed(0).padStart(5)} s  process ${i + 1}  RSS ${s.rssMb.toFixed(1)} MB  heap ${s.heapUsedMb.toFixed(1)} of ${s.heapCommittedMb.toFixed(1)} MB  external ${s.externalMb.toFixed(1)} MB  arrayBuffers ${s.arrayBuffersMb.toFixed(1)} MB  malloc arenas ${s.arenas}`,
        );
      });
    record(await sampleAll());
    const sampler = setInterval(() => void sampleAll().then(record), SOAK_SAMPLE_MS);

    const failures = { count: 0 };
    await Promise.all(origins.map((origin) => soakLoad(origin, target, until, failures)));
    clearInterval(sampler);
    record(await sampleAll());
    // The first fifth (at least a minute's worth when there is one) is warm-up: caches and pools filling.
    for (const [i, series] of samples.entries()) {
      const warm = series.filter((s) => s.seconds >= Math.min(60, (minutes * 60) / 5));
      const slope = (value: (s: SoakSample) => number) => `${slopePerMinute(warm, value).toFixed(2)} MB/min`;
      console.log(
        `Soak slopes after warm-up, process ${i + 1} (${warm.length} samples): RSS ${slope((s) => s.rssMb)}, heap ${slope((s) => s.heapUsedMb)} (committed ${slope((s) => s.heapCommittedMb)}), ` +
          `external ${slope((s) => s.externalMb)}, arrayBuffers ${slope((s) => s.arrayBuffersMb)}; ` +
          `malloc arenas ${series[0]!.arenas} → ${series.at(-1)!.arenas}`,
      );
    }
    console.log(`Soak: failed requests ${failures.count}`);
  } finally {
    receiver.close();
    for (const server of servers) {
      if (server.exitCode === null && server.signalCode === null) {
        server.kill("SIGTERM");
        await new Promise((r) => server.once("exit", r));
      }
    }
    await cluster.release();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  if (process.argv.includes("--soak")) return soakBench();
  if (process.argv.includes("--streams")) return streamsBench();
  if (process.env.BENCH_ONLY === "usage")
    return onItsOwnDatabase(async (url) => printUsageBench(await usageBench(url)));
  if (process.env.BENCH_ONLY === "events")
    return onItsOwnDatabase(async (url) => printEventsBench(await eventsBench(url)));
  if (process.env.BENCH_ONLY === "metering")
    return onItsOwnDatabase(async (url) => printMeteringBench(await meteringBench(url)));
  if (process.argv.includes("--scale")) return scaleBench();
  if (!existsSync(path.join(root, ".next", "BUILD_ID")) || process.argv.includes("--build")) {
    console.log("Building the production server…");
    const build = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], {
      stdio: "inherit",
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  await buildServer();

  const dataDir = mkdtempSync(path.join(os.tmpdir(), "atrium-bench-"));
  chmodSync(dataDir, 0o755); // the postgres system user must reach the cluster inside
  const cluster = await startEmbeddedCluster(path.join(dataDir, "postgres"), { ephemeral: true });
  let server: ChildProcess | undefined;
  let rawServer: ChildProcess | undefined;
  let floorServer: ChildProcess | undefined;
  try {
    await ensureDatabase(cluster.adminUrl, EMBEDDED_DATABASE);
    const databaseUrl = cluster.urlFor(EMBEDDED_DATABASE);
    // PostgreSQL's postmaster, whose children are the backends serving the server's pool.
    const postmaster = Number(readFileSync(path.join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
    await migrate(databaseUrl);

    const db = createDb(databaseUrl, 2);
    const organization = await createOrganization(db, { name: "Benchmark", credits: 1_000_000_000 });
    const operator = { kind: "operator" as const, organizationId: organization.id };
    const keys: string[] = [];
    for (let i = 0; i < KEYS; i++) {
      keys.push(
        (await createApiKey(db, operator, { name: `bench ${i}`, kind: "organization", scopes: [...SCOPES] })).secret,
      );
    }
    await seedFlows(databaseUrl, organization.id);
    await closeDb(db);

    // BENCH_CPU_PROFILE=<dir> writes a V8 CPU profile of each process (the setup step passes
    // the flags on; its profile is small, the server's is the one to read), for finding hot spots.
    const profileDir = process.env.BENCH_CPU_PROFILE ? path.resolve(process.env.BENCH_CPU_PROFILE) : undefined;
    const profile = cpuProfileArgs();
    // Each scenario's measured window on the monotonic clock V8 stamps samples with, so that
    // scripts/cpu-profile.ts can give the CPU time per request of each.
    const windows: { scenario: string; startUs: number; endUs: number; requests: number }[] = [];
    // What `npm start` runs (package.json: node with the heap limit, scripts/start.mjs, which
    // migrates, runs the setup step and then serves in the same process), on the bench's database.
    server = spawnBenchServer(
      [...profile, path.join(root, "scripts/start.mjs")],
      { port: PORT, databaseUrl, dataDir },
      { BENCH_BASELINE_ROUTE: "1" },
    );
    await waitForHealth(server, base, 60_000);
    rawServer = startRawServer();
    floorServer = startFloorServer(databaseUrl);
    await Promise.all(
      [rawServer, floorServer].map((child) => new Promise((resolve) => child.once("message", resolve))),
    );

    const provisioning = await provisioningScenario(keys[0]!, organization.id, databaseUrl);
    const appId = await conversationApp(keys[0]!);

    const atRest = treeMemory(server.pid!);
    const rssAtRest = atRest.rss;
    console.log(
      `Server memory at rest (what npm start runs): RSS ${atRest.rss.toFixed(0)} MB, private ${atRest.private.toFixed(0)} MB`,
    );
    let peakRss = 0;
    let peakPrivate = 0;
    const sampler = setInterval(() => {
      const memory = treeMemory(server!.pid!);
      peakRss = Math.max(peakRss, memory.rss);
      peakPrivate = Math.max(peakPrivate, memory.private);
    }, 200);
    // BENCH_ONLY=api, BENCH_ONLY=flows, BENCH_ONLY=knowledge (both corpora) or BENCH_ONLY=manuals runs just that part;
    // BENCH_ONLY=usage, events and metering run those scenarios alone, before any build (onItsOwnDatabase).
    const requested = process.env.BENCH_ONLY;
    const only = requested === "api" ? undefined : requested;
    const apiOnly = requested === "api";
    const results: Result[] = [];
    async function measure(scenario: Scenario) {
      await run(scenario, keys, 2); // warm-up
      const startUs = Number(process.hrtime.bigint() / 1000n);
      // The CPU of the process that answers the scenario: Atrium's server, the raw one or the floor.
      const answering = (
        scenario.origin === undefined ? server : scenario.origin.endsWith(`:${RAW_PORT}`) ? rawServer : floorServer
      )!.pid!;
      const cpuBefore = [treeCpuSeconds(answering), treeCpuSeconds(postmaster)];
      const result = await run(scenario, keys, DURATION);
      const [serverCpu, databaseCpu] = [
        treeCpuSeconds(answering) - cpuBefore[0]!,
        treeCpuSeconds(postmaster) - cpuBefore[1]!,
      ];
      windows.push({
        scenario: scenario.name,
        startUs,
        endUs: Number(process.hrtime.bigint() / 1000n),
        requests: result.requests,
      });
      Object.assign(result, {
        serverCpuUs: (serverCpu / result.requests) * 1e6,
        databaseCpuUs: (databaseCpu / result.requests) * 1e6,
      });
      results.push(result);
      console.log(
        `${result.scenario}: ${result.requestsPerSecond} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}, errors ${result.errors}; peak RSS so far ${peakRss.toFixed(0)} MB` +
          (result.serverCpuUs === undefined
            ? ""
            : `; CPU per request: server ${result.serverCpuUs.toFixed(0)} µs, PostgreSQL ${result.databaseCpuUs!.toFixed(0)} µs`),
      );
    }
    let sequentiallyRead: SequentialRead[] | null = null;
    if (!only) {
      const scannedBefore = await sequentialRows(databaseUrl);
      for (const scenario of [...SCENARIOS, provisioning]) await measure(scenario);
      // The detail reads need the end users the provisioning scenario created.
      for (const scenario of [...(await detailScenarios(keys[0]!)), conversationThroughputScenario(appId)])
        await measure(scenario);
      sequentiallyRead = sequentialReadsSince(scannedBefore, await sequentialRows(databaseUrl));
      console.log(
        `Rows read by sequential scans in the API scenarios, most first: ${
          sequentiallyRead.map((read) => `${read.table} ${read.rows} (${read.liveRows} rows in it now)`).join(", ") ||
          "none"
        }`,
      );
    }
    const conversed = only || apiOnly ? null : await conversations(keys, appId);
    const firstEvent = only || apiOnly ? null : await firstEventLatencies(keys[0]!, appId, 100);
    const knowledge = (!only && !apiOnly) || only === "knowledge" ? await knowledgeScenario(keys[0]!) : null;
    const manuals =
      (!only && !apiOnly) || only === "knowledge" || only === "manuals" ? await manualPagesScenario(keys[0]!) : null;
    clearInterval(sampler);
    const flows = (!only && !apiOnly) || only === "flows" ? await walkFlows(keys[0]!) : null;
    const rssAfterWalk = treeMemory(server.pid!).rss;
    const usage = !only && !apiOnly ? await usageBench(databaseUrl) : null;

    const byName = (name: string) => results.find((r) => r.scenario === name);
    const raw = byName(RAW_BASELINE);
    const models = byName(MODELS);
    const ratioTo = (r: Result | undefined, to: Result | undefined) =>
      r && to ? r.requestsPerSecond / to.requestsPerSecond : 0;
    const ratio = ratioTo(models, raw);
    const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
    console.log("");
    console.log(`Machine: ${machine}; ${CONNECTIONS} connections (unless said), ${DURATION} s per scenario`);
    console.log(
      "| Scenario | Requests/s | of raw | p50 (ms) | p99 (ms) | non-2xx | server CPU µs/request | PostgreSQL CPU µs/request |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
    const cpu = (us: number | undefined) => (us === undefined ? "" : us.toFixed(0));
    for (const r of results) {
      console.log(
        `| ${r.scenario} | ${r.requestsPerSecond} | ${(ratioTo(r, raw) * 100).toFixed(1)}% | ${r.p50Ms} | ${r.p99Ms} | ${r.non2xx} | ${cpu(r.serverCpuUs)} | ${cpu(r.databaseCpuUs)} |`,
      );
    }
    console.log("");
    if (results.length > 0) {
      console.log(
        `GET /models / raw node:http: ${(ratio * 100).toFixed(1)}% (target ≥ 15%) ${ratio >= 0.15 ? "PASS" : "FAIL"}`,
      );
      const floor = byName(FLOOR);
      if (floor) {
        console.log(
          `The floor (its database work alone) / raw node:http: ${(ratioTo(floor, raw) * 100).toFixed(1)}%; GET /models / the floor: ${(ratioTo(models, floor) * 100).toFixed(0)}% (what the request path keeps of it)`,
        );
      }
      for (const detail of results.filter(
        (r) => r.scenario.startsWith("GET /api/v1/end-users/") || r.scenario.startsWith("GET /api/v1/knowledgebases/"),
      )) {
        const share = ratioTo(detail, models);
        console.log(
          `${detail.scenario} / GET /models: ${(share * 100).toFixed(0)}% (target ≥ 50%) ${share >= 0.5 ? "PASS" : "FAIL"}`,
        );
      }
      const turns = results.find((r) => r.scenario.startsWith("POST /api/v1/apps/"));
      if (turns) {
        const pass = turns.requestsPerSecond >= 400 && turns.p50Ms <= 40;
        console.log(
          `Conversation turns, 16 connections: ${turns.requestsPerSecond}/s, p50 ${turns.p50Ms} ms (target ≥ 400/s, p50 ≤ 40 ms) ${pass ? "PASS" : "FAIL"}`,
        );
      }
      const provisioned = results.find((r) => r.scenario === provisioning.name);
      if (provisioned) {
        const pass = provisioned.requestsPerSecond >= 300 && provisioned.p99Ms < 100;
        console.log(
          `POST /end-users: ${provisioned.requestsPerSecond} req/s, p99 ${provisioned.p99Ms} ms (target ≥ 300 req/s, p99 < 100 ms) ${pass ? "PASS" : "FAIL"}`,
        );
      }
    }
    if (conversed) {
      const pass = conversed.p50Ms < 25 && conversed.p99Ms < 100;
      console.log(
        `Conversation (built-in model, two-member app, ${CONVERSATIONS} concurrent conversations, ${conversed.turns} turns): p50 ${conversed.p50Ms.toFixed(1)} ms, p99 ${conversed.p99Ms.toFixed(1)} ms (target p50 < 25 ms, p99 < 100 ms) ${pass ? "PASS" : "FAIL"}`,
      );
    }
    if (firstEvent) {
      console.log(
        `SSE first event: p50 ${firstEvent.p50Ms.toFixed(1)} ms, p99 ${firstEvent.p99Ms.toFixed(1)} ms (target < 50 ms) ${firstEvent.p99Ms < 50 ? "PASS" : "FAIL"}`,
      );
    }
    if (knowledge) {
      console.log(
        `Knowledge: ${knowledge.documents} markdown documents (${knowledge.megabytes.toFixed(1)} MB) ready in ${knowledge.ingestSeconds.toFixed(1)} s (target < 60 s) ${knowledge.ingestSeconds < 60 ? "PASS" : "FAIL"}; ` +
          `search over ${knowledge.searches} queries: p50 ${knowledge.searchP50Ms.toFixed(1)} ms, p99 ${knowledge.searchP99Ms.toFixed(1)} ms (target p99 < 50 ms) ${knowledge.searchP99Ms < 50 ? "PASS" : "FAIL"}`,
      );
    }
    if (manuals) {
      const pass = manuals.p99Ms < 100 && manuals.maxMs < 250;
      console.log(
        `Manual pages: ${manuals.documents} documents, ${manuals.questions} everyday questions × ${MANUAL_ROUNDS} rounds, one at a time: ` +
          `p50 ${manuals.p50Ms.toFixed(1)} ms, p99 ${manuals.p99Ms.toFixed(1)} ms, slowest ${manuals.maxMs.toFixed(1)} ms ("${manuals.slowest}") ` +
          `(target p99 < 100 ms, none over 250 ms) ${pass ? "PASS" : "FAIL"}`,
      );
    }
    console.log(
      `Server RSS (what npm start runs): ${rssAtRest.toFixed(0)} MB at rest (target ≤ 150 MB), ${peakRss.toFixed(0)} MB at its peak (target ≤ 300 MB) ${rssAtRest <= 150 && peakRss <= 300 ? "PASS" : "FAIL"}; ` +
        `private pages (node's shared code not counted) ${atRest.private.toFixed(0)} MB at rest, ${peakPrivate.toFixed(0)} MB at its peak`,
    );
    if (flows) {
      console.log(
        `GET /api/v1/flows?limit=${FLOW_PAGE} walking ${FLOWS} published flows with cursors (${flows.pages} pages × ${FLOW_WALKS} walks, one client):`,
      );
      console.log(
        `  per page p50 ${flows.p50Ms.toFixed(2)} ms, p99 ${flows.p99Ms.toFixed(2)} ms (target p99 < 30 ms) ${flows.p99Ms < 30 ? "PASS" : "FAIL"}`,
      );
      console.log(
        `  page 1 median ${flows.page1Ms.toFixed(2)} ms, page ${flows.pages} median ${flows.lastPageMs.toFixed(2)} ms (ratio ${(flows.lastPageMs / flows.page1Ms).toFixed(2)})`,
      );
      console.log(`  server RSS after the walk: ${rssAfterWalk.toFixed(0)} MB`);
    }

    if (usage) printUsageBench(usage);

    if (profileDir) {
      mkdirSync(profileDir, { recursive: true });
      writeFileSync(path.join(profileDir, "scenarios.json"), JSON.stringify(windows, null, 2));
    }
    mkdirSync(path.join(root, ".bench"), { recursive: true });
    writeFileSync(
      path.join(root, ".bench", "results.json"),
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine,
          connections: CONNECTIONS,
          durationSeconds: DURATION,
          results,
          ratio,
          rssAtRestMb: rssAtRest,
          peakRssMb: peakRss,
          privateAtRestMb: atRest.private,
          peakPrivateMb: peakPrivate,
          conversed,
          firstEvent,
          knowledge,
          manuals,
          flows,
          usage,
          sequentiallyRead,
        },
        null,
        2,
      ),
    );
  } finally {
    rawServer?.kill("SIGTERM");
    floorServer?.kill("SIGTERM");
    // A launcher that already exited (a failed start) has no exit left to wait for.
    if (server && server.exitCode === null && server.signalCode === null) {
      server.kill("SIGTERM");
      await new Promise((r) => server!.once("exit", r));
    }
    await cluster.release();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
