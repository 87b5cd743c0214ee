// `npm start` / `npm run dev`: provides the database (DATABASE_URL, or the embedded one under
// DATA_DIR, started or shared), applies migrations, creates the first owner on a fresh
// installation, builds when there is no production build, then runs Next.js and stops the
// embedded database with it.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { env } from "@/env";
import { openDatabase } from "@/server/database/open";
import { closeDb, createDb } from "@/server/db";
import { seedFirstOwner } from "@/server/services/setup";

const dev = process.argv.includes("--dev");
const root = process.cwd();
const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");

function log(line: string) {
  console.log(`[atrium] ${line}`);
}

function runNext(args: string[], extraEnv: Record<string, string>, nodeArgs: string[] = []) {
  return spawn(process.execPath, [...nodeArgs, nextBin, ...args], {
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
  const server = runNext(
    dev ? ["dev", "-p", String(config.PORT)] : ["start", "-p", String(config.PORT)],
    { DATABASE_URL: database.url, NODE_ENV: dev ? "development" : "production" },
    dev ? [] : [`--max-old-space-size=${config.SERVER_HEAP_MB}`],
  );
  const forward = (signal: NodeJS.Signals) => () => server.kill(signal);
  process.on("SIGINT", forward("SIGINT"));
  process.on("SIGTERM", forward("SIGTERM"));
  const code = await waitFor(server);
  await database.release().catch((error: unknown) => log(`Could not stop the embedded database: ${String(error)}`));
  process.exit(code);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
