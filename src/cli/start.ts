// `npm start` / `npm run dev`: provides the database (DATABASE_URL, or the embedded one under
// DATA_DIR, started or shared), applies migrations, creates the first owner on a fresh
// installation (setup.ts, in a child process), builds when there is no production build, then
// runs the server, restarting it when it crashes (the database stays up meanwhile), and stops
// the embedded database after it. This process stays up beside the server for as long as it
// runs, so it loads only what starting PostgreSQL and migrating need, never Prisma, argon2 or
// the services. Its own lines are JSON, like the server's.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { env } from "@/env";
import { openDatabase } from "@/server/database/open";
import { logger } from "@/server/observability/log";
import { supervise } from "@/server/supervise";

const dev = process.argv.includes("--dev");
const root = process.cwd();
const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");

function log(line: string) {
  logger().info(line);
}

function runNext(args: string[], extraEnv: Record<string, string>, nodeArgs: string[] = []) {
  return spawn(process.execPath, [...nodeArgs, nextBin, ...args], {
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...extraEnv },
  });
}

/**
 * The production server (src/cli/http-server.ts, compiled beside this file by
 * scripts/build-server.mjs), with this process's node flags (`node --cpu-prof scripts/start.mjs`
 * profiles the server too) and its heap limit.
 */
function runServer(extraEnv: Record<string, string>, config: { PORT: number; TRUST_PROXY: number; SERVER_HEAP_MB: number }) {
  const entry = path.join(root, "dist", "server", "http-server.mjs");
  return spawn(
    process.execPath,
    [...process.execArgv, `--max-old-space-size=${config.SERVER_HEAP_MB}`, entry, "--port", String(config.PORT), "--trust-proxy", String(config.TRUST_PROXY)],
    {
      stdio: "inherit",
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...extraEnv },
    },
  );
}

/**
 * setup.ts beside this file (dist/server/setup.mjs in production; under `npm run dev`, the
 * TypeScript source with the same loader flags as this process), in a process that exits after it.
 */
function runSetup(databaseUrl: string) {
  const here = fileURLToPath(import.meta.url);
  const entry = path.join(path.dirname(here), `setup${path.extname(here)}`);
  return spawn(process.execPath, [...process.execArgv, entry], { stdio: "inherit", env: { ...process.env, DATABASE_URL: databaseUrl } });
}

async function waitFor(child: ReturnType<typeof spawn>): Promise<number> {
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

async function main() {
  const config = env();
  const database = await openDatabase(log);
  const setup = await waitFor(runSetup(database.url));
  if (setup !== 0) {
    await database.release();
    process.exit(setup);
  }

  if (!dev && !existsSync(path.join(root, ".next", "BUILD_ID"))) {
    log("No production build yet; building (this takes a minute or two)…");
    const code = await waitFor(runNext(["build"], { NODE_ENV: "production" }));
    if (code !== 0) {
      await database.release();
      process.exit(code);
    }
  }

  log(`Atrium on http://localhost:${config.PORT} (console) and http://localhost:${config.PORT}/api/v1 (API)`);
  const server = supervise({
    start: () =>
      dev
        ? runNext(["dev", "-p", String(config.PORT)], { DATABASE_URL: database.url, NODE_ENV: "development" })
        : runServer({ DATABASE_URL: database.url, NODE_ENV: "production" }, config),
    log: (fields, message) => logger().error(fields, message),
  });
  const stop = (signal: NodeJS.Signals) => () => void server.stop(signal);
  process.on("SIGINT", stop("SIGINT"));
  process.on("SIGTERM", stop("SIGTERM"));
  const code = await server.done;
  await database.release().catch((error: unknown) => log(`Could not stop the embedded database: ${String(error)}`));
  process.exit(code);
}

main().catch((error: unknown) => {
  // One line a person can act on (a bad setting, an unreachable database), not a stack trace.
  console.error(`Atrium could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
