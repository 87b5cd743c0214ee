// `npx tsx scripts/cpu-profile.ts <dir or .cpuprofile>`: where the server's CPU time goes, per
// request. Reads the largest V8 CPU profile in the folder (the server's, from
// `BENCH_CPU_PROFILE=<dir> npm run bench`) and, when the bench wrote `scenarios.json` beside it,
// cuts it into the scenarios' measured windows: for each, the CPU µs per request by part
// (node's HTTP server, fetch objects, tRPC and zod, pg, pino, prom-client, Atrium's own code,
// garbage collection…) and the functions that spend the most.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  parent?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}
/** A measured window the bench recorded (µs of the monotonic clock V8 also stamps samples with). */
interface Window {
  scenario: string;
  startUs: number;
  endUs: number;
  requests: number;
}

/** The part a frame belongs to; undefined for frames that pass time on to their caller (streams, events, ticks). */
function partOf({ url, functionName }: CallFrame): string | undefined {
  if (functionName === "(garbage collector)") return "garbage collection";
  if (functionName === "(idle)") return "idle";
  if (functionName === "(program)") return "V8 and libuv outside JS";
  if (url === "") return undefined;
  const modules = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/g);
  if (modules) {
    const name = modules[modules.length - 1]!.slice("node_modules/".length);
    if (name.startsWith("@trpc/") || name === "trpc-to-openapi") return "tRPC + trpc-to-openapi";
    if (name === "pg" || name.startsWith("pg-")) return "pg driver (with its socket I/O)";
    if (name === "pino" || name === "sonic-boom" || name === "thread-stream" || name.startsWith("pino-"))
      return "pino log line";
    if (name === "prom-client" || name === "tdigest" || name === "bintrees") return "prom-client metrics";
    if (name.startsWith("@prisma/") || name === ".prisma") return "Prisma";
    if (name === "next") return "Next.js";
    return name;
  }
  if (url.includes("/src/generated/")) return "Prisma";
  if (url.includes("/dist/server/") || url.includes("/src/")) return "Atrium (dist/server)";
  if (url.startsWith("node:internal/deps/undici") || url.includes("internal/webstreams"))
    return "fetch Request/Response/Headers, web streams (undici)";
  if (/^node:(_http_|http|internal\/http)/.test(url)) return "node:http (parse, headers, response write)";
  if (url.startsWith("node:internal/crypto") || url === "node:crypto") return "node:crypto";
  if (url.includes("async_hooks") || url.includes("async_context")) return "AsyncLocalStorage / async hooks";
  return undefined;
}

/** The part a sample counts to: its innermost frame with a part; socket I/O goes to whoever wrote. */
function attribute(nodes: Map<number, ProfileNode>, leaf: number, cache: Map<number, string>): string {
  const cached = cache.get(leaf);
  if (cached) return cached;
  let part: string | undefined;
  for (
    let node = nodes.get(leaf);
    node && !part;
    node = node.parent === undefined ? undefined : nodes.get(node.parent)
  ) {
    part = partOf(node.callFrame);
  }
  const result =
    part ?? `node internals (${nodes.get(leaf)!.callFrame.url || nodes.get(leaf)!.callFrame.functionName})`;
  cache.set(leaf, result);
  return result;
}

function readProfile(target: string): { profile: Profile; windows: Window[] | null } {
  let file = target;
  let dir = path.dirname(target);
  if (statSync(target).isDirectory()) {
    dir = target;
    const profiles = readdirSync(target).filter((name) => name.endsWith(".cpuprofile"));
    if (profiles.length === 0) throw new Error(`No .cpuprofile in ${target}.`);
    file = path.join(
      target,
      profiles.sort((a, b) => statSync(path.join(target, b)).size - statSync(path.join(target, a)).size)[0]!,
    );
  }
  const windowsFile = path.join(dir, "scenarios.json");
  const windows = existsSync(windowsFile) ? (JSON.parse(readFileSync(windowsFile, "utf8")) as Window[]) : null;
  console.log(`Profile: ${file}`);
  return { profile: JSON.parse(readFileSync(file, "utf8")) as Profile, windows };
}

function report(profile: Profile, window: Window | null): void {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) nodes.get(child)!.parent = node.id;
  const cache = new Map<number, string>();
  const byPart = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]!;
    if (window && (at < window.startUs || at > window.endUs)) continue;
    // A sample's time is the gap to the next one (V8 stamps the moment it is taken).
    const spent = profile.timeDeltas[i + 1] ?? 0;
    const leaf = profile.samples[i]!;
    const part = attribute(nodes, leaf, cache);
    byPart.set(part, (byPart.get(part) ?? 0) + spent);
    const frame = nodes.get(leaf)!.callFrame;
    const name = `${frame.functionName || "(anonymous)"} ${frame.url.replace(/^.*node_modules\//, "").replace(/^.*\/dist\/server\//, "dist/server/")}:${frame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + spent);
  }
  const idle = byPart.get("idle") ?? 0;
  const busy = [...byPart.values()].reduce((sum, value) => sum + value, 0) - idle;
  const requests = window?.requests ?? 0;
  const elapsed = window ? window.endUs - window.startUs : profile.endTime - profile.startTime;
  console.log(`\n## ${window ? window.scenario : "whole profile"}`);
  console.log(
    `${(elapsed / 1e6).toFixed(1)} s, busy ${((busy / elapsed) * 100).toFixed(0)}% of one core` +
      (requests ? `, ${requests} requests: ${(busy / requests).toFixed(0)} µs CPU per request` : ""),
  );
  console.log(`| Part | share of busy time | ${requests ? "µs per request |" : ""}`);
  console.log(`|---|---:|${requests ? "---:|" : ""}`);
  for (const [part, spent] of [...byPart].filter(([name]) => name !== "idle").sort((a, b) => b[1] - a[1])) {
    if (spent / busy < 0.003) continue;
    console.log(
      `| ${part} | ${((spent / busy) * 100).toFixed(1)}% | ${requests ? `${(spent / requests).toFixed(0)} |` : ""}`,
    );
  }
  console.log("\nFunctions by self time:");
  for (const [name, spent] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 25))) {
    if (name.startsWith("(idle)")) continue;
    console.log(
      `  ${((spent / busy) * 100).toFixed(1).padStart(5)}%  ${requests ? `${(spent / requests).toFixed(1).padStart(6)} µs  ` : ""}${name}`,
    );
  }
}

const target = process.argv[2];
if (!target) {
  console.error("Usage: npx tsx scripts/cpu-profile.ts <folder with .cpuprofile files | file.cpuprofile>");
  process.exit(1);
}
const { profile, windows } = readProfile(target);
if (windows) for (const window of windows) report(profile, window);
else report(profile, null);
