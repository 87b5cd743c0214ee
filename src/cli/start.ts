// `npm start` / `npm run dev`: provides the database (DATABASE_URL, or the embedded one under
// DATA_DIR, started or shared), applies migrations, provides the embedded default's secret key
// (generated into DATA_DIR on the first start: secret-box.ts), creates the first owner on a fresh
// installation (setup.ts, in a child process that exits, so that its password hashing is not kept
// loaded), builds when there is no production build, then serves. In production this process
// becomes the server: it imports http-server.ts only then and serves HTTP itself, one node
// process for the whole run; restarting it after a crash is the job of what runs it (systemd,
// Docker, Kubernetes: docs/operations.md). `npm run dev` runs `next dev` as a child instead.
// Either way the embedded database is stopped once serving ends. Its own lines are JSON, like the
// server's.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { childEnv, env, provideEnv, publicOrigin } from "@/env";
import { openDatabase, type OpenDatabase } from "@/server/database/open";
import { logger } from "@/server/observability/log";
import { provideSecretKey } from "@/server/secret-box";

const dev = process.argv.includes("--dev");
const root = process.cwd();
const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");

function log(line: string) {
  logger().info(line);
}

function announce(port: number) {
  log(`Atrium on http://localhost:${port} (console) and http://localhost:${port}/api/v1 (API)`);
}

function runNext(args: string[], extraEnv: Record<string, string>) {
  return spawn(process.execPath, [nextBin, ...args], {
    stdio: "inherit",
    env: childEnv({ NEXT_TELEMETRY_DISABLED: "1", ...extraEnv }),
  });
}

/**
 * setup.ts beside this file (dist/server/setup.mjs in production; under `npm run dev`, the
 * TypeScript source with the same loader flags as this process), in a process that exits after it.
 */
function runSetup(databaseUrl: string) {
  const here = fileURLToPath(import.meta.url);
  const entry = path.join(path.dirname(here), `setup${path.extname(here)}`);
  return spawn(process.execPath, [...process.execArgv, entry], {
    stdio: "inherit",
    env: childEnv({ DATABASE_URL: databaseUrl }),
  });
}

async function waitFor(child: ReturnType<typeof spawn>): Promise<number> {
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

/** Calls `stop` on SIGTERM or SIGINT, once: npm forwards a terminal's Ctrl-C, which arrives twice. */
function onStopSignal(stop: () => void) {
  let asked = false;
  const once = () => {
    if (asked) return;
    asked = true;
    stop();
  };
  process.on("SIGTERM", once);
  process.on("SIGINT", once);
}

/** `next dev` in a child process until it exits; a stop signal is passed on to it. */
async function serveDev(databaseUrl: string, port: number): Promise<number> {
  announce(port);
  const child = runNext(["dev", "-p", String(port)], { DATABASE_URL: databaseUrl, NODE_ENV: "development" });
  onStopSignal(() => child.kill("SIGTERM"));
  return waitFor(child);
}

/** The production server in this process until a stop signal has been served out. */
async function serveHere(databaseUrl: string, config: { PORT: number; TRUST_PROXY: number }): Promise<void> {
  provideEnv({ DATABASE_URL: databaseUrl, NODE_ENV: "production" });
  const { serve } = await import("./http-server");
  const server = await serve({ port: config.PORT, trustProxy: config.TRUST_PROXY });
  announce(config.PORT);
  await new Promise<void>((resolve) => onStopSignal(resolve));
  await server.stop();
}

/** Links in mail must reach people: say so when they will point at this machine's localhost. */
function warnWithoutPublicOrigin(config: { PUBLIC_ORIGIN?: string; PORT: number }) {
  if (config.PUBLIC_ORIGIN) return;
  logger().warn(
    { setting: "PUBLIC_ORIGIN" },
    `PUBLIC_ORIGIN is not set: absolute links Atrium writes (the sign-in link in portal mail) use ${publicOrigin(config)}. Set PUBLIC_ORIGIN to the origin people open Atrium at.`,
  );
}

async function main() {
  const config = env();
  warnWithoutPublicOrigin(config);
  let database: OpenDatabase | undefined;
  try {
    database = await openDatabase(log);
    await provideSecretKey(config, { info: log, warn: (line) => logger().warn(line) });
    const setup = await waitFor(runSetup(database.url));
    if (setup !== 0) process.exitCode = setup;
    else if (!dev && !existsSync(path.join(root, ".next", "BUILD_ID"))) {
      log("No production build yet; building (this takes a minute or two)…");
      process.exitCode = await waitFor(runNext(["build"], { NODE_ENV: "production" }));
    }
    if (!process.exitCode) {
      if (dev) process.exitCode = await serveDev(database.url, config.PORT);
      else await serveHere(database.url, config);
    }
  } finally {
    if (database?.embedded) {
      await database.release().then(
        (stopped) =>
          log(
            stopped
              ? "Embedded PostgreSQL stopped"
              : "Embedded PostgreSQL not stopped: another Atrium process still uses it, or it had stopped already",
          ),
        (error: unknown) => logger().error({ err: error }, "Could not stop the embedded database"),
      );
    }
  }
  process.exit();
}

main().catch((error: unknown) => {
  // One line a person can act on (a bad setting, an unreachable database, a port in use), not a stack trace.
  console.error(`Atrium could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
