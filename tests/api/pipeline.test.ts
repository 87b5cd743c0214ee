// The request pipeline of /api/v1 seen from a client: every refusal's status, error code,
// envelope and headers, and the order in which the checks run.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createRestHandler } from "@/server/adapters/rest";
import { closeDb, createDb, getDb } from "@/server/db";
import { logger } from "@/server/observability/log";
import { revokeApiKey } from "@/server/services/identity/api-keys";
import { removeMember } from "@/server/services/identity/members";
import { updateOrganization } from "@/server/services/org/organizations";
import { addPerson, api, expectError, issueKey, newOrganization, type ApiResponse } from "../helpers";
import { listenOnLoopback } from "../loopback-server";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The shared status/code check plus what every refusal of the pipeline carries: message, JSON, request id, WWW-Authenticate. */
function expectRefusal(response: ApiResponse, status: number, code: string): void {
  expectError(response, status, code);
  expect(typeof response.body.error.message).toBe("string");
  expect(response.body.error.message.length).toBeGreaterThan(0);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(response.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
  // RFC 6750: every 401 names the scheme it wants; other refusals do not.
  if (status === 401) expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="atrium"/);
  else expect(response.headers.get("www-authenticate")).toBeNull();
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("authentication failures", () => {
  it("refuses a request without an Authorization header with unauthorized", async () => {
    const response = await api("GET", "/models");
    expectRefusal(response, 401, "unauthorized");
    expect(response.body.error.message).toContain("Authorization: Bearer");
  });

  it.each([
    ["a Basic scheme", "Basic YWxhZGRpbjpvcGVuc2VzYW1l"],
    ["Bearer with no token", "Bearer"],
    ["Bearer followed by spaces only", "Bearer    "],
    ["a token with an inner space", "Bearer sk_org_abc def"],
    ["a bare token without the scheme", "sk_org_abcdef"],
  ])("refuses %s with unauthorized", async (_label, header) => {
    const response = await api("GET", "/models", { headers: { authorization: header } });
    expectRefusal(response, 401, "unauthorized");
  });

  it("refuses a well-formed but unknown secret with invalid_api_key", async () => {
    const tenant = await newOrganization();
    const response = await api("GET", "/models", { key: `${tenant.orgKey.secret}x` });
    expectRefusal(response, 401, "invalid_api_key");
  });

  it("accepts the scheme name in any case", async () => {
    const tenant = await newOrganization();
    const response = await api("GET", "/models", { headers: { authorization: `bearer ${tenant.orgKey.secret}` } });
    expect(response.status).toBe(200);
  });

  it("refuses a key on its next request once it is revoked (api_key_revoked)", async () => {
    const tenant = await newOrganization();
    expect((await api("GET", "/models", { key: tenant.orgKey.secret })).status).toBe(200);

    await revokeApiKey(getDb(), tenant.operator, { keyId: tenant.orgKey.id });

    expectRefusal(await api("GET", "/models", { key: tenant.orgKey.secret }), 401, "api_key_revoked");
    // The organization's other keys keep working.
    expect((await api("GET", "/models", { key: tenant.personalKey.secret })).status).toBe(200);
  });

  it("refuses a personal key once its member has left (member_removed); organization keys still work", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const key = await issueKey(tenant.operator, { kind: "personal", memberId: person.member.id });
    expect((await api("GET", "/models", { key: key.secret })).status).toBe(200);

    await removeMember(getDb(), tenant.operator, { memberId: person.member.id });

    expectRefusal(await api("GET", "/models", { key: key.secret }), 401, "member_removed");
    expect((await api("GET", "/models", { key: tenant.orgKey.secret })).status).toBe(200);
  });

  it("refuses keys of an organization on the free plan with feature_not_available", async () => {
    const tenant = await newOrganization({ plan: "free" });
    expectRefusal(await api("GET", "/models", { key: tenant.orgKey.secret }), 403, "feature_not_available");
    expectRefusal(await api("GET", "/models", { key: tenant.personalKey.secret }), 403, "feature_not_available");
  });

  it("serves the agency plan", async () => {
    const tenant = await newOrganization({ plan: "agency" });
    expect((await api("GET", "/models", { key: tenant.orgKey.secret })).status).toBe(200);
  });

  it("refuses keys with api_disabled when the organization turns the API off, and serves again when turned on", async () => {
    const tenant = await newOrganization({ settings: { apiEnabled: false } });
    expectRefusal(await api("GET", "/models", { key: tenant.orgKey.secret }), 403, "api_disabled");

    await updateOrganization(getDb(), tenant.operator, { apiEnabled: true });
    expect((await api("GET", "/models", { key: tenant.orgKey.secret })).status).toBe(200);
  });

  it("does not count refused requests against the key's rate limit", async () => {
    const tenant = await newOrganization({ settings: { apiEnabled: false } });
    for (let i = 0; i < 130; i++)
      expectRefusal(await api("GET", "/models", { key: tenant.orgKey.secret }), 403, "api_disabled");

    await updateOrganization(getDb(), tenant.operator, { apiEnabled: true });
    const served = await api("GET", "/models", { key: tenant.orgKey.secret });
    expect(served.status).toBe(200);
    expect(served.headers.get("ratelimit-remaining")).toBe("119");
  });

  it("does not add rate-limit headers to requests refused before the limiter", async () => {
    const response = await api("GET", "/models", { key: "sk_org_unknown" });
    expect(response.status).toBe(401);
    expect(response.headers.get("ratelimit-limit")).toBeNull();
  });
});

