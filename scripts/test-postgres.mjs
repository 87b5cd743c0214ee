#!/usr/bin/env node
// `npm run test:postgres [-- <major>]`: the Vitest service and API suite once more against the
// distribution's PostgreSQL (Debian's postgresql-15 by default), to prove the SQL and the
// migrations on a server other than the embedded one. The server is installed when missing
// (root with apt-get), started here in a temporary directory, and removed at the end.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const major = process.argv[2] ?? process.env.PG_MAJOR ?? "15";
const bin = `/usr/lib/postgresql/${major}/bin`;
const isRoot = process.getuid?.() === 0;

function fail(line) {
  console.error(`test:postgres: ${line}`);
  process.exit(1);
}

if (!existsSync(path.join(bin, "postgres"))) {
  if (!isRoot || !existsSync("/usr/bin/apt-get")) fail(`PostgreSQL ${major} is not installed: run \`sudo apt-get install postgresql-${major}\` (Debian/Ubuntu), then retry.`);
  console.log(`test:postgres: installing postgresql-${major} with apt-get…`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", `postgresql-${major}`], { stdio: "inherit", env });
}

// PostgreSQL refuses to run as root: then it runs as the `postgres` user the package created.
const owner = isRoot ? { uid: Number(execFileSync("id", ["-u", "postgres"]).toString()), gid: Number(execFileSync("id", ["-g", "postgres"]).toString()) } : {};
const root = mkdtempSync(path.join(os.tmpdir(), `atrium-pg${major}-`));
chmodSync(root, 0o755);
const dataDir = path.join(root, "data");
const passwordFile = path.join(root, "password");
writeFileSync(passwordFile, "postgres\n");
if (isRoot) {
  chownSync(root, owner.uid, owner.gid);
  chownSync(passwordFile, owner.uid, owner.gid);
}

const port = await new Promise((resolve, reject) => {
  const server = net.createServer().on("error", reject);
  server.listen(0, "127.0.0.1", () => {
    const { port: free } = server.address();
    server.close(() => resolve(free));
  });
});

const asOwner = { ...owner, stdio: "inherit", env: { ...process.env, LC_ALL: "C" } };
let status = 1;
try {
  execFileSync(path.join(bin, "initdb"), ["-D", dataDir, "-U", "postgres", `--pwfile=${passwordFile}`, "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C"], { ...asOwner, stdio: "ignore" });
  execFileSync(path.join(bin, "pg_ctl"), ["start", "-w", "-D", dataDir, "-l", path.join(root, "server.log"), "-o", `-p ${port} -h 127.0.0.1 -k ${root} -c max_connections=200 -c fsync=off`], asOwner);
  const version = spawnSync(path.join(bin, "postgres"), ["--version"], { encoding: "utf8" }).stdout.trim();
  console.log(`test:postgres: Vitest against ${version} on 127.0.0.1:${port}`);
  status = spawnSync("node_modules/.bin/vitest", ["run"], {
    stdio: "inherit",
    env: { ...process.env, TEST_DATABASE_URL: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres` },
  }).status ?? 1;
} finally {
  spawnSync(path.join(bin, "pg_ctl"), ["stop", "-m", "fast", "-D", dataDir], { ...asOwner, stdio: "ignore" });
  rmSync(root, { recursive: true, force: true });
}
process.exit(status);
