// The SDK's retries, timeouts, Idempotency-Keys and error classes against a stand-in HTTP server
// that answers as scripted (429 with Retry-After, 503, a dropped connection, a hang), and the
// backoff and Retry-After rules on their own. The real server's 429 and replay: sdk.test.ts.
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConflictError,
  ConnectionError,
  createAtrium,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnprocessableError,
  ValidationError,
} from "@atrium/sdk";
import { collectGarbageEvery, within } from "../garbage";
import { parseRetryAfterSeconds } from "../../packages/sdk/src/errors";
import {
  backoffMs,
  isRetryableRequest,
  isRetryableStatus,
  MAX_RETRY_AFTER_SECONDS,
  retryDelayMs,
} from "../../packages/sdk/src/retry";

describe("backoff and Retry-After", () => {
  it("doubles from 0.5 s up to 8 s, with up to 25 % taken off as jitter", () => {
    expect([0, 1, 2, 3, 4, 5].map((retry) => backoffMs(retry, () => 0))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect(backoffMs(1, () => 1)).toBe(750);
  });

  it("reads Retry-After as seconds, as an HTTP date, and retry-after-ms before either", () => {
    const now = Date.parse("2026-12-04T12:00:00Z");
    const headers = (init: Record<string, string>) => new Headers(init);
    expect(parseRetryAfterSeconds(headers({ "Retry-After": "7" }), now)).toBe(7);
    expect(parseRetryAfterSeconds(headers({ "Retry-After": "Fri, 04 Dec 2026 12:00:03 GMT" }), now)).toBe(3);
    expect(parseRetryAfterSeconds(headers({ "Retry-After": "Fri, 04 Dec 2026 11:59:00 GMT" }), now)).toBe(0);
    expect(parseRetryAfterSeconds(headers({ "Retry-After": "7", "retry-after-ms": "150" }), now)).toBe(0.15);
    expect(parseRetryAfterSeconds(headers({ "Retry-After": "soon" }), now)).toBeNull();
    expect(parseRetryAfterSeconds(headers({ "Retry-After": "-3" }), now)).toBeNull();
    expect(parseRetryAfterSeconds(headers({}), now)).toBeNull();
  });

  it("waits what Retry-After says, the backoff without it, and not at all beyond a minute", () => {
    const noJitter = () => 0;
    expect(retryDelayMs(0, new Headers({ "Retry-After": "2" }), 0, noJitter)).toBe(2000);
    expect(retryDelayMs(3, new Headers({ "Retry-After": "0" }), 0, noJitter)).toBe(0);
    expect(retryDelayMs(1, new Headers(), 0, noJitter)).toBe(1000);
    expect(retryDelayMs(2, null, 0, noJitter)).toBe(2000);
    expect(retryDelayMs(0, new Headers({ "Retry-After": "unreadable" }), 0, noJitter)).toBe(500);
    expect(retryDelayMs(0, new Headers({ "Retry-After": String(MAX_RETRY_AFTER_SECONDS) }), 0, noJitter)).toBe(60_000);
    expect(
      retryDelayMs(0, new Headers({ "Retry-After": String(MAX_RETRY_AFTER_SECONDS + 1) }), 0, noJitter),
    ).toBeNull();
  });

  it("retries idempotent methods and keyed POSTs, never PATCH; 408, 429, 5xx, and 409 only on a POST's retry", () => {
    const keyed = new Headers({ "Idempotency-Key": "k" });
    expect(["GET", "HEAD", "PUT", "DELETE"].every((method) => isRetryableRequest(method, new Headers()))).toBe(true);
    expect(isRetryableRequest("POST", keyed)).toBe(true);
    expect(isRetryableRequest("POST", new Headers())).toBe(false);
    expect(isRetryableRequest("PATCH", keyed)).toBe(false);
    expect([408, 429, 500, 502, 503, 504].every((status) => isRetryableStatus(status, "GET", 0))).toBe(true);
    expect([400, 401, 403, 404, 412, 422].some((status) => isRetryableStatus(status, "POST", 1))).toBe(false);
    expect(isRetryableStatus(409, "POST", 0)).toBe(false);
    expect(isRetryableStatus(409, "POST", 1)).toBe(true);
    expect(isRetryableStatus(409, "DELETE", 1)).toBe(false);
  });
});

interface Seen {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  body: string;
  at: number;
}
type Answer = (request: http.IncomingMessage, response: http.ServerResponse) => void;

const envelope = (status: number, code: string, extra: Record<string, unknown> = {}, headers = {}): Answer => {
  return (_, response) => {
    response.writeHead(status, { "Content-Type": "application/json", "X-Request-Id": `req_${status}`, ...headers });
    response.end(JSON.stringify({ error: { code, message: `${code} happened`, ...extra } }));
  };
};
const ok =
  (body: unknown, status = 200): Answer =>
  (_, response) => {
    response.writeHead(status, { "Content-Type": "application/json" });
    response.end(JSON.stringify(body));
  };
const drop: Answer = (request) => request.socket.destroy();
const hang: Answer = () => undefined;
const KNOWLEDGEBASE = { knowledgebase: { id: "kb_1", name: "Handbook" } };

describe("the SDK against a stand-in server", () => {
  let server: http.Server;
  let base: string;
  let script: Answer[] = [];
  let seen: Seen[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        seen.push({
          method: request.method!,
          path: request.url!,
          idempotencyKey: request.headers["idempotency-key"] as string | undefined,
          body,
          at: Date.now(),
        });
        (script.shift() ?? envelope(500, "server_error"))(request, response);
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  beforeEach(() => {
    script = [];
    seen = [];
  });
  const sdk = (options: { maxRetries?: number; timeout?: number } = {}) =>
    createAtrium({ apiKey: "sk_org_test", baseUrl: base, ...options });

  it("waits out a 429's Retry-After, then succeeds", async () => {
    script = [envelope(429, "rate_limited", {}, { "Retry-After": "1" }), ok({ models: [] })];
    const { data } = await sdk().client.GET("/models");
    expect(data).toEqual({ models: [] });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it("gives up at once on a Retry-After beyond a minute, with the RateLimitError", async () => {
    script = [envelope(429, "rate_limited", {}, { "Retry-After": "120" }), ok({ models: [] })];
    const refused = await sdk()
      .client.GET("/models")
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect(refused).toMatchObject({ status: 429, code: "rate_limited", retryAfter: 120, requestId: "req_429" });
    expect(seen).toHaveLength(1);
  });

  it("retries 503s with backoff, and throws the last one as a ServerError when retries run out", async () => {
    script = [envelope(503, "service_unavailable"), envelope(503, "service_unavailable"), ok({ models: [] })];
    expect((await sdk().client.GET("/models")).data).toEqual({ models: [] });
    expect(seen).toHaveLength(3);

    seen = [];
    script = [envelope(503, "service_unavailable"), envelope(502, "provider_error")];
    const failed = await sdk({ maxRetries: 1 })
      .client.GET("/models")
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ServerError);
    expect(failed).toMatchObject({ status: 502, code: "provider_error", requestId: "req_502" });
    expect(seen).toHaveLength(2);
  });

  it("sends a POST again after a dropped connection with the Idempotency-Key it made for the call", async () => {
    script = [drop, ok(KNOWLEDGEBASE, 201)];
    const { data } = await sdk().client.POST("/knowledgebases", { body: { name: "Handbook" } });
    expect(data.knowledgebase.id).toBe("kb_1");
    expect(seen.map((request) => request.method)).toEqual(["POST", "POST"]);
    expect(seen[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.idempotencyKey).toBe(seen[0]!.idempotencyKey);
    expect(seen[1]!.body).toBe(seen[0]!.body);

    // Another call, another key; a key of the caller's own is sent as it is.
    seen = [];
    script = [ok(KNOWLEDGEBASE, 201), ok(KNOWLEDGEBASE, 201)];
    await sdk().client.POST("/knowledgebases", { body: { name: "Handbook" } });
    await sdk().client.POST("/knowledgebases", { body: { name: "Handbook" }, idempotencyKey: "mine-1" });
    expect(seen[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.idempotencyKey).toBe("mine-1");
  });

  it("sends an upload again after a 503 with the same multipart body and key", async () => {
    const added = { source: { id: "src_1", name: "refunds.md" }, status: "processing" };
    script = [envelope(503, "service_unavailable", {}, { "Retry-After": "0" }), ok(added, 202)];
    const file = new File(["# Refunds\n\nWithin 14 days."], "refunds.md", { type: "text/markdown" });
    expect(await sdk().sources.upload("kb_1", file)).toEqual(added);
    expect(seen).toHaveLength(2);
    expect(seen[0]!.body).toContain("Within 14 days.");
    expect(seen[1]!.body).toBe(seen[0]!.body);
    expect(seen[1]!.idempotencyKey).toBe(seen[0]!.idempotencyKey);
  });

  it("times out an attempt that hangs and retries it; without retries the TimeoutError is thrown", async () => {
    script = [hang, ok({ models: [] })];
    expect((await sdk().client.GET("/models", { timeout: 300 })).data).toEqual({ models: [] });
    expect(seen).toHaveLength(2);

    seen = [];
    script = [hang];
    const failed = await sdk({ timeout: 300, maxRetries: 0 })
      .client.GET("/models")
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(TimeoutError);
    expect(failed).toBeInstanceOf(ConnectionError);
    expect(failed).toMatchObject({ status: null, code: "timeout", requestId: null });
    expect(seen).toHaveLength(1);
  });

  describe("while the garbage collector runs", () => {
    let stopCollecting = () => {};
    beforeEach(() => void (stopCollecting = collectGarbageEvery(20)));
    afterEach(() => stopCollecting());

    it("still times out an attempt that hangs", async () => {
      script = [hang];
      const failed = await within(
        3_000,
        sdk({ timeout: 300, maxRetries: 0 })
          .client.GET("/models")
          .catch((error: unknown) => error),
      );
      expect(failed).toBeInstanceOf(TimeoutError);
    });

    it("still ends a hanging request when the caller aborts", async () => {
      script = [hang];
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const aborted = await within(
        3_000,
        sdk()
          .client.GET("/models", { signal: controller.signal })
          .catch((error: unknown) => error),
      );
      expect(aborted).toMatchObject({ name: "AbortError" });
    });

    it("still ends a stream that waits for its next event when the caller aborts", async () => {
      script = [
        (_, response) => {
          response.writeHead(200, { "Content-Type": "text/event-stream" });
          response.write(
            `event: run\nid: 1\ndata: ${JSON.stringify({ execution_id: "ex_1", conversation_id: "co_1" })}\n\n`,
          );
        },
      ];
      const controller = new AbortController();
      const events: string[] = [];
      const followed = (async () => {
        for await (const event of sdk().apps.converse(
          "app_1",
          { message: "Refunds?" },
          { signal: controller.signal },
        )) {
          events.push(event.type);
          setTimeout(() => controller.abort(), 300);
        }
      })().catch((error: unknown) => error);
      expect(await within(3_000, followed)).toMatchObject({ name: "AbortError" });
      expect(events).toEqual(["run"]);
      expect(seen).toHaveLength(1);
    });
  });

  it("throws a ConnectionError (not a bare TypeError) when nothing listens, after its retries", async () => {
    const closed = http.createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    const failed = await createAtrium({ apiKey: "k", baseUrl: `http://127.0.0.1:${port}`, maxRetries: 1 })
      .client.GET("/models")
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ConnectionError);
    expect(failed).toMatchObject({ status: null, code: "connection_error" });
    expect((failed as Error).message).toMatch(/ECONNREFUSED/);
    expect((failed as Error).cause).toBeInstanceOf(TypeError);
  });

  it("never retries a PATCH, a refusal, or a 409 on a first attempt", async () => {
    script = [envelope(503, "service_unavailable")];
    const patched = await sdk()
      .client.PATCH("/agents/{agentId}/draft", {
        params: { path: { agentId: "00000000-0000-4000-8000-000000000000" } },
        body: { name: "Renamed" },
      })
      .catch((error: unknown) => error);
    expect(patched).toBeInstanceOf(ServerError);
    script = [envelope(409, "conflict")];
    const conflict = await sdk()
      .client.POST("/knowledgebases", { body: { name: "Handbook" } })
      .catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(ConflictError);
    script = [envelope(404, "not_found")];
    expect(
      await sdk()
        .client.GET("/models")
        .catch((error: unknown) => error),
    ).toBeInstanceOf(NotFoundError);
    expect(seen.map((request) => request.method)).toEqual(["PATCH", "POST", "GET"]);
  });

  it("retries a 409 on a POST's retry: the first attempt, cut off, may still hold the key", async () => {
    script = [drop, envelope(409, "conflict"), ok(KNOWLEDGEBASE, 201)];
    const { data } = await sdk().client.POST("/knowledgebases", { body: { name: "Handbook" } });
    expect(data).toEqual(KNOWLEDGEBASE);
    expect(new Set(seen.map((request) => request.idempotencyKey)).size).toBe(1);
    expect(seen).toHaveLength(3);
  });

  it("stops retrying when the caller aborts, throwing the abort", async () => {
    script = [envelope(503, "service_unavailable", {}, { "Retry-After": "30" })];
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const aborted = await sdk()
      .client.GET("/models", { signal: controller.signal })
      .catch((error: unknown) => error);
    expect(aborted).toMatchObject({ name: "AbortError" });
    expect(seen).toHaveLength(1);
  });

  it("takes a stream silent past its idle timeout as dropped and resumes it after the last event", async () => {
    const sse = (...events: [string, number, unknown][]) =>
      events.map(([event, id, data]) => `event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`).join("");
    const lastEventIds: (string | undefined)[] = [];
    script = [
      (_, response) => {
        response.writeHead(200, { "Content-Type": "text/event-stream" });
        response.write(sse(["run", 1, { execution_id: "ex_1", conversation_id: "co_1" }]));
      },
      (request, response) => {
        lastEventIds.push(request.headers["last-event-id"] as string | undefined);
        response.writeHead(200, { "Content-Type": "text/event-stream" });
        response.end(
          sse(["delta", 2, { text: "Fourteen days." }], ["done", 3, { reply: "Fourteen days.", execution_id: "ex_1" }]),
        );
      },
    ];
    const events = [];
    for await (const event of sdk().apps.converse("app_1", { message: "Refunds?" }, { idleTimeout: 300 }))
      events.push(event.type);
    expect(events).toEqual(["run", "delta", "done"]);
    expect(seen.map((request) => `${request.method} ${request.path}`)).toEqual([
      "POST /api/v1/apps/app_1/conversation",
      "GET /api/v1/apps/app_1/conversation/runs/ex_1/events",
    ]);
    expect(seen[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(lastEventIds).toEqual(["1"]);
  });

  it("throws one class per kind of error, with the code, status, request id and typed extras", async () => {
    const problems = [{ path: "name", message: "Required" }];
    script = [
      envelope(400, "invalid_request", { problems }),
      envelope(401, "invalid_api_key"),
      envelope(403, "plan_limit", { limit: 3, used: 3 }),
      envelope(422, "invalid_workflow", { feedback: ["a loop"] }),
    ];
    const failures = [];
    for (let index = 0; index < 4; index++)
      failures.push(
        await sdk()
          .client.GET("/models")
          .catch((error: unknown) => error),
      );
    const [invalid, unauthenticated, limited, unprocessable] = failures;
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).problems).toEqual(problems);
    expect(invalid).toMatchObject({ status: 400, code: "invalid_request", requestId: "req_400" });
    expect(unauthenticated).toBeInstanceOf(AuthenticationError);
    expect(limited).toBeInstanceOf(PermissionError);
    const permission = limited as PermissionError;
    expect(permission.is("plan_limit") && permission.extras.limit).toBe(3);
    expect(unprocessable).toBeInstanceOf(UnprocessableError);
    expect(unprocessable).toMatchObject({ status: 422, code: "invalid_workflow", extras: { feedback: ["a loop"] } });
  });
});
