// Issue 13 point 5: `npm start` restarts a crashed server with backoff, logs why, and stops
// for good (forwarding the signal) on SIGTERM. A tiny HTTP server stands in for Next.js.
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { supervise } from "@/server/supervise";

const STUB = `
const server = require("node:http").createServer((req, res) => res.end(String(process.pid)));
server.listen(Number(process.env.STUB_PORT), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));`;

async function pidAnswering(port: number): Promise<number | null> {
  try {
    return Number(await (await fetch(`http://127.0.0.1:${port}/`)).text());
  } catch {
    return null;
  }
}

it("restarts a killed server after a backoff, logs the reason, and stops it gracefully on SIGTERM", async () => {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const events: Record<string, unknown>[] = [];
  const supervisor = supervise({
    start: () => spawn(process.execPath, ["-e", STUB], { env: { ...process.env, STUB_PORT: String(port) }, stdio: "ignore" }),
    log: (fields) => events.push(fields),
    minBackoffMs: 100,
  });
  await expect.poll(() => pidAnswering(port), { timeout: 5000 }).toBe(supervisor.child().pid);
  const first = supervisor.child().pid!;

  process.kill(first, "SIGKILL");
  await expect
    .poll(
      async () => {
        const pid = await pidAnswering(port);
        return pid !== null && pid !== first;
      },
      { timeout: 5000 },
    )
    .toBe(true);
  expect(events).toEqual([expect.objectContaining({ code: null, signal: "SIGKILL", restartInMs: 100 })]);

  const second = supervisor.child();
  expect(await supervisor.stop("SIGTERM")).toBe(0); // the stub's own graceful exit
  expect(second.signalCode).toBeNull();
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(await pidAnswering(port)).toBeNull(); // no restart after a requested stop
  expect(events).toHaveLength(1);
}, 20_000);

it("doubles the backoff while the server keeps crashing at once, up to the maximum", async () => {
  const events: Record<string, unknown>[] = [];
  const supervisor = supervise({
    start: () => spawn(process.execPath, ["-e", "process.exit(3)"], { stdio: "ignore" }),
    log: (fields) => events.push(fields),
    minBackoffMs: 20,
    maxBackoffMs: 80,
  });
  await expect.poll(() => events.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
  await supervisor.stop("SIGTERM");
  expect(events.slice(0, 4).map((event) => [event.code, event.restartInMs])).toEqual([
    [3, 20],
    [3, 40],
    [3, 80],
    [3, 80],
  ]);
}, 20_000);
