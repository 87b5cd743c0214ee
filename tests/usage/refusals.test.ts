// GET /usage/refusals: each run refused before it ran is kept as a row of its own (not an
// execution: nothing ran, nothing was charged), listed with what it was for, filterable, and only
// within its organization.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api, expectError, issueKey } from "../helpers";
import { portalScenario, type PortalScenario } from "../portal/helpers";
import { credits, publishedApp } from "../runtime-helpers";

/** Alice (1 credit) runs one turn, then is refused twice for lack of credits. */
async function refusedTwice(): Promise<PortalScenario> {
  const world = await portalScenario({ credits: 1 });
  const forAlice = { endUserId: world.endUser.id, portalId: world.portal.id };
  expect(
    (
      await api("POST", `/apps/${world.appId}/conversation`, {
        key: world.key,
        body: { message: "Hello", ...forAlice },
      })
    ).status,
  ).toBe(200);
  for (const message of ["Again", "Once more"]) {
    expectError(
      await api("POST", `/apps/${world.appId}/conversation`, { key: world.key, body: { message, ...forAlice } }),
      402,
      "insufficient_credits",
    );
  }
  return world;
}

describe("GET /usage/refusals", () => {
  it("lists each refused turn with its app, end user, portal, plan and code; no execution, no charge", async () => {
    const world = await refusedTwice();
    const organizationId = world.tenant.organization.id;
    const before = await credits(world.tenant);
    const response = await api("GET", "/usage/refusals", { key: world.key });
    expect(response.status).toBe(200);
    expect(response.body.refusals).toHaveLength(2);
    expect(response.body.refusals[0]).toMatchObject({
      code: "insufficient_credits",
      appId: world.appId,
      appKind: "app",
      appName: "Helpdesk",
      endUserId: world.endUser.id,
      endUserEmail: world.endUser.email,
      portalId: world.portal.id,
      portalName: world.portal.name,
      planId: world.plan.id,
      planName: "Starter",
    });
    // Newest first.
    const [newer, older] = response.body.refusals;
    expect(Date.parse(newer.createdAt)).toBeGreaterThanOrEqual(Date.parse(older.createdAt));
    // The refused turns ran nothing and took nothing: one execution (the turn that ran), no credits moved since.
    expect(await getDb().execution.count({ where: { organizationId } })).toBe(1);
    expect(await credits(world.tenant)).toBe(before);
    // GET /usage counts the same refusals.
    const usage = await api("GET", "/usage", { key: world.key });
    expect(usage.body.refusals).toEqual({ insufficient_credits: 2 });
    expect(usage.body.totals.turns).toBe(1);
  });

  it("filters by code, app, end user and portal, and pages newest first", async () => {
    const world = await refusedTwice();
    const key = world.key;
    const list = async (query: string) => {
      const response = await api("GET", `/usage/refusals${query}`, { key });
      expect(response.status).toBe(200);
      return response.body;
    };
    expect((await list("?code=insufficient_credits")).refusals).toHaveLength(2);
    expect((await list("?code=service_disabled")).refusals).toHaveLength(0);
    expect((await list(`?appId=${world.appId}`)).refusals).toHaveLength(2);
    expect((await list(`?endUserId=${world.endUser.id}`)).refusals).toHaveLength(2);
    expect((await list(`?portalId=${world.portal.id}`)).refusals).toHaveLength(2);
    expect((await list(`?portalId=${world.tenant.organization.id}`)).refusals).toHaveLength(0);

    const first = await list("?limit=1");
    expect(first.refusals).toHaveLength(1);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await list(`?limit=1&cursor=${first.nextCursor}`);
    expect(second.refusals).toHaveLength(1);
    expect(second.refusals[0].id).not.toBe(first.refusals[0].id);
    expect(second.nextCursor).toBeNull();
  });

  it("never shows another organization's refusals, even filtered by its ids", async () => {
    const world = await refusedTwice();
    const other = await publishedApp();
    const theirs = await api("GET", "/usage/refusals", { key: other.key });
    expect(theirs.status).toBe(200);
    expect(theirs.body.refusals).toEqual([]);
    for (const query of [`appId=${world.appId}`, `endUserId=${world.endUser.id}`, `portalId=${world.portal.id}`]) {
      expect((await api("GET", `/usage/refusals?${query}`, { key: other.key })).body.refusals).toEqual([]);
    }
    // A cursor handed out to one organization reads nothing of it in another.
    const page = await api("GET", "/usage/refusals?limit=1", { key: world.key });
    expect(
      (await api("GET", `/usage/refusals?cursor=${page.body.nextCursor}`, { key: other.key })).body.refusals,
    ).toEqual([]);
  });

  it("refuses out-of-bound filters and keys without end_users:read", async () => {
    const world = await refusedTwice();
    const key = world.key;
    for (const query of [
      "limit=0",
      "limit=100000",
      "code=Insufficient-Credits",
      `code=${"a".repeat(65)}`,
      "appId=not-a-uuid",
      "cursor=garbage",
      "status=refused",
    ]) {
      expectError(await api("GET", `/usage/refusals?${query}`, { key }), 400, "invalid_request");
    }
    const narrow = await issueKey(world.tenant.operator, { kind: "organization", scopes: ["apps:read"] });
    expectError(await api("GET", "/usage/refusals", { key: narrow.secret }), 403, "insufficient_scope");
  });
});
