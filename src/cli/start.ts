// `npm start` / `npm run dev`: provides the database (DATABASE_URL, or the embedded one under
// DATA_DIR, started or shared), applies migrations, creates the first owner on a fresh
// installation, builds when there is no production build, then runs Next.js, restarting it when
// it crashes (the database stays up meanwhile), and stops the embedded database after it.
// Its own lines are JSON, like the server's.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { env } from "@/env";
import { openDatabase } from "@/server/database/open";
import { closeDb, createDb } from "@/server/db";
import { logger } from "@/server/observability/log";
import { seedFirstOwner } from "@/server/services/setup";
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

/** The production server (src/cli/http-server.ts, compiled beside this file by scripts/build-server.mjs). */
function runServer(extraEnv: Record<string, string>, config: { PORT: number; TRUST_PROXY: number; SERVER_HEAP_MB: number }) {
  const entry = path.join(root, "dist", "server", "http-server.mjs");
  return spawn(process.execPath, [`--max-old-space-size=${config.SERVER_HEAP_MB}`, entry, "--port", String(config.PORT), "--trust-proxy", String(config.TRUST_PROXY)], {
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...extraEnv },
  });
}

async function waitFor(child: ReturnType<typeof spawn>): Promise<number> {
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

async function main() {
  const config = env();
  const database = await openDatabase(log);
  const db = createDb(database.url, 2);
  const seeded = await seedFirstOwner(db);
  await closeDb(db);
  if (seeded) {
    log("First start: created the organization and its owner. These credentials are shown only now:");
    log(`  email:    ${seeded.login.email}`);
    log(`  password: ${seeded.login.password}`);
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