describe("order of checks", () => {
  it("says api_key_revoked, not feature_not_available, for a revoked key of a free-plan organization", async () => {
    const tenant = await newOrganization({ plan: "free", settings: { apiEnabled: false } });
    await revokeApiKey(getDb(), tenant.operator, { keyId: tenant.orgKey.id });
    expectRefusal(await api("GET", "/models", { key: tenant.orgKey.secret }), 401, "api_key_revoked");
  });

  it("says member_removed before the plan and the switch", async () => {
    const tenant = await newOrganization({ plan: "free", settings: { apiEnabled: false } });
    const person = await addPerson(tenant.operator, "admin");
    const key = await issueKey(tenant.operator, { kind: "personal", memberId: person.member.id });
    await removeMember(getDb(), tenant.operator, { memberId: person.member.id });
    expectRefusal(await api("GET", "/models", { key: key.secret }), 401, "member_removed");
  });

  it("says feature_not_available before api_disabled", async () => {
    const tenant = await newOrganization({ plan: "free", settings: { apiEnabled: false } });
    expectRefusal(await api("GET", "/models", { key: tenant.orgKey.secret }), 403, "feature_not_available");
  });

  it("checks the key before validating the input", async () => {
    expectRefusal(await api("GET", "/models?foo=1"), 401, "unauthorized");
    expectRefusal(await api("GET", "/models?foo=1", { key: "sk_org_nope" }), 401, "invalid_api_key");
  });

  it("answers unknown routes with 404 and wrong methods with 405 whatever the credentials", async () => {
    expectRefusal(await api("GET", "/nope"), 404, "not_found");
    expectRefusal(await api("GET", "/nope", { key: "sk_org_nope" }), 404, "not_found");
    expectRefusal(await api("DELETE", "/models"), 405, "method_not_allowed");
  });
});

describe("validation", () => {
  it("refuses an unknown query parameter with invalid_request naming it in problems", async () => {
    const tenant = await newOrganization();
    const response = await api("GET", "/models?foo=1", { key: tenant.orgKey.secret });
    expectRefusal(response, 400, "invalid_request");
    expect(response.body.error.problems).toEqual([{ path: "foo", message: expect.any(String) }]);
    expect(response.body.error.message).toContain("foo");
  });

  it("lists every problem when several parameters are wrong", async () => {
    const tenant = await newOrganization();
    const response = await api("GET", "/models?foo=1&bar=2", { key: tenant.orgKey.secret });
    expectRefusal(response, 400, "invalid_request");
    expect(response.body.error.problems.map((p: { path: string }) => p.path).sort()).toEqual(["bar", "foo"]);
  });

  it("refuses a validation failure with the rate-limit headers of the authenticated call", async () => {
    const tenant = await newOrganization();
    const response = await api("GET", "/models?foo=1", { key: tenant.orgKey.secret });
    expect(response.headers.get("ratelimit-limit")).toBe("120");
    expect(response.headers.get("ratelimit-remaining")).toBe("119");
  });
});

describe("routes", () => {
  it("answers an unknown route with a 404 envelope", async () => {
    const response = await api("GET", "/nope");
    expectRefusal(response, 404, "not_found");
    expect(response.body.error.message).toContain("/api/v1/nope");
  });

  it("answers an unknown nested route and the bare prefix with 404", async () => {
    expectRefusal(await api("GET", "/models/extra"), 404, "not_found");
    expectRefusal(await api("POST", "/nope/deeper", { body: {} }), 404, "not_found");
    expectRefusal(await api("GET", ""), 404, "not_found");
  });

  it("routes a path in any case, a nested one by its whole path", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const models = await api("GET", "/MODELS", { key });
    expect(models.status).toBe(200);
    expect(models.body).toEqual((await api("GET", "/models", { key })).body);
    const created = await api("POST", "/End-Users", { key, body: { email: "casing@example.com" } });
    expect(created.status).toBe(201);
    const read = await api("GET", `/end-users/${created.body.endUser.id}`, { key });
    expect(read.body.endUser.email).toBe("casing@example.com");
    const patch = await api("PATCH", `/END-USERS/${created.body.endUser.id}`, { key, body: { fullName: "Casing" } });
    expect(patch.status).toBe(200);
    expect((await api("GET", `/end-users/${created.body.endUser.id}`, { key })).body.endUser.fullName).toBe("Casing");
    expectRefusal(await api("PUT", "/Models", { key }), 405, "method_not_allowed");
    // Through the server's own listener too, as a client sends it.
    const loopback = await listenOnLoopback(0);
    try {
      const response = await fetch(`${loopback.base}/api/v1/MODELS`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(models.body);
    } finally {
      loopback.close();
    }
  });

  it("answers a known path with another method with 405 and an Allow header", async () => {
    for (const method of ["DELETE", "POST", "PUT", "PATCH"]) {
      const response = await api(method, "/models");
      expectRefusal(response, 405, "method_not_allowed");
      expect(response.headers.get("allow")).toBe("GET");
    }
  });

  it("answers HEAD like GET without a body, and OPTIONS with the allowed methods", async () => {
    const tenant = await newOrganization();
    const head = await api("HEAD", "/models", { key: tenant.orgKey.secret });
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(head.headers.get("ratelimit-limit")).toBe("120");

    const refused = await api("HEAD", "/models");
    expect(refused.status).toBe(401);
    expect(refused.text).toBe("");

    const options = await api("OPTIONS", "/models");
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, OPTIONS");
    expect(options.headers.get("x-request-id")).toBeTruthy();
    expectRefusal(await api("OPTIONS", "/nope"), 404, "not_found");
  });

  it("answers unknown paths outside /api/v1 under /api with the same 404 envelope", async () => {
    const { GET } = await import("@/app/api/[...rest]/route");
    const response = await GET(new Request("http://localhost/api/nope", { headers: { "x-request-id": "outside-1" } }));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { code: "not_found", message: expect.stringContaining("/api/nope") },
    });
    expect(response.headers.get("x-request-id")).toBe("outside-1");
  });
});

