// As root, PostgreSQL runs as the `postgres` user, which cannot enter a 0700 folder (a clone in
// /root, a `mktemp -d` workspace). The cluster then lives in a store it can reach, linked from
// the data directory, and deleting the data directory starts the next run on a fresh database.
import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { startEmbeddedCluster } from "@/server/database/embedded";

const privateDir = mkdtempSync(path.join(os.tmpdir(), "atrium-private-")); // mode 0700
const store = mkdtempSync(path.join(os.tmpdir(), "atrium-store-"));
chmodSync(store, 0o755);
const clusterDir = path.join(privateDir, "data", "postgres");

function stopLeftover(dir: string) {
  const pidFile = path.join(dir, "postmaster.pid");
  if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, "utf8").split("\n")[0]), "SIGINT");
}

afterAll(() => {
  if (existsSync(clusterDir)) stopLeftover(clusterDir);
  rmSync(privateDir, { recursive: true, force: true });
  rmSync(store, { recursive: true, force: true });
});

async function tableCount(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query("select count(*)::int as n from pg_tables where tablename = 'kept'")).rows[0].n;
  } finally {
    await client.end();
  }
}

it.skipIf(process.getuid?.() !== 0)(
  "starts as root with the data directory inside a 0700 folder",
  async () => {
    expect(statSync(privateDir).mode & 0o777).toBe(0o700);
    const cluster = await startEmbeddedCluster(clusterDir, { rootStore: store });
    const client = new pg.Client({ connectionString: cluster.adminUrl });
    await client.connect();
    await client.query("create table kept (id int)");
    await client.end();
    expect(lstatSync(clusterDir).isSymbolicLink()).toBe(true);
    expect(readlinkSync(clusterDir).startsWith(path.join(store, "clusters"))).toBe(true);
    await cluster.release();

    // Same data directory: same cluster, data kept.
    const again = await startEmbeddedCluster(clusterDir, { rootStore: store });
    expect(await tableCount(again.adminUrl)).toBe(1);
    await again.release();

    // Data directory deleted: a fresh cluster, nothing left from before.
    rmSync(path.join(privateDir, "data"), { recursive: true, force: true });
    const fresh = await startEmbeddedCluster(clusterDir, { rootStore: store });
    expect(await tableCount(fresh.adminUrl)).toBe(0);
    await fresh.release();
  },
  90_000,
);
