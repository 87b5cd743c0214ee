// Runs under faults (issue 44), on real server processes sharing the test file's PostgreSQL: a
// process killed (kill -9) or stopped past its grace (SIGTERM) mid-stream, and the database cut
// mid-stream. Every charge has its execution: a lost run ends `failed` within the sweeper's
// interval, its credit given back and its Idempotency-Key freed; a stream cut by a shutdown
// gets a final `error` event; a database blip delays a stream but never changes its outcome
// or drops its events.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { stop } from "esbuild";
import { bundleServer } from "../../scripts/build-server.mjs";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createRestHandler } from "@/server/adapters/rest";
import { closeDb, createDb, getDb } from "@/server/db";
import { create } from "../builder-helpers";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { newOrganization } from "../helpers";
import { portalScenario, type PortalScenario } from "../portal/helpers";
import { credits, deltaText, publishedApp, readEvents, type PublishedApp } from "../runtime-helpers";

const root = path.resolve(import.meta.dirname, "../..");
const REPLY =
  "Refunds are paid within fourteen days of the request and shipping costs are not refunded at all, " +
  "so please keep the receipt and the tracking number until the money is back on your card";
const LOST_AFTER_MS = 2000;
let fake: FakeOpenAI;
const children: ChildProcess[] = [];
let serverDir: string;

beforeAll(async () => {
  // The server process compiled once, as scripts/build-server.mjs compiles `npm start`'s: nine
  // processes start from it, each in a fraction of the time tsx takes to load the sources.
  await mkdir(path.join(root, "dist"), { recursive: true });
  serverDir = await mkdtemp(path.join(root, "dist", "lost-runs-"));
  await bundleServer(["tests/runtime/server-process.ts"], serverDir);
  await stop();
  fake = await startFakeOpenAI(() => REPLY, { tokenDelayMs: 150 });
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_MODELS = "slow-model";
});

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

afterAll(async () => {
  await fake.close();
  await rm(serverDir, { recursive: true, force: true });
});

interface Server {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A server process on the test file's database, ready to answer. */
async function startServer(lostAfterMs = LOST_AFTER_MS): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(serverDir, "server-process.mjs")], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "test",
      PORT: String(port),
      DATABASE_URL: process.env.DATABASE_URL,
      MODEL_PROVIDER_BASE_URL: fake.baseURL,
      MODEL_PROVIDER_MODELS: "slow-model",
      RUN_LOST_AFTER_MS: String(lostAfterMs),
      SHUTDOWN_GRACE_MS: "500",
      LOG_LEVEL: "warn",
    },
  });
  children.push(child);
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const deadline = Date.now() + 120_000;
  while (!output.includes("listening\n")) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`The server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}

/** A stream read event by event, as a client does. */
function eventsOf(response: Response) {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => queue.push(event) });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let ended = false;
  return {
    async next(): Promise<EventSourceMessage | null> {
      while (queue.length === 0 && !ended) {
        const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (chunk.done) ended = true;
        else parser.feed(chunk.value);
      }
      return queue.shift() ?? null;
    },
    async rest(): Promise<EventSourceMessage[]> {
      const events: EventSourceMessage[] = [];
      for (let event = await this.next(); event; event = await this.next()) events.push(event);
      return events;
    },
  };
}

function post(server: Server, app: PublishedApp, key: string, forEndUser?: PortalScenario) {
  return fetch(`${server.url}/api/v1/apps/${app.appId}/conversation`, {
    method: "POST",
    headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json", "idempotency-key": key },
    body: JSON.stringify({
      message: "How long do refunds take?",
      stream: true,
      ...(forEndUser ? { endUserId: forEndUser.endUser.id, portalId: forEndUser.portal.id } : {}),
    }),
  });
}

function get(server: Server, app: Pick<PublishedApp, "key">, pathname: string, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/api/v1${pathname}`, { headers: { authorization: `Bearer ${app.key}`, ...headers } });
}

