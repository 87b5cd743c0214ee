// The per-key limit of 120 requests per minute (RATE_LIMIT_PER_MINUTE at its default), its
// headers, and that several server processes sharing one database enforce one limit.
import { afterAll, describe, expect, it, vi } from "vitest";
import { createRestHandler } from "@/server/adapters/rest";
import { KEY_CHECK_BATCH } from "@/server/auth/authenticate";
import { hitRateLimit } from "@/server/auth/rate-limit";
import { closeDb, createDb, getDb, type Db } from "@/server/db";
import {
  api,
  awayFromWindowEdge,
  issueKey,
  newOrganization,
  uniqueSuffix,
  walFlushCounter,
  type ApiResponse,
} from "../helpers";

const LIMIT = 120;

function expectRateLimited(response: ApiResponse): void {
  expect(response.status).toBe(429);
  expect(response.body.error.code).toBe("rate_limited");
  expect(response.headers.get("x-request-id")).toBeTruthy();
  const retryAfter = response.headers.get("retry-after");
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(120);
  expect(response.headers.get("ratelimit-limit")).toBe(String(LIMIT));
  expect(response.headers.get("ratelimit-remaining")).toBe("0");
  expect(Number(response.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(1);
}

describe("RateLimit headers", () => {
  it("are on every successful authenticated response, with Remaining going down", async () => {
    const tenant = await newOrganization();
    await awayFromWindowEdge(5);
    const first = await api("GET", "/models", { key: tenant.orgKey.secret });
    const second = await api("GET", "/models", { key: tenant.orgKey.secret });

    for (const response of [first, second]) {
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-limit")).toBe("120");
      const reset = Number(response.headers.get("ratelimit-reset"));
      expect(Number.isInteger(reset)).toBe(true);
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
      expect(response.headers.get("retry-after")).toBeNull();
    }
    expect(first.headers.get("ratelimit-remaining")).toBe("119");
    expect(second.headers.get("ratelimit-remaining")).toBe("118");
  });

  it("are not on the unauthenticated OpenAPI document", async () => {
    const response = await api("GET", "/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit-limit")).toBeNull();
  });
});

describe("the limit of 120 per minute per key", () => {
  it("allows 120 requests and refuses the 121st with 429, Retry-After and RateLimit-*", async () => {
    const tenant = await newOrganization();
    await awayFromWindowEdge(15);
    for (let i = 1; i <= LIMIT; i++) {
      const response = await api("GET", "/models", { key: tenant.orgKey.secret });
      expect(response.status, `request ${i}`).toBe(200);
      expect(response.headers.get("ratelimit-remaining")).toBe(String(LIMIT - i));
    }

    const refused = await api("GET", "/models", { key: tenant.orgKey.secret });
    expectRateLimited(refused);
    expect(refused.body.error.message).toMatch(/too many requests/i);
    // Still refused: a refusal frees no room.
    expectRateLimited(await api("GET", "/models", { key: tenant.orgKey.secret }));

    // The limit is per key: the organization's other key is unaffected.
    const other = await api("GET", "/models", { key: tenant.personalKey.secret });
    expect(other.status).toBe(200);
    expect(other.headers.get("ratelimit-remaining")).toBe("119");
  });
});

describe("several server processes", () => {
  const dbs: Db[] = [];
  function server(): (request: Request) => Promise<Response> {
    const db = createDb(process.env.DATABASE_URL!);
    dbs.push(db);
    return createRestHandler({ db: () => db });
  }
  afterAll(async () => {
    await Promise.all(dbs.map((db) => closeDb(db)));
  });

  it("share one limit: alternating between two instances, the 121st request is refused by either", async () => {
    const [a, b] = [server(), server()];
    const tenant = await newOrganization();
    await awayFromWindowEdge(15);
    for (let i = 1; i <= LIMIT; i++) {
      const response = await api("GET", "/models", { key: tenant.orgKey.secret, handler: i % 2 ? a : b });
      expect(response.status, `request ${i}`).toBe(200);
      expect(response.headers.get("ratelimit-remaining")).toBe(String(LIMIT - i));
    }
    expectRateLimited(await api("GET", "/models", { key: tenant.orgKey.secret, handler: a }));
    expectRateLimited(await api("GET", "/models", { key: tenant.orgKey.secret, handler: b }));
  });

  it("share one limit under concurrent load: exactly 120 of 140 simultaneous requests pass", async () => {
    const [a, b] = [server(), server()];
    const tenant = await newOrganization();
    await awayFromWindowEdge(15);
    const responses = await Promise.all(
      Array.from({ length: 140 }, (_, i) =>
        api("GET", "/models", { key: tenant.personalKey.secret, handler: i % 2 ? a : b }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(120);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    for (const response of responses.filter((r) => r.status === 429)) expectRateLimited(response);
  });
});

describe("requests that arrive together", () => {
  it("are checked at most KEY_CHECK_BATCH to a statement, every one counted", async () => {
    // Five keys, so that 450 requests stay within each key's limit of 120.
    const tenant = await newOrganization();
    const keys = await Promise.all(
      Array.from({ length: 5 }, () => issueKey(tenant.operator, { kind: "organization" })),
    );
    await awayFromWindowEdge(20);
    const query = vi.spyOn(getDb().pool, "query");
    let responses: ApiResponse[];
    let perStatement: number[];
    try {
      responses = await Promise.all(
        Array.from({ length: 450 }, (_, i) => api("GET", "/models", { key: keys[i % 5]!.secret })),
      );
      // A key looked up by an earlier statement is kept and counted without its lookup.
      perStatement = query.mock.calls
        .filter(([config]) => ["atrium_key_check", "atrium_key_count"].includes((config as { name?: string }).name!))
        .map(([config]) =>
          ((config as unknown as { values: [string[], number[]] }).values[1] ?? []).reduce(
            (sum, hits) => sum + hits,
            0,
          ),
        );
    } finally {
      query.mockRestore();
    }
    expect(responses.map((response) => response.status)).toEqual(Array(450).fill(200));
    expect(perStatement.reduce((sum, n) => sum + n, 0)).toBe(450);
    expect(Math.max(...perStatement)).toBe(KEY_CHECK_BATCH);
    for (const key of keys) {
      const remaining = responses
        .filter((_, i) => keys[i % 5] === key)
        .map((response) => Number(response.headers.get("ratelimit-remaining")));
      expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 90 }, (_, i) => LIMIT - 90 + i));
    }
  });

  it("are checked and counted in one statement, each with its own count", async () => {
    const tenant = await newOrganization();
    await awayFromWindowEdge(15);
    const query = vi.spyOn(getDb().pool, "query");
    let responses: ApiResponse[];
    try {
      responses = await Promise.all(
        Array.from({ length: 20 }, () => api("GET", "/models", { key: tenant.orgKey.secret })),
      );
      const keyChecks = query.mock.calls.filter(
        ([config]) => (config as { name?: string }).name === "atrium_key_check",
      );
      expect(keyChecks).toHaveLength(1);
    } finally {
      query.mockRestore();
    }
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    const remaining = responses
      .map((response) => Number(response.headers.get("ratelimit-remaining")))
      .sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => LIMIT - 20 + i));
  });

  it("of several keys, valid and not, each get their own answer", async () => {
    const [first, second] = [await newOrganization(), await newOrganization()];
    await awayFromWindowEdge(15);
    const keys = [first.orgKey.secret, second.orgKey.secret, "sk_org_nothing_matches_this", first.orgKey.secret];
    const responses = await Promise.all(keys.map((key) => api("GET", "/models", { key })));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 401, 200]);
    expect(responses[2]!.body.error.code).toBe("invalid_api_key");
    expect([responses[0], responses[3]].map((response) => response!.headers.get("ratelimit-remaining")).sort()).toEqual(
      ["118", "119"],
    );
    expect(responses[1]!.headers.get("ratelimit-remaining")).toBe("119");
  });
});