describe("X-Request-Id", () => {
  it("echoes a valid client-sent id on success and on errors", async () => {
    const tenant = await newOrganization();
    const id = "client-Req_1.2-3";
    expect(
      (await api("GET", "/models", { key: tenant.orgKey.secret, headers: { "x-request-id": id } })).headers.get(
        "x-request-id",
      ),
    ).toBe(id);
    expect((await api("GET", "/models", { headers: { "x-request-id": id } })).headers.get("x-request-id")).toBe(id);
    expect((await api("GET", "/nope", { headers: { "x-request-id": id } })).headers.get("x-request-id")).toBe(id);
    expect((await api("DELETE", "/models", { headers: { "x-request-id": id } })).headers.get("x-request-id")).toBe(id);
  });

  it("accepts an id of 128 characters and replaces one of 129", async () => {
    const ok = "a".repeat(128);
    expect((await api("GET", "/models", { headers: { "x-request-id": ok } })).headers.get("x-request-id")).toBe(ok);
    const tooLong = "a".repeat(129);
    expect((await api("GET", "/models", { headers: { "x-request-id": tooLong } })).headers.get("x-request-id")).toMatch(
      UUID,
    );
  });

  it.each([
    ["spaces", "has spaces in it"],
    ["a slash", "a/b"],
    ["a colon", "id:1"],
    ["non-ASCII", "ïd"],
  ])("replaces an id with %s by a fresh UUID", async (_label, id) => {
    const response = await api("GET", "/models", { headers: { "x-request-id": id } });
    expect(response.headers.get("x-request-id")).toMatch(UUID);
  });

  it("generates a different UUID for each request without one", async () => {
    const first = (await api("GET", "/models")).headers.get("x-request-id");
    const second = (await api("GET", "/models")).headers.get("x-request-id");
    expect(first).toMatch(UUID);
    expect(second).toMatch(UUID);
    expect(first).not.toBe(second);
  });
});

describe("unexpected failures", () => {
  it("answers 503 service_unavailable with Retry-After and no internals when the database is unreachable", async () => {
    const errors = vi.spyOn(logger(), "error");
    // Nothing listens on port 1: every query fails with a real driver error.
    const unreachable = createDb("postgresql://atrium:s3cret-password@127.0.0.1:1/secret_internal_db", 1);
    const handler = createRestHandler({ db: () => unreachable });
    try {
      const response = await api("GET", "/models", {
        key: "sk_org_anything",
        handler,
        headers: { "x-request-id": "boom-1" },
      });

      expectRefusal(response, 503, "service_unavailable");
      expect(response.headers.get("retry-after")).toBe("5");
      expect(response.headers.get("x-request-id")).toBe("boom-1");
      expect(Object.keys(response.body)).toEqual(["error"]);
      expect(Object.keys(response.body.error).sort()).toEqual(["code", "message"]);
      for (const secret of ["ECONNREFUSED", "127.0.0.1", "s3cret-password", "secret_internal_db"])
        expect(response.text).not.toContain(secret);
      expect(response.text).not.toMatch(/\bat \S+ \(|\.ts:\d+|node_modules|stack/i);
      // The failure is logged on the server instead.
      expect(errors.mock.calls.map(([fields]) => (fields as { reason?: unknown }).reason)).toContain("ECONNREFUSED");
    } finally {
      await closeDb(unreachable);
    }
  });

  it("answers 500 server_error when the database fails synchronously", async () => {
    const handler = createRestHandler({
      db: () => {
        throw new Error("DATABASE_URL is not set");
      },
    });
    const response = await api("GET", "/models", { key: "sk_org_anything", handler });
    expectRefusal(response, 500, "server_error");
    expect(response.text).not.toContain("DATABASE_URL");
  });
});