/** The execution, once it is no longer missing or running; fails after `ms`. */
async function settledExecution(server: Server, app: Pick<PublishedApp, "key">, id: string, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    const response = await get(server, app, `/executions/${id}`);
    if (response.status === 200)
      return (
        (await response.json()) as { execution: { kind: string; status: string; credits: number; error: string } }
      ).execution;
    if (Date.now() > deadline) throw new Error(`No execution ${id} after ${ms} ms (last status ${response.status})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The organization's balance (and the end user's pool) moved by exactly what its executions were billed. */
async function expectUsageMatchesBalance(app: PublishedApp, before: number, forEndUser?: PortalScenario) {
  const billed = async (endUserId?: string) =>
    (
      await getDb().execution.aggregate({
        where: { organizationId: app.tenant.organization.id, ...(endUserId ? { endUserId } : {}) },
        _sum: { credits: true },
      })
    )._sum.credits ?? 0;
  expect(before - (await credits(app.tenant))).toBe(await billed());
  if (forEndUser) {
    const pool = await getDb().subscription.findFirstOrThrow({ where: { endUserId: forEndUser.endUser.id } });
    expect(pool.creditsUsed).toBe(await billed(forEndUser.endUser.id));
  }
  expect(await getDb().runLease.count({ where: { organizationId: app.tenant.organization.id } })).toBe(0);
}

describe("a run lost with its process", () => {
  it("kill -9 mid-stream: the other processes' sweepers end it once within their interval, failed, its credit given back to the balance and the pool, its key free", async () => {
    // B and C both sweep: the run is settled once (a second refund would show in the balance).
    const [a, b] = await Promise.all([startServer(), startServer(), startServer()]);
    const app = await portalScenario({ billingModel: "slow-model" });
    const before = await credits(app.tenant);
    const key = `lost-${app.appId}`;
    const stream = eventsOf(await post(a, app, key, app));
    const seen = [(await stream.next())!];
    expect(seen[0]!.event).toBe("run");
    while (seen.at(-1)!.event !== "delta") seen.push((await stream.next())!);
    const executionId = JSON.parse(seen[0]!.data).execution_id as string;
    expect(await credits(app.tenant)).toBe(before - 1);

    a.child.kill("SIGKILL");
    await a.exited;
    const execution = await settledExecution(b, app, executionId, LOST_AFTER_MS * 4);
    expect(execution).toMatchObject({ status: "failed", credits: 0 });
    expect(execution.error).toMatch(/lost/);
    await expectUsageMatchesBalance(app, before, app);

    // The run's events end with its outcome, on any process.
    const resumed = await readEvents(
      await get(b, app, `/apps/${app.appId}/conversation/runs/${executionId}/events`, {
        "last-event-id": seen.at(-1)!.id!,
      }),
    );
    expect(resumed.at(-1)!.event).toBe("error");
    expect(JSON.parse(resumed.at(-1)!.data).error.code).toBe("run_lost");

    // The failure freed the key: the same request runs again, to its end.
    const retry = await post(b, app, key, app);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    const events = await readEvents(retry);
    expect(events.at(-1)!.event).toBe("done");
    expect(JSON.parse(events[0]!.data).execution_id).not.toBe(executionId);
    expect(deltaText(events)).toBe(REPLY);
    expect(before - (await credits(app.tenant))).toBe(1);
    await expectUsageMatchesBalance(app, before, app);
  }, 180_000);

  it("kill -9 mid-stream of a priced run (minimum 3): it is given back exactly what it was charged, to the balance and the pool", async () => {
    const [a, b] = await Promise.all([startServer(), startServer()]);
    const app = await portalScenario({ billingModel: "slow-model" });
    await getDb().modelPrice.create({
      data: {
        organizationId: app.tenant.organization.id,
        modelId: "slow-model",
        inputCreditsPerMillion: 0,
        outputCreditsPerMillion: 0,
        minimumCredits: 3,
      },
    });
    const before = await credits(app.tenant);
    const stream = eventsOf(await post(a, app, `priced-lost-${app.appId}`, app));
    const first = (await stream.next())!;
    expect(first.event).toBe("run");
    const executionId = JSON.parse(first.data).execution_id as string;
    for (let event = await stream.next(); event?.event !== "delta"; event = await stream.next())
      expect(event).not.toBeNull();
    expect(await credits(app.tenant)).toBe(before - 3);
    const pool = () => getDb().subscription.findFirstOrThrow({ where: { endUserId: app.endUser.id } });
    expect((await pool()).creditsUsed).toBe(3);
    const lease = await getDb().runLease.findUniqueOrThrow({ where: { id: executionId } });
    expect(lease.charge).toMatchObject({ kind: "end_user", amount: 3 });

    a.child.kill("SIGKILL");
    await a.exited;
    const execution = await settledExecution(b, app, executionId, LOST_AFTER_MS * 4);
    expect(execution).toMatchObject({ status: "failed", credits: 0 });
    expect(await credits(app.tenant)).toBe(before);
    expect((await pool()).creditsUsed).toBe(0);
    await expectUsageMatchesBalance(app, before, app);
  }, 180_000);

  it("kill -9 mid-way through a test run: the sweeper ends the case in flight failed and given back; the cases after it never ran nor paid", async () => {
    const [a, b] = await Promise.all([startServer(), startServer()]);
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const agent = await create(key, "agents", { name: "Slow helper", model: "slow-model" });
    // A priced case reserves its minimum: the lease records 3, all given back when it is lost.
    await getDb().modelPrice.create({
      data: {
        organizationId: tenant.organization.id,
        modelId: "slow-model",
        inputCreditsPerMillion: 0,
        outputCreditsPerMillion: 0,
        minimumCredits: 3,
      },
    });
    const before = await credits(tenant);
    const cases = ["How long do refunds take?", "When is a refund paid?", "Is shipping refunded?"].map((input) => ({
      input,
      expectedBehavior: "Says fourteen days",
    }));
    const running = fetch(`${a.url}/api/v1/agents/${agent.id}/tests`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ cases }),
    }).catch((error: unknown) => error);
    const lease = await vi.waitFor(
      async () => {
        const row = await getDb().runLease.findFirst({ where: { organizationId: tenant.organization.id } });
        expect(row).not.toBeNull();
        return row!;
      },
      { timeout: 20_000, interval: 20 },
    );
    expect(lease.execution).toMatchObject({ kind: "test", itemId: agent.id, itemKind: "agent" });
    expect(lease.charge).toMatchObject({ amount: 3 });
    expect(await credits(tenant)).toBe(before - 3);

    a.child.kill("SIGKILL");
    await a.exited;
    expect(await running).toBeInstanceOf(Error);
    const execution = await settledExecution(b, { key }, lease.id, LOST_AFTER_MS * 4);
    expect(execution).toMatchObject({ kind: "test", status: "failed", credits: 0 });
    expect(execution.error).toMatch(/lost/);
    // Only the case in flight was charged, and it was given back: the balance is whole again.
    expect(await credits(tenant)).toBe(before);
    expect(await getDb().execution.count({ where: { organizationId: tenant.organization.id } })).toBe(1);
    expect(await getDb().runLease.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  }, 180_000);

  it("SIGTERM past the grace: its stream gets a final error naming the shutdown, the run ends failed and its key is free", async () => {
    // Settled by A itself: B's sweeper must not take the run first, even when a loaded machine stalls A.
    const [a, b] = await Promise.all([startServer(30_000), startServer(30_000)]);
    const app = await publishedApp({ billingModel: "slow-model" });
    const before = await credits(app.tenant);
    const key = `stopped-${app.appId}`;
    const own = eventsOf(await post(a, app, key));
    const first = (await own.next())!;
    const executionId = JSON.parse(first.data).execution_id as string;
    // A stream on A of a run B runs: A's shutdown ends the stream, not the run.
    const other = eventsOf(await post(b, app, `other-${app.appId}`));
    const otherRun = JSON.parse((await other.next())!.data).execution_id as string;
    const watched = eventsOf(await get(a, app, `/apps/${app.appId}/conversation/runs/${otherRun}/events`));
    const watchedFirst = (await watched.next())!;
    await own.next();

    a.child.kill("SIGTERM");
    const ownRest = await own.rest();
    const ownFinal = ownRest.at(-1)!;
    expect(ownFinal.event).toBe("error");
    expect(JSON.parse(ownFinal.data).error.code).toBe("server_shutdown");
    expect(ownRest.filter((event) => event.event === "error" || event.event === "done")).toHaveLength(1);
    const watchedRest = await watched.rest();
    expect(watchedRest.at(-1)!.event).toBe("error");
    expect(JSON.parse(watchedRest.at(-1)!.data).error.code).toBe("server_shutdown");
    expect(watchedRest.at(-1)!.id).toBeUndefined();
    expect(await a.exited).toBe(0);

    const execution = await settledExecution(b, app, executionId, 5000);
    expect(execution).toMatchObject({ status: "failed", credits: 0 });
    expect(execution.error).toMatch(/shut down/);

    // The other run went on: resumed on B after the last event seen, it ends with the whole reply.
    const seenOfOther = [watchedFirst, ...watchedRest.filter((event) => event.id)];
    const tail = await readEvents(
      await get(b, app, `/apps/${app.appId}/conversation/runs/${otherRun}/events`, {
        "last-event-id": seenOfOther.at(-1)!.id!,
      }),
    );
    const whole = [...seenOfOther, ...tail];
    expect(whole.map((event) => Number(event.id))).toEqual(whole.map((_, index) => index + 1));
    expect(whole.at(-1)!.event).toBe("done");
    expect(deltaText(whole)).toBe(REPLY);

    const retry = await post(b, app, key);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect((await readEvents(retry)).at(-1)!.event).toBe("done");
    await expectUsageMatchesBalance(app, before);
  }, 180_000);
});

/** A TCP proxy to PostgreSQL that a test cuts (every connection dropped, new ones refused) and restores. */
async function databaseProxy(databaseUrl: string) {
  const target = new URL(databaseUrl);
  const sockets = new Set<net.Socket>();
  let down = false;
  const server = net.createServer((client) => {
    if (down) return client.destroy();
    // The embedded cluster listens on a Unix socket (the URL's `host` parameter).
    const socketDir = target.searchParams.get("host");
    const port = Number(target.port || 5432);
    const upstream = socketDir?.startsWith("/")
      ? net.connect(path.join(socketDir, `.s.PGSQL.${port}`))
      : net.connect(port, target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.pipe(to);
      from.on("error", () => {});
      from.on("close", () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxied = new URL(databaseUrl);
  proxied.searchParams.delete("host");
  proxied.hostname = "127.0.0.1";
  proxied.port = String((server.address() as net.AddressInfo).port);
  return {
    url: proxied.toString(),
    cut() {
      down = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      down = false;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe("a database blip mid-stream", () => {
  it("delays the stream, then it ends with the run's real outcome; every event is stored, the reply whole", async () => {
    const app = await publishedApp({ billingModel: "slow-model" });
    const before = await credits(app.tenant);
    const proxy = await databaseProxy(process.env.DATABASE_URL!);
    const db = createDb(proxy.url);
    try {
      const handler = createRestHandler({ db: () => db });
      const response = await handler(
        new Request(`http://localhost/api/v1/apps/${app.appId}/conversation`, {
          method: "POST",
          headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
          body: JSON.stringify({ message: "How long do refunds take?", stream: true }),
        }),
      );
      expect(response.status).toBe(200);
      const stream = eventsOf(response);
      const seen = [(await stream.next())!, (await stream.next())!, (await stream.next())!];
      proxy.cut();
      await new Promise((resolve) => setTimeout(resolve, 3000));
      proxy.restore();
      const events = [...seen, ...(await stream.rest())];

      expect(events.map((event) => Number(event.id))).toEqual(events.map((_, index) => index + 1));
      expect(events.filter((event) => event.event === "error")).toEqual([]);
      expect(events.at(-1)!.event).toBe("done");
      expect(deltaText(events)).toBe(REPLY);
      const executionId = JSON.parse(events[0]!.data).execution_id as string;
      expect(await getDb().execution.findUnique({ where: { id: executionId } })).toMatchObject({
        status: "succeeded",
        credits: 1,
      });
      // The stored run, read again from the start, is exactly the reply.
      const replay = await readEvents(
        await handler(
          new Request(`http://localhost/api/v1/apps/${app.appId}/conversation/runs/${executionId}/events`, {
            headers: { authorization: `Bearer ${app.key}` },
          }),
        ),
      );
      expect(replay.map((event) => [event.id, event.event, event.data])).toEqual(
        events.map((event) => [event.id, event.event, event.data]),
      );
      await expectUsageMatchesBalance(app, before);
    } finally {
      await closeDb(db);
      await proxy.close();
    }
  }, 60_000);

  it("a turn answered in one piece waits for the database to save it: its answer, its execution and its charge agree", async () => {
    const app = await publishedApp({ billingModel: "slow-model" });
    const before = await credits(app.tenant);
    const proxy = await databaseProxy(process.env.DATABASE_URL!);
    const db = createDb(proxy.url);
    try {
      const handler = createRestHandler({ db: () => db });
      const asked = fake.requests.length;
      const answered = handler(
        new Request(`http://localhost/api/v1/apps/${app.appId}/conversation`, {
          method: "POST",
          headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
          body: JSON.stringify({ message: "How long do refunds take?" }),
        }),
      );
      // Cut while the model answers (after the charge); the run ends while the database is away.
      for (let i = 0; i < 50 && fake.requests.length === asked; i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      await new Promise((resolve) => setTimeout(resolve, 500));
      proxy.cut();
      await new Promise((resolve) => setTimeout(resolve, 6000));
      proxy.restore();
      const response = await answered;
      expect(response.status).toBe(200);
      const body = (await response.json()) as { reply: string; conversation_id: string };
      expect(body.reply).toBe(REPLY);
      expect(
        await getDb().execution.findMany({
          where: { organizationId: app.tenant.organization.id, conversationId: body.conversation_id },
        }),
      ).toMatchObject([{ status: "succeeded", credits: 1, output: REPLY }]);
      await expectUsageMatchesBalance(app, before);
    } finally {
      await closeDb(db);
      await proxy.close();
    }
  }, 60_000);
});
