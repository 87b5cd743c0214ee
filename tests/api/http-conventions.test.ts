// HTTP conventions integrators' clients rely on: CORS for the origins the operator allowed (and
// the API document for any origin), ETag on drafts and pages with If-Match refusing a stale or
// bogus tag with 412 `precondition_failed` (nothing written), and the IETF RateLimit fields.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { createRestHandler } from "@/server/adapters/rest";
import { api, newOrganization } from "../helpers";
import { newKnowledgebase } from "../knowledge-helpers";

const ALLOWED = "https://app.example.com";
const corsHandler = createRestHandler({ db: getDb, corsOrigins: [ALLOWED] });

function preflight(origin: string, path = "/end-users") {
  return api("OPTIONS", path, {
    handler: corsHandler,
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization, content-type, idempotency-key",
    },
  });
}

describe("CORS", () => {
  it("answers a preflight from an allowed origin with the methods and headers it may send", async () => {
    const response = await preflight(ALLOWED);
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(response.headers.get("access-control-allow-methods")).toContain("POST");
    expect(response.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("idempotency-key");
    expect(response.headers.get("vary")).toContain("Origin");
  });

  it("gives an origin that is not on the list no CORS headers, so the browser refuses", async () => {
    const response = await preflight("https://evil.example.net");
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    const tenant = await newOrganization();
    const read = await api("GET", "/end-users", {
      handler: corsHandler,
      key: tenant.orgKey.secret,
      headers: { origin: "https://evil.example.net" },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("allows nothing by default", async () => {
    const response = await preflight(ALLOWED, "/end-users");
    expect(response.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    const byDefault = await api("OPTIONS", "/end-users", {
      headers: { origin: ALLOWED, "access-control-request-method": "GET" },
    });
    expect(byDefault.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("lets an allowed origin read the answer and the headers clients need, errors included", async () => {
    const tenant = await newOrganization();
    const read = await api("GET", "/end-users", {
      handler: corsHandler,
      key: tenant.orgKey.secret,
      headers: { origin: ALLOWED },
    });
    expect(read.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    const exposed = read.headers.get("access-control-expose-headers")?.toLowerCase() ?? "";
    for (const name of ["x-request-id", "ratelimit", "ratelimit-policy", "retry-after", "etag"])
      expect(exposed).toContain(name);
    const refused = await api("GET", "/end-users", {
      handler: corsHandler,
      key: "sk_bogus",
      headers: { origin: ALLOWED },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe(ALLOWED);
  });

  it("serves the API document to any origin", async () => {
    const response = await api("GET", "/openapi.json", { headers: { origin: "https://anyone.example.org" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("ETag and If-Match", () => {
  it("tags an agent draft and refuses a stale or bogus If-Match with 412, writing nothing", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const created = await api("POST", "/agents", { key, body: { name: "Tagged" } });
    const id = created.body.agent.id;
    const read = await api("GET", `/agents/${id}/draft`, { key });
    const etag = read.headers.get("etag");
    expect(etag).toMatch(/^"[^"]+"$/);

    const bogus = await api("PATCH", `/agents/${id}/draft`, {
      key,
      body: { systemInstruction: "Bogus" },
      headers: { "if-match": '"not-a-tag"' },
    });
    expect({ status: bogus.status, code: bogus.body?.error?.code }).toEqual({
      status: 412,
      code: "precondition_failed",
    });

    const fresh = await api("PATCH", `/agents/${id}/draft`, {
      key,
      body: { systemInstruction: "First" },
      headers: { "if-match": etag! },
    });
    expect(fresh.status).toBe(200);
    const newTag = fresh.headers.get("etag");
    expect(newTag).not.toBe(etag);

    const stale = await api("PATCH", `/agents/${id}/draft`, {
      key,
      body: { systemInstruction: "Second" },
      headers: { "if-match": etag! },
    });
    expect({ status: stale.status, code: stale.body?.error?.code }).toEqual({
      status: 412,
      code: "precondition_failed",
    });
    const after = await api("GET", `/agents/${id}/draft`, { key });
    expect(after.body.agent.systemInstruction).toBe("First");
    expect(after.headers.get("etag")).toBe(newTag);

    const anyVersion = await api("PATCH", `/agents/${id}/draft`, {
      key,
      body: { systemInstruction: "Third" },
      headers: { "if-match": "*" },
    });
    expect(anyVersion.status).toBe(200);
  });

  it("tags a page and refuses a stale If-Match on a patch with 412, the page unchanged", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const kb = await newKnowledgebase(tenant);
    const created = await api("POST", `/knowledgebases/${kb}/pages`, {
      key,
      body: { title: "Refunds", markdown: "Within 14 days." },
    });
    const pageId = created.body.page.id;
    const read = await api("GET", `/knowledgebases/${kb}/pages/${pageId}`, { key });
    const etag = read.headers.get("etag");
    expect(etag).toMatch(/^"[^"]+"$/);

    const patch = (text: string, tag: string) =>
      api("PATCH", `/knowledgebases/${kb}/pages/${pageId}`, {
        key,
        body: { patch: [{ op: "append", text }] },
        headers: { "if-match": tag },
      });
    expect((await patch(" One.", etag!)).status).toBe(200);
    const stale = await patch(" Two.", etag!);
    expect({ status: stale.status, code: stale.body?.error?.code }).toEqual({
      status: 412,
      code: "precondition_failed",
    });
    const page = await getDb().page.findUniqueOrThrow({ where: { id: pageId } });
    expect(page.markdown).toBe("Within 14 days. One.");
  });
});

describe("RateLimit fields", () => {
  it("sends the IETF RateLimit and RateLimit-Policy fields beside RateLimit-*", async () => {
    const tenant = await newOrganization();
    const read = await api("GET", "/end-users", { key: tenant.orgKey.secret });
    expect(read.headers.get("ratelimit-limit")).not.toBeNull();
    expect(read.headers.get("ratelimit-policy")).toMatch(/^"default";q=\d+;w=60$/);
    expect(read.headers.get("ratelimit")).toMatch(/^"default";r=\d+;t=\d+$/);
  });
});

describe("query parameters", () => {
  // Names every plain object inherits once fell through to trpc-to-openapi's query object and
  // answered 500; they are unknown fields like any other, on every GET.
  it("refuses a parameter named like an object's built-in property with 400 invalid_request", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    for (const path of [
      "/models?__proto__=1",
      "/end-users?constructor=1",
      "/agents?limit=2&toString=x",
      "/knowledgebases?hasOwnProperty=1&__proto__=2",
    ]) {
      const response = await api("GET", path, { key });
      const name = [...new URLSearchParams(path.split("?")[1]).keys()].find((param) => param !== "limit");
      expect({ path, status: response.status, body: response.body }).toEqual({
        path,
        status: 400,
        body: {
          error: expect.objectContaining({
            code: "invalid_request",
            problems: expect.arrayContaining([{ path: name, message: "Unknown field" }]),
          }),
        },
      });
    }
    const fine = await api("GET", "/agents?limit=2", { key });
    expect(fine.status).toBe(200);
  });
});
