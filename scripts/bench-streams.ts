// `npm run bench -- --streams`: chat load as end users make it (issue 53): many streamed
// conversation turns held open at once while a provider trickles tokens. A stand-in provider in a
// process of its own (OpenAI-compatible, loopback) sends a token every 50 ms for 30 s, each token
// stamped with the moment it was sent; the server `npm start` serves (its compiled bundle, API
// only) relays it to the clients, which read each delta as it comes. For 500, 1,000 and 2,000
// concurrent turns on one process and split over two: memory per stream (RSS while the streams
// are open, over RSS at rest), event delay p50/p99 from the provider's send to the client's
// receipt, CPU, the server's database connections (open, and busy while the streams only wait),
// and what failed. BENCH_STREAMS=500,1000, BENCH_STREAM_SECONDS=10 and BENCH_STREAM_PROCESSES=1
// shorten it; BENCH_CPU_PROFILE=<dir> writes a V8 CPU profile of each server process. Beside them,
// at each count, the floor (scripts/bench-stream-floor.ts): a bare node:http relay of the same
// provider stream to the same clients, what relaying a token costs on this machine at the least.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import http from "node:http";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createParser } from "eventsource-parser";
import { buildServer } from "./build-server.mjs";
import {
  compiledServerArgs,
  cpuProfileArgs,
  memoryOf,
  percentile,
  postApi,
  spawnBenchServer,
  treeCpuSeconds,
  waitForHealth,
} from "./bench-process";
import { SCOPES } from "@/schemas/identity/auth";
import { startEmbeddedCluster, ensureDatabase, EMBEDDED_DATABASE } from "@/server/database/embedded";
import { migrate } from "@/server/database/migrate";
import { closeDb, createDb } from "@/server/db";
import { createApiKey } from "@/server/services/identity/api-keys";
import { createOrganization } from "@/server/services/org/organizations";

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const FIRST_PORT = Number(process.env.BENCH_PORT ?? 3900) + 10;
const TOKEN_MS = 50;
const STREAM_SECONDS = Number(process.env.BENCH_STREAM_SECONDS ?? 30);
const COUNTS = (process.env.BENCH_STREAMS ?? "500,1000,2000").split(",").map(Number);
const PROCESSES = (process.env.BENCH_STREAM_PROCESSES ?? "1,2").split(",").map(Number);
/** Streams are opened over this long, as people arrive, not in one burst. */
const RAMP_MS = 5_000;

/** The stand-in provider: each streamed reply is a token every TOKEN_MS, `⟨ms⟩ ` with the send time. */
const PROVIDER_SOURCE = `
  const http = await import("node:http");
  const [tokenMs, seconds] = [Number(process.env.TOKEN_MS), Number(process.env.STREAM_SECONDS)];
  const chunk = (delta, extra = {}) => "data: " + JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0,
    model: "slow", choices: [{ index: 0, delta, finish_reason: null }], ...extra }) + "\\n\\n";
  const server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(chunk({ role: "assistant", content: "" }));
      let sent = 0;
      const tokens = Math.round((seconds * 1000) / tokenMs);
      const timer = setInterval(() => {
        if (response.destroyed) return clearInterval(timer);
        response.write(chunk({ content: "\\u27e8" + Date.now() + "\\u27e9 " }));
        if (++sent < tokens) return;
        clearInterval(timer);
        response.write("data: " + JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "slow",
          choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: tokens } }) + "\\n\\n");
        response.end("data: [DONE]\\n\\n");
      }, tokenMs);
    });
  });
  server.keepAliveTimeout = 120000;
  server.listen(0, "127.0.0.1", () => process.send(server.address().port));`;

interface Round {
  streams: number;
  processes: number;
  /** The bare relay (scripts/bench-stream-floor.ts), not Atrium. */
  floor?: true;
  completed: number;
  failed: number;
  failures: string[];
  delayP50Ms: number;
  delayP99Ms: number;
  /** From sending the turn to its first token, the wait an end user sees before the answer starts. */
  firstTokenP50Ms: number;
  firstTokenP99Ms: number;
  events: number;
  rssAtRestMb: number[];
  rssPeakMb: number[];
  kbPerStream: number;
  cpuSecondsPerSecond: number[];
  /** The servers' CPU time over the round per token their clients received (each token a stamp, however many a delta carries). */
  cpuUsPerToken: number;
  connectionsOpen: number;
  connectionsBusy: number;
}

