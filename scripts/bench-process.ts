// What the benchmarks read of a process tree on Linux: its memory and the CPU it used; the
// percentile of sorted timings; and how they start and call the server. Shared by scripts/bench.ts,
// scripts/bench-scale.ts and scripts/bench-streams.ts.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { env } from "@/env";
import { SERVER_DIST } from "./build-server.mjs";

export interface Memory {
  /** Resident set, MB: pages shared between the processes (node's own code) count in each. */
  rss: number;
  /** Private pages only, MB (unique set): what stopping the processes would give back. */
  private: number;
}

export function memoryOf(pid: number): Memory {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? 0) / 1024;
    return { rss: field("Rss"), private: field("Private_Clean") + field("Private_Dirty") };
  } catch {
    return { rss: 0, private: 0 };
  }
}

/** The process's children (Linux), empty when it is gone. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(" ").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
}

/**
 * The memory of everything `npm start` runs: its process (the server) and any descendant (the
 * setup step while it runs). PostgreSQL is not among them (pg_ctl detaches it), and extraction
 * workers, one per document being extracted, are left out like it: the targets are about the server.
 */
export function treeMemory(pid: number): Memory {
  const total = memoryOf(pid);
  for (const child of childrenOf(pid)) {
    if (commandOf(child).includes("extraction-child")) continue;
    const memory = treeMemory(child);
    total.rss += memory.rss;
    total.private += memory.private;
  }
  return total;
}

/**
 * CPU seconds a process and its descendants have used (Linux: user and system time, with that of
 * children already reaped). Counts what ran, not what waited: on a busy machine it stays
 * comparable where requests/s and a profile's wall-clock samples do not.
 */
export function treeCpuSeconds(pid: number): number {
  let fields: string[];
  try {
    fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  } catch {
    return 0;
  }
  // utime, stime, cutime, cstime (fields 14–17 of proc(5)), in clock ticks of 1/100 s.
  let seconds = fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100;
  for (const child of childrenOf(pid)) seconds += treeCpuSeconds(child);
  return seconds;
}

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Resolves once the server at `base` answers /api/health; throws if it exits or takes over `timeoutMs`. */
export async function waitForHealth(server: ChildProcess, base: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error("The server exited during start-up.");
    const ok = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`The server did not become healthy within ${timeoutMs / 1000} s.`);
}

/** BENCH_CPU_PROFILE=<dir>: node's flags for a V8 CPU profile of the process (scripts/cpu-profile.ts reads it). */
export function cpuProfileArgs(): string[] {
  const dir = process.env.BENCH_CPU_PROFILE;
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(dir)}`] : [];
}

/** Where a benched server runs: its port, its database and its data folder. */
export interface BenchServer {
  port: number;
  databaseUrl: string;
  dataDir: string;
}

/**
 * Starts a server to bench with node's `args` (scripts/start.mjs, as `npm start` runs it, or
 * compiledServerArgs()): production, the heap limit `npm start` sets, and a limiter that still runs
 * on every request but never refuses; `extraEnv` adds what a bench needs besides.
 */
export function spawnBenchServer(
  args: string[],
  server: BenchServer,
  extraEnv: Record<string, string | undefined> = {},
): ChildProcess {
  // The heap limits `npm start` passes (package.json).
  const heap = [`--max-old-space-size=${env().SERVER_HEAP_MB}`, `--max-semi-space-size=${env().SERVER_YOUNG_MB}`];
  return spawn(process.execPath, [...heap, ...args], {
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      // glibc's allocator arenas, as `npm start` sets them.
      MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2",
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      PORT: String(server.port),
      DATABASE_URL: server.databaseUrl,
      DATA_DIR: server.dataDir,
      RATE_LIMIT_PER_MINUTE: "100000000",
      ...extraEnv,
    },
  });
}

/**
 * node's arguments that serve the compiled HTTP server (dist/server, its newest bundle) alone,
 * without the launcher: the launcher would build Next.js first, which an API-only bench never loads.
 */
export function compiledServerArgs(): string[] {
  const bundle = readdirSync(SERVER_DIST)
    .filter((file) => file.startsWith("http-server-") && file.endsWith(".mjs"))
    .map((file) => path.join(SERVER_DIST, file))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!;
  const serveSource = `const { serve } = await import(${JSON.stringify(pathToFileURL(bundle).href)});
    const server = await serve({ port: Number(process.env.PORT), trustProxy: 0 });
    process.once("SIGTERM", () => server.stop().then(() => process.exit(0)));`;
  return ["--input-type=module", "-e", serveSource];
}

/** A POST to the server's API with a key, as the scenarios set themselves up; throws on a refusal. */
export async function postApi<T>(base: string, key: string, route: string, body: unknown): Promise<T> {
  const response = await fetch(`${base}/api/v1${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${route}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}
