// Our own server's direct path (src/server/http/listener.ts): the API's paths answered by their
// handlers without Next.js, over real HTTP, with what Next.js's path gave them — the security
// headers of next.config.mjs, X-Request-Id, the body bounds and the client address rule — and
// every other path handed to the fallback (Next.js in production).
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import apiSecurityHeaders from "@/lib/api-security-headers.json";
import { MAX_JSON_BODY_BYTES } from "@/schemas/limits";
import { createRequestListener } from "@/server/http/listener";
import { newOrganization } from "../helpers";

/** Answers 299 with the X-Forwarded-For it saw, so a test can tell the fallback answered. */
function fallback(message: http.IncomingMessage, response: http.ServerResponse) {
  response
    .writeHead(299, { "content-type": "application/json" })
    .end(JSON.stringify({ fallback: true, forwardedFor: message.headers["x-forwarded-for"] ?? null }));
}

async function listen(trustProxy: number): Promise<{ server: http.Server; base: string }> {
  const server = http.createServer(createRequestListener({ trustProxy, fallback }));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let direct: { server: http.Server; base: string };
let behindProxy: { server: http.Server; base: string };
let key: string;

beforeAll(async () => {
  [direct, behindProxy] = await Promise.all([listen(0), listen(1)]);
  key = (await newOrganization()).orgKey.secret;
});

afterAll(async () => {
  for (const { server } of [direct, behindProxy]) {
    server.closeAllConnections();
    server.close();
  }
});

function expectSecurityHeaders(response: Response) {
  for (const [name, value] of Object.entries(apiSecurityHeaders)) expect(response.headers.get(name)).toBe(value);
}

describe("the API's paths, answered directly", () => {
  it("serves GET /api/v1/models with the security headers and the client's request id", async () => {
    const response = await fetch(`${direct.base}/api/v1/models`, {
      headers: { authorization: `Bearer ${key}`, "x-request-id": "trace-42" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBe("trace-42");
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("ratelimit-limit")).toBeTruthy();
    expectSecurityHeaders(response);
    expect(((await response.json()) as { models: unknown[] }).models.length).toBeGreaterThan(0);
  });

  it("writes an answer's text as the handler made it: every byte, non-ASCII too, with its exact length", async () => {
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const fullName = "Zoë Ångström 🚀 “quoted”";
    const created = await fetch(`${direct.base}/api/v1/end-users`, {
      method: "POST",
      headers,
      body: JSON.stringify({ email: "zoe@example.com", fullName }),
    });
    expect(created.status).toBe(201);
    const { endUser } = (await created.json()) as { endUser: { id: string } };
    // The server writes the text it holds, without reading it back out of the Response's stream.
    const readBack = vi.spyOn(Response.prototype, "arrayBuffer");
    const read = await fetch(`${direct.base}/api/v1/end-users/${endUser.id}`, { headers });
    expect(readBack).not.toHaveBeenCalled();
    readBack.mockRestore();
    const bytes = Buffer.from(await read.arrayBuffer());
    expect(read.status).toBe(200);
    expect(Number(read.headers.get("content-length"))).toBe(bytes.length);
    expect(JSON.parse(bytes.toString("utf8")).endUser.fullName).toBe(fullName);
    const refused = await fetch(`${direct.base}/api/v1/end-users/${endUser.id}`, {
      method: "PATCH",
      headers,
      body: JSON.stringify({ fullName: "x".repeat(100_000) }),
    });
    const refusal = Buffer.from(await refused.arrayBuffer());
    expect(refused.status).toBe(400);
    expect(Number(refused.headers.get("content-length"))).toBe(refusal.length);
    expect(JSON.parse(refusal.toString("utf8")).error.code).toBe("invalid_request");
  });

  it("gives a request without a usable id a fresh one, and answers refusals in the envelope", async () => {
    const response = await fetch(`${direct.base}/api/v1/models`, { headers: { "x-request-id": "not valid!" } });
    expect(response.status).toBe(401);
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expectSecurityHeaders(response);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
  });

  it("answers an unknown /api/v1 path 404 not_found itself", async () => {
    const response = await fetch(`${direct.base}/api/v1/no-such-thing`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });

  it("refuses a JSON body over the cap with 413 and malformed JSON with 400, writing nothing", async () => {
    const before = await fetch(`${direct.base}/api/v1/end-users?limit=200`, {
      headers: { authorization: `Bearer ${key}` },
    }).then((r) => r.json() as Promise<{ endUsers: unknown[] }>);
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const oversize = await fetch(`${direct.base}/api/v1/end-users`, {
      method: "POST",
      headers,
      body: Buffer.alloc(MAX_JSON_BODY_BYTES + 1, 0x20),
    });
    expect(oversize.status).toBe(413);
    expect(((await oversize.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    const malformed = await fetch(`${direct.base}/api/v1/end-users`, { method: "POST", headers, body: '{"email": ' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    const after = await fetch(`${direct.base}/api/v1/end-users?limit=200`, {
      headers: { authorization: `Bearer ${key}` },
    }).then((r) => r.json() as Promise<{ endUsers: unknown[] }>);
    expect(after.endUsers).toEqual(before.endUsers);
  });

  it("serves the health check directly", async () => {
    const response = await fetch(`${direct.base}/api/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
    expectSecurityHeaders(response);
  });
});

describe("everything else goes to the fallback", () => {
  it.each(["/", "/console/agents", "/api/v1/models/", "/api/bench/models", "/_next/static/x.js"])(
    "%s",
    async (path) => {
      const response = await fetch(`${direct.base}${path}`);
      expect(response.status).toBe(299);
    },
  );

  it("with no trusted proxy, X-Forwarded-For is the socket's address, whatever the client sent", async () => {
    const response = await fetch(`${direct.base}/`, { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(((await response.json()) as { forwardedFor: string }).forwardedFor).toMatch(/127\.0\.0\.1$/);
  });

  it("behind a trusted proxy, X-Forwarded-For is left as the proxy wrote it", async () => {
    const response = await fetch(`${behindProxy.base}/`, { headers: { "x-forwarded-for": "203.0.113.9, 10.0.0.1" } });
    expect(((await response.json()) as { forwardedFor: string }).forwardedFor).toBe("203.0.113.9, 10.0.0.1");
  });
});
