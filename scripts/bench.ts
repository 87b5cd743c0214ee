// `npm run bench`: a production build on a fresh embedded database, driven by autocannon over
// loopback. Prints requests/s and latency per scenario, the ratios the issues set targets for,
// and the server's peak memory. Results also go to .bench/results.json.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { SCOPES } from "@/schemas/auth";
import { startEmbeddedCluster, ensureDatabase, EMBEDDED_DATABASE } from "@/server/database/embedded";
import { migrate } from "@/server/database/migrate";
import { closeDb, createDb } from "@/server/db";
import { createApiKey } from "@/server/services/api-keys";
import { createOrganization } from "@/server/services/organizations";

const root = process.cwd();
const PORT = Number(process.env.BENCH_PORT ?? 3900);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const KEYS = 50;
const base = `http://127.0.0.1:${PORT}`;

interface Scenario {
  name: string;
  path: string;
  /** A Bearer key per connection, so the per-key limit is not what is measured. */
  authenticated: boolean;
}

interface Result {
  scenario: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

const SCENARIOS: Scenario[] = [
  { name: "baseline: bare route handler, no auth (GET /api/bench/models)", path: "/api/bench/models", authenticated: false },
  { name: "GET /api/v1/models with a valid key", path: "/api/v1/models", authenticated: true },
];

function sampleRss(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
    return line ? Number(line.replace(/\D+/g, "")) / 1024 : 0;
  } catch {
    return 0;
  }
}

async function waitForHealth(server: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error("The server exited during start-up.");
    const ok = await fetch(`${base}/api/health`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("The server did not become healthy within 60 s.");
}

function run(scenario: Scenario, keys: string[], duration: number): Promise<Result> {
  let next = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: base + scenario.path,
        connections: CONNECTIONS,
        duration,
        setupClient: (client) => {
          if (scenario.authenticated) client.setHeaders({ authorization: `Bearer ${keys[next++ % keys.length]}` });
        },
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
        });
      },
    );
  });
}

async function main() {
  if (!existsSync(path.join(root, ".next", "BUILD_ID")) || process.argv.includes("--build")) {
    console.log("Building the production server…");
    const build = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }

  const dataDir = mkdtempSync(path.join(os.tmpdir(), "atrium-bench-"));
  chmodSync(dataDir, 0o755); // the postgres system user must reach the cluster inside
  const cluster = await startEmbeddedCluster(path.join(dataDir, "postgres"), { ephemeral: true });
  let server: ChildProcess | undefined;
  try {
    await ensureDatabase(cluster.adminUrl, EMBEDDED_DATABASE);
    const databaseUrl = cluster.urlFor(EMBEDDED_DATABASE);
    await migrate(databaseUrl);

    const db = createDb(databaseUrl, 2);
    const organization = await createOrganization(db, { name: "Benchmark" });
    const operator = { kind: "operator" as const, organizationId: organization.id };
    const keys: string[] = [];
    for (let i = 0; i < KEYS; i++) {
      keys.push((await createApiKey(db, operator, { name: `bench ${i}`, kind: "organization", scopes: [...SCOPES] })).secret);
    }
    await closeDb(db);

    // BENCH_CPU_PROFILE=<dir> writes a V8 CPU profile of the server, for finding hot spots.
    const profile = process.env.BENCH_CPU_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROFILE)}`] : [];
    server = spawn(process.execPath, [...profile, path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", String(PORT)], {
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...process.env,
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        DATABASE_URL: databaseUrl,
        DATA_DIR: dataDir,
        BENCH_BASELINE_ROUTE: "1",
        // The limiter still runs on every request; it just never refuses.
        RATE_LIMIT_PER_MINUTE: "100000000",
      },
    });
    await waitForHealth(server);

    console.log(`Server RSS at rest: ${sampleRss(server.pid!).toFixed(0)} MB`);
    let peakRss = 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, sampleRss(server!.pid!))), 200);
    const results: Result[] = [];
    for (const scenario of SCENARIOS) {
      await run(scenario, keys, 2); // warm-up
      const result = await run(scenario, keys, DURATION);
      results.push(result);
      console.log(
        `${result.scenario}: ${result.requestsPerSecond} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}, errors ${result.errors}; peak RSS so far ${peakRss.toFixed(0)} MB`,
      );
    }
    clearInterval(sampler);

    const [baseline, models] = results;
    const ratio = baseline && models ? models.requestsPerSecond / baseline.requestsPerSecond : 0;
    const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
    console.log("");
    console.log(`Machine: ${machine}; ${CONNECTIONS} connections, ${DURATION} s per scenario`);
    console.log("| Scenario | Requests/s | p50 (ms) | p99 (ms) | non-2xx |");
    console.log("|---|---:|---:|---:|---:|");
    for (const r of results) console.log(`| ${r.scenario} | ${r.requestsPerSecond} | ${r.p50Ms} | ${r.p99Ms} | ${r.non2xx} |`);
    console.log("");
    console.log(`Authenticated / baseline throughput: ${(ratio * 100).toFixed(0)}% (target ≥ 50%) ${ratio >= 0.5 ? "PASS" : "FAIL"}`);
    console.log(`Server peak RSS: ${peakRss.toFixed(0)} MB (target < 400 MB) ${peakRss < 400 ? "PASS" : "FAIL"}`);

    mkdirSync(path.join(root, ".bench"), { recursive: true });
    writeFileSync(
      path.join(root, ".bench", "results.json"),
      JSON.stringify({ date: new Date().toISOString(), machine, connections: CONNECTIONS, durationSeconds: DURATION, results, ratio, peakRssMb: peakRss }, null, 2),
    );
  } finally {
    server?.kill("SIGTERM");
    if (server) await new Promise((r) => server!.once("exit", r));
    await cluster.release();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