function startServer(port: number, databaseUrl: string, dataDir: string): ChildProcess {
  return spawnBenchServer(
    [...cpuProfileArgs(), ...compiledServerArgs()],
    { port, databaseUrl, dataDir },
    { ALLOW_PRIVATE_INTEGRATION_URLS: "true" },
  );
}

/**
 * One streamed turn: the delay of every token event, or why it failed. Read through node:http
 * rather than fetch: the load generator shares the machine's two cores with the server, and
 * fetch's web streams cost it several times the CPU a token, time the server's figures would pay.
 */
function streamTurn(
  base: string,
  key: string,
  appId: string,
  delays: number[],
  firstTokens: number[],
): Promise<string | null> {
  const sent = Date.now();
  let first = true;
  let done = false;
  let error: string | null = null;
  const parser = createParser({
    onEvent(event) {
      const now = Date.now();
      if (event.event === "done") done = true;
      else if (event.event === "error") error = `error event ${event.data.slice(0, 120)}`;
      // Only deltas: the final event repeats the whole reply.
      if (event.event !== "delta") return;
      if (first) firstTokens.push(now - sent);
      first = false;
      for (let at = event.data.indexOf("\u27e8"); at >= 0; at = event.data.indexOf("\u27e8", at + 1))
        delays.push(now - Number(event.data.slice(at + 1, at + 14)));
    },
  });
  return new Promise((resolve) => {
    const request = http.request(
      `${base}/api/v1/apps/${appId}/conversation`,
      {
        method: "POST",
        agent: streamsAgent,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          return resolve(`status ${response.statusCode}`);
        }
        response.setEncoding("utf8");
        response.on("data", (text: string) => parser.feed(text));
        response.on("end", () => resolve(error ?? (done ? null : "closed before done")));
        response.on("error", (caught) => resolve(caught.message));
      },
    );
    request.on("error", (caught: Error & { code?: string }) => resolve(caught.code ?? caught.message));
    request.end(JSON.stringify({ message: "Tell me a long story.", stream: true }));
  });
}

/** One connection a stream, as many as the round opens. */
const streamsAgent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

async function connections(databaseUrl: string): Promise<{ open: number; busy: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ open: string; busy: string }>(
      `select count(*) as open, count(*) filter (where state <> 'idle') as busy from pg_stat_activity
       where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()
         and query not ilike 'listen %'`,
    );
    return { open: Number(rows[0]!.open), busy: Number(rows[0]!.busy) };
  } finally {
    await client.end();
  }
}

