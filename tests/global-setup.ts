// Starts ONE embedded PostgreSQL cluster for the whole test run, in a fresh temporary
// directory, and migrates a template database that every test file copies (tests/setup.ts).
// The cluster is stopped and the directory deleted at the end, also when the run is aborted.
import { readFileSync, rmSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startEmbeddedCluster } from "../src/server/database/embedded";
import { migrate } from "../src/server/database/migrate";

declare module "vitest" {
  export interface ProvidedContext {
    /** Connection URL of the cluster's maintenance database. */
    adminUrl: string;
    /** The migrated database each test file's database is created from. */
    templateDatabase: string;
  }
}

export const TEMPLATE_DATABASE = "atrium_template";

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Stops the postmaster we started, synchronously, so it also works from an `exit` handler:
 * the last resort when a run ends without its teardown (Ctrl-C).
 */
function stopSync(clusterDir: string): void {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(clusterDir, "postmaster.pid"), "utf8").split("\n")[0]);
  } catch {
    return; // not running
  }
  if (!pid) return;
  try {
    process.kill(pid, "SIGINT"); // PostgreSQL's "fast" shutdown
  } catch {
    return; // already gone
  }
  for (let waited = 0; waited < 10_000; waited += 50) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    sleepSync(50);
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = await mkdtemp(path.join(os.tmpdir(), "atrium-tests-"));
  // PostgreSQL runs as the `postgres` user when we are root; it must be able to reach its directory.
  await chmod(root, 0o755);
  const clusterDir = path.join(root, "postgres");
  const onExit = () => {
    stopSync(clusterDir);
    rmSync(root, { recursive: true, force: true });
  };
  process.once("exit", onExit);

  let cluster: Awaited<ReturnType<typeof startEmbeddedCluster>>;
  try {
    cluster = await startEmbeddedCluster(clusterDir, { ephemeral: true });
    const client = new pg.Client({ connectionString: cluster.adminUrl });
    await client.connect();
    try {
      await client.query(`create database "${TEMPLATE_DATABASE}"`);
    } finally {
      await client.end();
    }
    await migrate(cluster.urlFor(TEMPLATE_DATABASE));
  } catch (error) {
    stopSync(clusterDir);
    await rm(root, { recursive: true, force: true });
    throw error;
  }

  project.provide("adminUrl", cluster.adminUrl);
  project.provide("templateDatabase", TEMPLATE_DATABASE);

  return async () => {
    try {
      await cluster.release();
    } finally {
      stopSync(clusterDir);
      process.removeListener("exit", onExit);
      await rm(root, { recursive: true, force: true });
    }
  };
}
