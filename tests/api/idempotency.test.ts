// Idempotency-Key on every POST of /api/v1: the same
// key and body replay the first answer with `Idempotent-Replayed: true` and write nothing again;
// another body or path, or the first request still running, is 409 conflict.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { openApiDocument } from "@/server/openapi";
import { api, newOrganization, type ApiResponse } from "../helpers";
import { newKnowledgebase } from "../knowledge-helpers";
import { credits, publishedApp } from "../runtime-helpers";

function post(key: string, path: string, body: unknown, idempotencyKey?: string): Promise<ApiResponse> {
  return api("POST", path, {
    key,
    body,
    headers: idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey },
  });
}

function expectConflict(response: ApiResponse): void {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status: 409, code: "conflict" });
  expect(response.headers.get("idempotent-replayed")).toBeNull();
}

/** Every POST operation of the document, with its path parameters filled with fresh ids. */
function postPaths(): string[] {
  return Object.entries(openApiDocument().paths ?? {})
    .filter(([, operations]) => (operations as Record<string, unknown>).post)
    .map(([path]) => path.replace(/\{[^}]+\}/g, () => randomUUID()));
}

describe("Idempotency-Key on every POST", () => {
  it("runs the key check on every POST operation: a key used on another path is a conflict, a malformed key is invalid_request", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const first = await post(key, "/knowledgebases", { name: "Keyed" }, "shared-key");
    expect(first.status).toBe(201);
    const paths = postPaths().filter((path) => path !== "/knowledgebases");
    expect(paths.length).toBeGreaterThan(20);
    for (const path of paths) {
      const reused = await post(key, path, {}, "shared-key");
      expect({ path, status: reused.status, code: reused.body?.error?.code }).toEqual({
        path,
        status: 409,
        code: "conflict",
      });
      const malformed = await post(key, path, {}, "x".repeat(256));
      expect({ path, status: malformed.status, code: malformed.body?.error?.code }).toEqual({
        path,
        status: 400,
        code: "invalid_request",
      });
    }
    // Nothing the refused requests named was created.
    expect(await getDb().knowledgebase.count({ where: { organizationId: tenant.organization.id } })).toBe(1);
  });

  it.each([
    [
      "a knowledgebase",
      async () => ({ path: "/knowledgebases", body: { name: "Handbook" }, other: { name: "Other" } }),
    ],
    [
      "a page",
      async (key: string, tenant: Awaited<ReturnType<typeof newOrganization>>) => {
        const kb = await newKnowledgebase(tenant);
        void key;
        return {
          path: `/knowledgebases/${kb}/pages`,
          body: { title: "Refunds", markdown: "14 days" },
          other: { title: "Other" },
        };
      },
    ],
    [
      "an end user",
      async () => ({
        path: "/end-users",
        body: { email: `keyed-${randomUUID()}@example.test` },
        other: { email: `other-${randomUUID()}@example.test` },
      }),
    ],
    [
      "an agent draft",
      async () => ({ path: "/agents", body: { name: "Keyed agent" }, other: { name: "Other agent" } }),
    ],
    [
      "a user group",
      async () => ({ path: "/user-groups", body: { name: "Keyed group" }, other: { name: "Other group" } }),
    ],
  ])("replays the creation of %s with Idempotent-Replayed and creates it once", async (_label, setup) => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const { path, body, other } = await setup(key, tenant);
    const first = await post(key, path, body, "create-1");
    expect(first.status).toBeLessThan(300);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await post(key, path, body, "create-1");
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("x-request-id")).toBeTruthy();
    expect(again.headers.get("ratelimit-limit")).toBeTruthy();

    expectConflict(await post(key, path, other, "create-1"));
    // Without a key every POST runs; with a new key too.
    const fresh = await post(key, path, other, "create-2");
    expect(fresh.status).toBeLessThan(300);
    expect(fresh.headers.get("idempotent-replayed")).toBeNull();
  });

  it("scopes keys to the organization", async () => {
    const one = await newOrganization();
    const two = await newOrganization();
    const first = await post(one.orgKey.secret, "/knowledgebases", { name: "A" }, "org-scoped");
    const second = await post(two.orgKey.secret, "/knowledgebases", { name: "A" }, "org-scoped");
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(second.body.knowledgebase.id).not.toBe(first.body.knowledgebase.id);
  });

  it("answers conflict while the first request still runs, and forgets a key whose first request failed", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    await getDb().idempotencyKey.create({
      data: { organizationId: tenant.organization.id, key: "running-1", requestHash: "x", state: "running" },
    });
    expectConflict(await post(key, "/knowledgebases", { name: "Busy" }, "running-1"));

    const refused = await post(key, "/knowledgebases", {}, "failed-1");
    expect(refused.status).toBe(400);
    const retried = await post(key, "/knowledgebases", { name: "Now valid" }, "failed-1");
    expect(retried.status).toBe(201);
  });

  it("runs and bills a conversation turn once for a repeated key", async () => {
    const app = await publishedApp();
    const before = await credits(app.tenant);
    const body = { message: "How long do refunds take?" };
    const first = await post(app.key, `/apps/${app.appId}/conversation`, body, "turn-1");
    expect(first.status).toBe(200);
    const again = await post(app.key, `/apps/${app.appId}/conversation`, body, "turn-1");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(before - (await credits(app.tenant))).toBe(1);
    expect(await getDb().execution.count({ where: { organizationId: app.tenant.organization.id } })).toBe(1);
  });
});