describe("the counting statements' commits", () => {
  it("do not wait for a WAL flush, while other writes still do, and leave the connection's setting as it was", async (context) => {
    // One connection, so its own I/O statistics (PostgreSQL 18) show what its commits waited for.
    const db = createDb(process.env.DATABASE_URL!, 1);
    try {
      const walFlushes = await walFlushCounter(db);
      // Reported as skipped, not passed, where the statistics are missing (before PostgreSQL 18).
      if (!walFlushes) return context.skip();
      const handler = createRestHandler({ db: () => db });
      const tenant = await newOrganization();
      const before = await walFlushes();
      for (let i = 0; i < 10; i++)
        expect((await api("GET", "/models", { key: tenant.orgKey.secret, handler })).status).toBe(200);
      const afterRequests = await walFlushes();
      for (let i = 0; i < 3; i++)
        await db.pool.query("update api_keys set name = name where id = $1", [tenant.orgKey.id]);
      const afterWrites = await walFlushes();

      expect(afterRequests - before).toBe(0);
      expect(afterWrites - afterRequests).toBeGreaterThan(0);
      const setting = await db.pool.query<{ synchronous_commit: string }>("show synchronous_commit");
      expect(setting.rows[0]!.synchronous_commit).toBe("on");
    } finally {
      await closeDb(db);
    }
  });
});

