// Starts ONE embedded PostgreSQL cluster for the whole test run, in a fresh temporary
// directory, and migrates a template database that every test file copies (tests/setup.ts).
// The cluster is stopped and the directory deleted at the end, also when the run is aborted.
// With TEST_DATABASE_URL (a role that may create databases on any PostgreSQL 14-18) the run
// uses that server instead and drops the databases it created at the end. It is not read from
// DATABASE_URL so that a shell pointed at a real database never has tests run against it.
import { randomBytes } from "node:crypto";
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
    /** Prefix of this run's per-file databases. */
    databasePrefix: string;
  }
}

export const TEMPLATE_DATABASE = "atrium_template";

async function adminQuery(adminUrl: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The run on a server someone else runs: this run's databases only, all dropped at the end. */
async function setupOnServer(project: TestProject, adminUrl: string): Promise<() => Promise<void>> {
  const run = randomBytes(4).toString("hex");
  const template = `atrium_template_${run}`;
  const prefix = `test_${run}_`;
  const dropAll = async () => {
    const { rows } = await adminQuery(
      adminUrl,
      `select datname from pg_database where datname like '${prefix}%' or datname = '${template}'`,
    );
    for (const { datname } of rows) await adminQuery(adminUrl, `drop database if exists "${datname}" with (force)`);
  };
  await adminQuery(adminUrl, `create database "${template}"`);
  try {
    const templateUrl = new URL(adminUrl);
    templateUrl.pathname = `/${template}`;
    await migrate(templateUrl.toString());
  } catch (error) {
    await dropAll();
    throw error;
  }
  project.provide("adminUrl", adminUrl);
  project.provide("templateDatabase", template);
  project.provide("databasePrefix", prefix);
  return dropAll;
}

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
  if (process.env.TEST_DATABASE_URL) return setupOnServer(project, process.env.TEST_DATABASE_URL);
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
    await adminQuery(cluster.adminUrl, `create database "${TEMPLATE_DATABASE}"`);
    await migrate(cluster.urlFor(TEMPLATE_DATABASE));
  } catch (error) {
    stopSync(clusterDir);
    await rm(root, { recursive: true, force: true });
    throw error;
  }

  project.provide("adminUrl", cluster.adminUrl);
  project.provide("templateDatabase", TEMPLATE_DATABASE);
  project.provide("databasePrefix", "test_");

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
