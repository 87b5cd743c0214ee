// GET /api/v1/models, through the route module Next.js serves.
import { describe, expect, it, vi } from "vitest";
import * as route from "@/app/api/v1/[[...path]]/route";
import { getDb } from "@/server/db";
import { addPerson, isCounterSweep, issueKey, newOrganization, toApiResponse } from "../helpers";

async function getModels(key?: string) {
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  return toApiResponse(await route.GET(new Request("http://localhost/api/v1/models", { headers })));
}

describe("GET /models", () => {
  it("lists the built-in offline model for an organization key", async () => {
    const tenant = await newOrganization();
    const response = await getModels(tenant.orgKey.secret);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.body).toEqual({
      models: expect.arrayContaining([
        { id: "atrium-offline", name: expect.any(String), provider: "builtin", acceptsImages: false },
      ]),
      builtIns: expect.any(Array),
    });
    for (const model of response.body.models)
      expect(Object.keys(model).sort()).toEqual(["acceptsImages", "id", "name", "provider"]);
  });

  it("answers in one prepared statement once the process keeps the key and the providers: the count", async () => {
    const tenant = await newOrganization();
    // The first request records the key's use (at most once a minute), off the request path: wait
    // for that write so it does not land among the second request's statements.
    await getModels(tenant.orgKey.secret);
    await vi.waitFor(async () => {
      const key = await getDb().apiKey.findUnique({ where: { id: tenant.orgKey.id } });
      expect(key?.lastUsedAt).not.toBeNull();
    });
    const query = vi.spyOn(getDb().pool, "query");
    try {
      expect((await getModels(tenant.orgKey.secret)).status).toBe(200);
      const statements = query.mock.calls
        .filter(([config]) => !isCounterSweep(config))
        .map(([config]) => (config as { name?: string }).name ?? "unnamed");
      expect(statements).toEqual(["atrium_key_count"]);
    } finally {
      query.mockRestore();
    }
  });

  it("says which agent built-ins this deployment provides, and why not", async () => {
    const tenant = await newOrganization();
    const { builtIns } = (await getModels(tenant.orgKey.secret)).body;
    expect(builtIns.map((b: { name: string }) => b.name)).toEqual([
      "webSearch",
      "webScrape",
      "deepResearch",
      "artifacts",
      "voice",
    ]);
    expect(builtIns).toContainEqual({ name: "webScrape", available: true, reason: null });
    // No WEB_SEARCH_URL in the tests.
    expect(builtIns).toContainEqual({
      name: "webSearch",
      available: false,
      reason: expect.stringContaining("WEB_SEARCH_URL"),
    });
  });

  it("accepts any valid key: a personal key of a viewer with a single unrelated scope", async () => {
    const tenant = await newOrganization();
    const viewer = await addPerson(tenant.operator, "viewer");
    const key = await issueKey(tenant.operator, {
      kind: "personal",
      memberId: viewer.member.id,
      scopes: ["apps:execute"],
    });
    const response = await getModels(key.secret);
    expect(response.status).toBe(200);
    expect(response.body.models.map((m: { id: string }) => m.id)).toContain("atrium-offline");
  });

  it("refuses without a key", async () => {
    const response = await getModels();
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe("unauthorized");
  });

  it("is served for every method the route module exports, with 405 for the wrong ones", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"] as const) {
      const response = await route[method](new Request("http://localhost/api/v1/models", { method }));
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("GET");
    }
  });

  it("records when a key was last used, to the minute", async () => {
    const tenant = await newOrganization();
    const before = await getDb().apiKey.findUniqueOrThrow({ where: { id: tenant.orgKey.id } });
    expect(before.lastUsedAt).toBeNull();
    expect((await getModels(tenant.orgKey.secret)).status).toBe(200);
    await expect
      .poll(async () => (await getDb().apiKey.findUniqueOrThrow({ where: { id: tenant.orgKey.id } })).lastUsedAt, {
        timeout: 5000,
      })
      .toBeInstanceOf(Date);
  });
});
