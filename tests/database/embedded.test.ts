// The embedded PostgreSQL is shared by every Atrium process on one DATA_DIR: an admin CLI run
// while a server uses it must leave it running; the last process to leave stops it.
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { startEmbeddedCluster } from "@/server/database/embedded";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const dataDir = mkdtempSync(path.join(os.tmpdir(), "atrium-shared-"));
chmodSync(dataDir, 0o755);
const clusterDir = path.join(dataDir, "postgres");

afterAll(() => {
  if (existsSync(path.join(clusterDir, "postmaster.pid"))) {
    process.kill(Number(readFileSync(path.join(clusterDir, "postmaster.pid"), "utf8").split("\n")[0]), "SIGINT");
  }
  rmSync(dataDir, { recursive: true, force: true });
});

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

it("keeps the cluster running for the process still using it, and stops it after the last one", async () => {
  const server = await startEmbeddedCluster(clusterDir);
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  const { stdout } = await run(
    path.join(root, "node_modules/.bin/tsx"),
    ["src/cli/admin.ts", "org", "create", "--name", "Shared"],
    { cwd: root, env },
  );
  expect(JSON.parse(stdout).organization.name).toBe("Shared");

  expect(await answers(server.adminUrl)).toBe(true);
  await server.release();
  expect(await answers(server.adminUrl)).toBe(false);
  expect(existsSync(path.join(clusterDir, "postmaster.pid"))).toBe(false);
}, 60_000);

async function serverAddress(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ address: string | null }>("select inet_server_addr()::text as address")).rows[0]!
      .address;
  } finally {
    await client.end();
  }
}

it("is reached over a Unix socket in the cluster's folder, and over TCP when that folder's path is too long for a socket", async () => {
  const near = await startEmbeddedCluster(path.join(dataDir, "near"), { ephemeral: true });
  const farDir = path.join(dataDir, "a-folder-name-long-enough".repeat(4), "postgres");
  const far = await startEmbeddedCluster(farDir, { ephemeral: true });
  try {
    expect(new URL(near.adminUrl).searchParams.get("host")).toBe(path.join(dataDir, "near"));
    expect(await serverAddress(near.adminUrl)).toBeNull(); // a Unix socket has no server address
    expect(new URL(far.adminUrl).searchParams.get("host")).toBeNull();
    expect(await serverAddress(far.adminUrl)).toBe("127.0.0.1/32");
  } finally {
    await Promise.all([near.release(), far.release()]);
  }
}, 60_000);
