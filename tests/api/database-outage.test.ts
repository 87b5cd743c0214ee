// A database outage as a client and an operator see it. A REST door whose database refuses
// connections (a stopped PostgreSQL: nothing listens on its port) answers every request 503
// `service_unavailable` in the envelope with Retry-After, and the log says so once per kind of
// failure every few seconds, not once per request. A connection PostgreSQL terminates under a
// query (what a stop or restart does to the connections it had) maps to the same answer, and so
// does a statement past the DATABASE_STATEMENT_TIMEOUT_MS backstop (here one stuck behind a lock).
import { createServer } from "node:net";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { createRestHandler } from "@/server/adapters/rest";
import { closeDb, createDb, getDb } from "@/server/db";
import { toAppError } from "@/server/errors";
import { LOG_THROTTLE_MS } from "@/server/observability/log";
import { api, newOrganization } from "../helpers";
import { email } from "../provisioning-helpers";

const lines: { level: number; msg: string; [field: string]: unknown }[] = [];
(globalThis as { atriumLogger?: pino.Logger }).atriumLogger = pino(
  { base: { service: "atrium" } },
  new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as (typeof lines)[number]);
      done();
    },
  }),
);

const WARN = 40;

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const down = createDb(`postgresql://atrium:unused@127.0.0.1:${await closedPort()}/atrium`);
const downDoor = createRestHandler({ db: () => down });

afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await closeDb(down);
});

describe("a database outage", () => {
  it("answers 503 service_unavailable with Retry-After, and logs one line per kind every few seconds", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const requests: [string, string, unknown?][] = [
      ["GET", "/models"],
      ["GET", "/end-users"],
      ["POST", "/end-users", { email: email() }],
      ["GET", "/knowledgebases"],
      ["GET", "/audit-events"],
    ];
    vi.useFakeTimers({ toFake: ["Date"] });
    lines.length = 0;
    for (let round = 0; round < 8; round++) {
      for (const [method, path, body] of requests) {
        const response = await api(method, path, { key, body, handler: downDoor });
        expect(response.status, `${method} ${path}`).toBe(503);
        expect(response.body).toEqual({ error: { code: "service_unavailable", message: expect.any(String) } });
        expect(response.headers.get("retry-after")).toBe("5");
        expect(response.headers.get("x-request-id")).toEqual(expect.any(String));
      }
    }
    // Forty failed requests, one line (pg's own connection error: ECONNREFUSED).
    expect(lines.filter((line) => line.level >= WARN)).toEqual([
      expect.objectContaining({ event: "database_unavailable", reason: "ECONNREFUSED" }),
    ]);

    // A few seconds on, still down: one more line, counting the ones left out.
    vi.setSystemTime(Date.now() + LOG_THROTTLE_MS + 1);
    lines.length = 0;
    for (const [method, path, body] of requests) {
      expect((await api(method, path, { key, body, handler: downDoor })).status).toBe(503);
    }
    expect(lines.filter((line) => line.level >= WARN)).toEqual([
      expect.objectContaining({ event: "database_unavailable", reason: "ECONNREFUSED", suppressed: 39 }),
    ]);

    // The same requests through a door whose database is up succeed: nothing was written meanwhile.
    expect((await api("GET", "/end-users", { key })).body.endUsers).toEqual([]);
  });

  it("maps a connection PostgreSQL terminates under a query (57P01) to service_unavailable", async () => {
    const db = getDb();
    // Each query sleeps for its own length, so a backend already ended (still listed a moment
    // while it exits) is never taken for the next one.
    const terminateSleeper = async (seconds: string) => {
      // Wait until the query is running, then end its backend as a stopping server does.
      for (let tries = 0; tries < 200; tries++) {
        const { rowCount } = await db.pool.query(
          `select pg_terminate_backend(pid) from pg_stat_activity
           where query like $1 and pid <> pg_backend_pid() and state = 'active'`,
          [`%pg_sleep(${seconds})%`],
        );
        if (rowCount) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error("the query never started");
    };
    const throughPg = db.pool.query("select pg_sleep(30.1)").catch((error: unknown) => error);
    await terminateSleeper("30.1");
    const throughPrisma = db.$queryRaw`select pg_sleep(30.2)::text`.catch((error: unknown) => error);
    await terminateSleeper("30.2");
    for (const error of [await throughPg, await throughPrisma]) {
      const answer = toAppError(error);
      expect(answer.code).toBe("service_unavailable");
      expect(answer.status).toBe(503);
      expect(answer.headers).toEqual({ "Retry-After": "5" });
    }
    // The pool replaces the connections it lost: the next request is answered.
    expect((await db.$queryRaw<{ one: number }[]>`select 1 as one`)[0]!.one).toBe(1);
  });

  it("ends a statement stuck past the statement timeout with 503, freeing its connection and writing nothing", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const created = await api("POST", "/end-users", { key, body: { email: email(), fullName: "Before" } });
    expect(created.status).toBe(201);
    const endUserId: string = created.body.endUser.id;

    const impatient = createDb(process.env.DATABASE_URL!, 1, 1000);
    const impatientDoor = createRestHandler({ db: () => impatient });
    const holder = await getDb().pool.connect();
    try {
      await holder.query("begin");
      await holder.query("select id from end_users where id = $1 for update", [endUserId]);
      lines.length = 0;
      const stuck = await api("PATCH", `/end-users/${endUserId}`, {
        key,
        body: { fullName: "After" },
        handler: impatientDoor,
      });
      expect(stuck.status).toBe(503);
      expect(stuck.body).toEqual({
        error: { code: "service_unavailable", message: expect.stringContaining("too long") },
      });
      expect(stuck.headers.get("retry-after")).toBe("5");
      expect(lines.filter((line) => line.level >= WARN)).toEqual([
        expect.objectContaining({ event: "database_unavailable", reason: "statement_timeout" }),
      ]);
    } finally {
      await holder.query("rollback");
      holder.release();
    }
    // Its one connection was given back, and the refused write left nothing behind.
    const after = await api("GET", `/end-users/${endUserId}`, { key, handler: impatientDoor });
    expect(after.status).toBe(200);
    expect(after.body.endUser.fullName).toBe("Before");
    await closeDb(impatient);
  });

  it("answers an audit export whose first page cannot be read with 503, not a 200 that breaks off", async () => {
    const tenant = await newOrganization();
    const impatient = createDb(process.env.DATABASE_URL!, 1, 1000);
    const holder = await getDb().pool.connect();
    try {
      await holder.query("begin");
      await holder.query("lock table audit_events in access exclusive mode");
      const response = await api("GET", "/audit-events/export?format=jsonl", {
        key: tenant.orgKey.secret,
        handler: createRestHandler({ db: () => impatient }),
      });
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ error: { code: "service_unavailable", message: expect.any(String) } });
    } finally {
      await holder.query("rollback");
      holder.release();
      await closeDb(impatient);
    }
  });
});