async function round(
  servers: { base: string; pid: number }[],
  key: string,
  appId: string,
  streams: number,
  databaseUrl: string,
): Promise<Round> {
  const rssAtRestMb = servers.map((server) => memoryOf(server.pid).rss);
  const cpuBefore = servers.map((server) => treeCpuSeconds(server.pid));
  const started = Date.now();
  const delays: number[] = [];
  const firstTokens: number[] = [];
  const failures: string[] = [];
  let completed = 0;
  const turns = Array.from({ length: streams }, async (_, n) => {
    await new Promise((resolve) => setTimeout(resolve, (n / streams) * RAMP_MS));
    const failure = await streamTurn(servers[n % servers.length]!.base, key, appId, delays, firstTokens);
    if (failure) failures.push(failure);
    else completed++;
  });
  // Sampled while every stream is open and waiting on its provider.
  const rssPeakMb = servers.map(() => 0);
  const samples: { open: number; busy: number }[] = [];
  const sampler = setInterval(() => {
    servers.forEach((server, i) => (rssPeakMb[i] = Math.max(rssPeakMb[i]!, memoryOf(server.pid).rss)));
  }, 500);
  const plateau = (async () => {
    await new Promise((resolve) => setTimeout(resolve, RAMP_MS + 2_000));
    while (Date.now() - started < RAMP_MS + STREAM_SECONDS * 1000 - 2_000) {
      samples.push(await connections(databaseUrl));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  })();
  await Promise.all([...turns, plateau]);
  clearInterval(sampler);
  const seconds = (Date.now() - started) / 1000;
  const cpuSeconds = servers.map((server, i) => treeCpuSeconds(server.pid) - cpuBefore[i]!);
  const sorted = delays.sort((a, b) => a - b);
  const grown = rssPeakMb.reduce((sum, peak, i) => sum + (peak - rssAtRestMb[i]!), 0);
  const counts = failures.reduce((all, f) => all.set(f, (all.get(f) ?? 0) + 1), new Map<string, number>());
  return {
    streams,
    processes: servers.length,
    completed,
    failed: failures.length,
    failures: [...counts].map(([reason, count]) => `${count}× ${reason}`),
    delayP50Ms: percentile(sorted, 50),
    delayP99Ms: percentile(sorted, 99),
    firstTokenP50Ms: percentile(
      firstTokens.sort((a, b) => a - b),
      50,
    ),
    firstTokenP99Ms: percentile(firstTokens, 99),
    events: sorted.length,
    rssAtRestMb,
    rssPeakMb,
    kbPerStream: (grown * 1024) / streams,
    cpuSecondsPerSecond: cpuSeconds.map((cpu) => cpu / seconds),
    cpuUsPerToken: (cpuSeconds.reduce((sum, cpu) => sum + cpu, 0) * 1e6) / Math.max(1, sorted.length),
    connectionsOpen: Math.max(0, ...samples.map((sample) => sample.open)),
    connectionsBusy: Math.max(0, ...samples.map((sample) => sample.busy)),
  };
}

/** One round's line. */
function report(result: Round): void {
  console.log(
    `${result.streams} streams on ${result.floor ? "the floor (a bare relay)" : `${result.processes} process(es)`}: ${result.completed} completed, ${result.failed} failed${result.failures.length ? ` (${result.failures.join("; ")})` : ""}; ` +
      `event delay p50 ${result.delayP50Ms} ms, p99 ${result.delayP99Ms} ms over ${result.events} events; ` +
      `first token p50 ${result.firstTokenP50Ms} ms, p99 ${result.firstTokenP99Ms} ms; ` +
      `RSS at rest ${result.rssAtRestMb.map((mb) => mb.toFixed(0)).join("/")} MB, peak ${result.rssPeakMb.map((mb) => mb.toFixed(0)).join("/")} MB, ${result.kbPerStream.toFixed(0)} KB a stream; ` +
      `CPU ${result.cpuSecondsPerSecond.map((cpu) => `${(cpu * 100).toFixed(0)}%`).join("/")} of a core, ${result.cpuUsPerToken.toFixed(0)} µs a token; ` +
      `database connections open ${result.connectionsOpen}, busy ${result.connectionsBusy} (max while the streams wait)`,
  );
}

export async function streamsBench(): Promise<void> {
  await buildServer();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "atrium-bench-"));
  chmodSync(dataDir, 0o755);
  const cluster = await startEmbeddedCluster(path.join(dataDir, "postgres"), { ephemeral: true });
  const children: ChildProcess[] = [];
  try {
    await ensureDatabase(cluster.adminUrl, EMBEDDED_DATABASE);
    const databaseUrl = cluster.urlFor(EMBEDDED_DATABASE);
    await migrate(databaseUrl);
    const provider = spawn(process.execPath, ["--input-type=module", "-e", PROVIDER_SOURCE], {
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      env: { ...process.env, TOKEN_MS: String(TOKEN_MS), STREAM_SECONDS: String(STREAM_SECONDS) },
    });
    children.push(provider);
    const providerPort = await new Promise<number>((resolve) =>
      provider.once("message", (port) => resolve(Number(port))),
    );

    const db = createDb(databaseUrl, 2);
    const organization = await createOrganization(db, { name: "Streams", credits: 1_000_000_000 });
    const operator = { kind: "operator" as const, organizationId: organization.id };
    const key = (await createApiKey(db, operator, { name: "streams", kind: "organization", scopes: [...SCOPES] }))
      .secret;
    // The provider row as the console would write it (no API key: the stand-in needs none).
    await db.modelProvider.create({
      data: {
        organizationId: organization.id,
        slug: "trickle",
        name: "Trickle",
        kind: "openai-compatible",
        baseUrl: `http://127.0.0.1:${providerPort}/v1`,
        models: [{ id: "slow", kind: "chat" }],
      },
    });
    await closeDb(db);

    const results: Round[] = [];
    for (const processes of PROCESSES) {
      const servers = Array.from({ length: processes }, (_, i) => {
        const child = startServer(FIRST_PORT + i, databaseUrl, dataDir);
        children.push(child);
        return { child, base: `http://127.0.0.1:${FIRST_PORT + i}`, pid: child.pid! };
      });
      await Promise.all(servers.map((server) => waitForHealth(server.child, server.base, 60_000)));
      const post = <T>(route: string, body: unknown) => postApi<T>(servers[0]!.base, key, route, body);
      const { agent } = await post<{ agent: { id: string } }>("/agents", {
        name: `Storyteller ${processes}`,
        description: "Tells long stories",
        model: "trickle/slow",
      });
      await post(`/agents/${agent.id}/publish`, {});
      const { app } = await post<{ app: { id: string } }>("/apps", {
        name: `Stories ${processes}`,
        orchestrationMode: "sequential",
        members: [{ id: agent.id, kind: "agent" }],
      });
      await post(`/apps/${app.id}/publish`, {});
      await round(servers, key, app.id, Math.min(20, COUNTS[0]!), databaseUrl); // warm-up
      for (const streams of COUNTS) {
        const result = await round(servers, key, app.id, streams, databaseUrl);
        results.push(result);
        report(result);
      }
      for (const server of servers) {
        server.child.kill("SIGTERM");
        await new Promise((resolve) => server.child.once("exit", resolve));
      }
    }
    const floor = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/bench-stream-floor.ts")], {
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      env: {
        ...process.env,
        PORT: String(FIRST_PORT + 9),
        PROVIDER_URL: `http://127.0.0.1:${providerPort}/v1/chat/completions`,
      },
    });
    children.push(floor);
    await once(floor, "message");
    const bare = [{ base: `http://127.0.0.1:${FIRST_PORT + 9}`, pid: floor.pid! }];
    await round(bare, key, "floor", Math.min(20, COUNTS[0]!), databaseUrl); // warm-up
    for (const streams of COUNTS) {
      const result: Round = { ...(await round(bare, key, "floor", streams, databaseUrl)), floor: true };
      results.push(result);
      report(result);
    }
    console.log(
      "\n| Streams | Processes | Failed | Delay p50 / p99 | First token p50 / p99 | RSS peak | Per stream | CPU | CPU a token | DB connections open / busy |",
    );
    console.log("|---:|---:|---:|---|---|---|---:|---|---:|---|");
    for (const r of results) {
      console.log(
        `| ${r.streams} | ${r.floor ? "floor (bare relay)" : r.processes} | ${r.failed} | ${r.delayP50Ms} / ${r.delayP99Ms} ms | ${r.firstTokenP50Ms} / ${r.firstTokenP99Ms} ms | ${r.rssPeakMb.map((mb) => mb.toFixed(0)).join(" + ")} MB | ${r.kbPerStream.toFixed(0)} KB | ${r.cpuSecondsPerSecond.map((cpu) => `${(cpu * 100).toFixed(0)}%`).join(" + ")} | ${r.cpuUsPerToken.toFixed(0)} µs | ${r.connectionsOpen} / ${r.connectionsBusy} |`,
      );
    }
    const goal = results.find((r) => r.streams === 2000 && r.processes === 1 && !r.floor);
    if (goal) {
      const pass = goal.failed === 0 && Math.max(...goal.rssPeakMb) <= 500 && goal.delayP99Ms <= 100;
      console.log(
        `2,000 streams on one process within 500 MB, delay p99 ≤ 100 ms, none failed: ${pass ? "PASS" : "FAIL"}; database connections busy while the streams wait: ${goal.connectionsBusy} (goal 0)`,
      );
    }
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
    await cluster.release();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