describe("hitRateLimit (sliding window)", () => {
  // A fixed clock in the middle of a window, far from now, so the outcome does not depend on time.
  const windowStart = (Math.floor(Date.now() / 60_000) + 10_000) * 60_000;

  /** A request made Retry-After seconds later is allowed; one made a second earlier is not. */
  async function expectHonestRetryAfter(db: Db, bucket: string, limit: number, refusedAt: number, retryAfter: number) {
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect((await hitRateLimit(db, bucket, limit, refusedAt + (retryAfter - 1) * 1000)).allowed).toBe(false);
    expect((await hitRateLimit(db, bucket, limit, refusedAt + retryAfter * 1000)).allowed).toBe(true);
  }

  it("refuses beyond the limit without counting the refusal, with an honest Retry-After", async () => {
    const db = getDb();
    const bucket = `test:${uniqueSuffix()}`;
    const t0 = windowStart + 30_000; // halfway through window W
    for (let i = 1; i <= 3; i++) expect((await hitRateLimit(db, bucket, 3, t0)).allowed).toBe(true);
    const refused = await hitRateLimit(db, bucket, 3, t0);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, limit: 3 });
    expect((await hitRateLimit(db, bucket, 3, t0)).allowed).toBe(false);
    const rows = await db.rateLimitCounter.findMany({ where: { bucket } });
    expect(rows.map((row) => row.count)).toEqual([3]);
    await expectHonestRetryAfter(db, bucket, 3, t0, refused.retryAfterSeconds!);
  });

  it("weighs the previous window by how much of it is still inside the last 60 seconds", async () => {
    const db = getDb();
    const bucket = `test:${uniqueSuffix()}`;
    for (let i = 1; i <= 3; i++) expect((await hitRateLimit(db, bucket, 3, windowStart + 30_000)).allowed).toBe(true);

    // Halfway through W+1 the previous window weighs 3 * 0.5 = 1.5: one more request fits, not two.
    const t1 = windowStart + 90_000;
    expect(await hitRateLimit(db, bucket, 3, t1)).toMatchObject({ allowed: true, remaining: 0 });
    const refused = await hitRateLimit(db, bucket, 3, t1);
    expect(refused.allowed).toBe(false);
    await expectHonestRetryAfter(db, bucket, 3, t1, refused.retryAfterSeconds!);

    // Two windows later nothing of W is left.
    expect(await hitRateLimit(db, `${bucket}`, 3, windowStart + 185_000)).toMatchObject({ allowed: true });
  });

  it("keeps buckets apart", async () => {
    const db = getDb();
    const t0 = windowStart + 10_000;
    const first = `test:${uniqueSuffix()}`;
    expect((await hitRateLimit(db, first, 1, t0)).allowed).toBe(true);
    expect((await hitRateLimit(db, first, 1, t0)).allowed).toBe(false);
    expect((await hitRateLimit(db, `test:${uniqueSuffix()}`, 1, t0)).allowed).toBe(true);
  });
});
