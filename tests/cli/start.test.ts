// `npm start` (scripts/start.mjs) for real, on a fresh embedded database in a temporary folder:
// it creates the first owner, serves HTTP from its own process (no server child to supervise),
// on SIGTERM answers the request in flight, exits 0 and stops the embedded database it started;
// a startup failure is one line and a non-zero exit. The folder stands in for the project root (the launcher reads
// prisma/ and .next/ there): a BUILD_ID keeps it from building Next.js, which only a page would
// load and these requests never ask for.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
let work: string;

interface Run {
  child: ChildProcess;
  output: () => string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The launcher in `work`, with only the environment a person would set. */
function start(port: string): Run {
  const child = spawn(process.execPath, [path.join(root, "scripts", "start.mjs")], {
    cwd: work,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", PORT: port, DATA_DIR: ".data" },
  });
  let output = "";
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, stdout: () => stdout, stderr: () => stderr, exited };
}

/** A port nothing listens on now (the system's choice, so parallel test files do not collide). */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Waits until the server answers its health check; fails at once, with what it printed, if it exits first. */
async function untilHealthy(run: Run, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (run.child.exitCode !== null || run.child.signalCode !== null)
      throw new Error(`The launcher exited before serving:\n${run.output()}`);
    if ((await health(port)) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`No healthy answer within ${timeoutMs / 1000} s. The launcher printed:\n${run.output()}`);
}

/** The pid of the embedded PostgreSQL when it runs. */
function postgresPid(): number | null {
  const pidFile = path.join(work, ".data", "postgres", "postmaster.pid");
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

/** The status line of the answer to `head`, written raw on a new connection. */
async function rawStatus(port: number, head: string): Promise<string> {
  const socket = net.connect(port, "127.0.0.1");
  let answer = "";
  socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
  socket.on("error", () => {});
  socket.write(head);
  await new Promise((resolve) => {
    socket.once("close", resolve);
    socket.on("data", () => answer.includes("\r\n\r\n{") && answer.trimEnd().endsWith("}") && resolve(undefined));
  });
  socket.destroy();
  return answer.split("\r\n")[0]!;
}

async function health(port: number): Promise<number | null> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/api/health`)).status;
  } catch {
    return null;
  }
}

// Each test gets its own folder, so one that fails midway leaves nothing running for the next.
beforeEach(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "atrium-start-"));
  await chmod(work, 0o755); // as root, PostgreSQL runs as the postgres user and must reach its folder
  await symlink(path.join(root, "prisma"), path.join(work, "prisma"));
  await mkdir(path.join(work, ".next"));
  await writeFile(path.join(work, ".next", "BUILD_ID"), "test");
});

afterEach(async () => {
  const pid = postgresPid();
  if (pid) process.kill(pid, "SIGINT");
  await rm(work, { recursive: true, force: true });
});

it("creates the first owner on a fresh start, serves from its own process, and on SIGTERM answers the request in flight, exits 0 and stops the embedded database", async () => {
  const port = await freePort();
  const run = start(String(port));
  await untilHealthy(run, port, 150_000);
  // The owner's password is on the terminal once, as plain text, and never in the JSON log stream.
  const password = /password: +(\S{12,})/.exec(run.stderr())?.[1];
  expect(run.stderr()).toContain("First start: created the organization and its owner");
  expect(password).toBeDefined();
  expect(run.stdout()).not.toContain(password);
  expect(run.stderr().split(password!).length).toBe(2);

  // Methods fetch's Request refuses once ended the process: each is a 405, and it keeps serving.
  for (const method of ["TRACE", "TRACK"]) {
    expect(await rawStatus(port, `${method} /api/v1/models HTTP/1.1\r\nHost: localhost\r\n\r\n`)).toBe(
      "HTTP/1.1 405 Method Not Allowed",
    );
  }
  expect(await rawStatus(port, "CONNECT 169.254.169.254:80 HTTP/1.1\r\nHost: 169.254.169.254:80\r\n\r\n")).toBe(
    "HTTP/1.1 405 Method Not Allowed",
  );
  expect(await health(port)).toBe(200);

  // The setup step has exited; nothing else of Atrium runs beside this process (PostgreSQL is detached).
  const children = readFileSync(`/proc/${run.child.pid}/task/${run.child.pid}/children`, "utf8").trim();
  expect(children).toBe("");
  const postgres = postgresPid();
  expect(postgres).not.toBeNull();

  // A request still arriving when the stop comes is answered before the process exits.
  const socket = net.connect(port, "127.0.0.1");
  let answer = "";
  socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
  const ended = new Promise((resolve) => socket.once("close", resolve));
  const body = JSON.stringify({ email: "late@example.com" });
  socket.write(
    `POST /api/v1/end-users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  run.child.kill("SIGTERM");
  await expect.poll(() => health(port), { timeout: 10_000 }).toBeNull(); // no longer accepting
  socket.end(body.slice(5));
  await ended;
  expect(answer).toMatch(/^HTTP\/1\.1 401 /); // no key: the envelope's answer, not a dropped connection
  expect(await run.exited).toEqual({ code: 0, signal: null });
  expect(postgresPid()).toBeNull();
  expect(run.output()).not.toContain("could not start");
  // The start warns that links point at localhost; the stop says what it did, in the JSON log.
  const messages = run
    .stdout()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
  expect(messages).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^PUBLIC_ORIGIN is not set: absolute links Atrium writes .* use http:\/\/localhost:\d+\./),
      expect.stringMatching(/^ATRIUM_SECRET_KEY is not set: generated one in .*secret-key \(mode 0600\)/),
      expect.stringMatching(/^Stopping: no new connections/),
      expect.stringMatching(/^Indexing: 0 job\(s\) in hand handed back/),
      expect.stringMatching(/^Connections closed/),
      "Database connections closed",
      "Embedded PostgreSQL stopped",
    ]),
  );

  // Without ATRIUM_SECRET_KEY the embedded default generated one beside its database, for its owner
  // only; the next start uses the same key and says nothing more about it.
  const keyFile = path.join(work, ".data", "secret-key");
  expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  const key = readFileSync(keyFile, "utf8").trim();
  expect(key.length).toBeGreaterThanOrEqual(32);
  expect(run.output()).not.toContain(key);
  const again = start(String(port));
  await untilHealthy(again, port, 150_000);
  again.child.kill("SIGTERM");
  expect(await again.exited).toEqual({ code: 0, signal: null });
  expect(readFileSync(keyFile, "utf8").trim()).toBe(key);
  expect(again.output()).not.toContain("ATRIUM_SECRET_KEY");
}, 240_000);

it("prints one line and exits non-zero when the port is taken, and stops the embedded database it started", async () => {
  const taken = http.createServer();
  await new Promise<void>((resolve) => taken.listen(0, resolve));
  const port = (taken.address() as { port: number }).port;
  try {
    const run = start(String(port));
    expect(await run.exited).toEqual({ code: 1, signal: null });
    const lines = run.stderr().trim().split("\n");
    expect(lines.at(-1)).toBe(
      `Atrium could not start: port ${port} is already in use; stop what listens on it or set PORT to another port.`,
    );
    expect(postgresPid()).toBeNull();
  } finally {
    taken.close();
  }
}, 180_000);

it("prints one line and exits non-zero on an invalid setting", async () => {
  const run = start("not-a-port");
  expect(await run.exited).toEqual({ code: 1, signal: null });
  expect(run.output().trim()).toMatch(/^Atrium could not start: Invalid configuration: PORT: .+$/);
});
