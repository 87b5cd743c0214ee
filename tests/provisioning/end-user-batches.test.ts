// The owner's end-user list at a glance, its bulk actions and the CSV import with its dry run,
// through REST against the real database: what a dry run says would change is what applying
// writes, a dry run writes nothing, refusals are named per row, and another organization's
// plans, groups and end users are out of reach.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { updateOrganization } from "@/server/services/org/organizations";
import { api, expectError, issueKey, newOrganization, signInCookie, trpc, uniqueSuffix, type Tenant } from "../helpers";
import { accessWorld, email, newGroup, newPlan, provisioningSnapshot } from "../provisioning-helpers";

async function auditCount(organizationId: string): Promise<number> {
  return getDb().auditEvent.count({ where: { organizationId } });
}

function importCsv(tenant: Tenant, csv: string, dryRun?: boolean) {
  return api("POST", "/end-user-imports", {
    key: tenant.orgKey.secret,
    body: dryRun === undefined ? { csv } : { csv, dryRun },
  });
}

async function provision(tenant: Tenant, body: Record<string, unknown>): Promise<string> {
  const response = await api("POST", "/end-users", { key: tenant.orgKey.secret, body });
  expect(response.status).toBe(201);
  return response.body.endUser.id;
}

describe("POST /end-user-imports", () => {
  it("dry run: says what would be created, updated, left or refused and why, and writes nothing", async () => {
    const tenant = await newOrganization();
    const { tierPlan } = await newPlan(tenant.operator, { name: "Pro", credits: 40 });
    const group = await newGroup(tenant.operator, "Beta testers");
    const same = email();
    const renamed = email();
    await provision(tenant, { email: same, fullName: "Same", tierPlanIds: [tierPlan.id] });
    await provision(tenant, { email: renamed, fullName: "Old name" });
    const fresh = email();
    // Another organization's plan of the same name is not this one's.
    const other = await newOrganization();
    await newPlan(other.operator, { name: "Gold" });

    const csv = [
      "Email,Name,Plan,Groups",
      `${fresh},Ada Lovelace,pro,Beta testers`,
      `${same},Same,Pro,`,
      `${renamed},New name,,`,
      `${email()},,Gold,`,
      `${email()},,,Nobody's group`,
      "not-an-email,,,",
      `${fresh.toUpperCase()},Twice,,`,
    ].join("\r\n");
    const before = await provisioningSnapshot(tenant.organization.id);
    const events = await auditCount(tenant.organization.id);

    const response = await importCsv(tenant, csv);
    expect(response.status).toBe(200);
    expect(response.body.dryRun).toBe(true);
    expect(response.body.summary).toEqual({ created: 1, updated: 1, unchanged: 1, refused: 4 });
    const rows = response.body.rows;
    expect(rows[0]).toEqual({ line: 2, email: fresh, outcome: "created", changes: [], endUserId: null, error: null });
    expect(rows[1]).toMatchObject({ line: 3, outcome: "unchanged", changes: [] });
    expect(rows[2]).toMatchObject({ line: 4, outcome: "updated", changes: ["fullName"] });
    expect(rows[3]).toMatchObject({ line: 5, outcome: "refused", error: { code: "tier_not_found" } });
    expect(rows[3].error.message).toContain("Gold");
    expect(rows[4]).toMatchObject({ outcome: "refused", error: { code: "group_not_found" } });
    expect(rows[5]).toMatchObject({ outcome: "refused", error: { code: "invalid_request" } });
    expect(rows[6]).toMatchObject({ line: 8, outcome: "refused", error: { code: "invalid_request" } });
    expect(rows[6].error.message).toContain("line 2");

    expect(await provisioningSnapshot(tenant.organization.id)).toEqual(before);
    expect(await auditCount(tenant.organization.id)).toBe(events);

    // Applied: the same outcomes, now written, with the plan's pool and the group.
    const applied = await importCsv(tenant, csv, false);
    expect(applied.status).toBe(200);
    expect(applied.body.summary).toEqual(response.body.summary);
    const created = applied.body.rows[0];
    expect(created).toMatchObject({ outcome: "created", endUserId: expect.any(String) });
    const detail = await api("GET", `/end-users/${created.endUserId}`, { key: tenant.orgKey.secret });
    expect(detail.body.endUser).toMatchObject({ fullName: "Ada Lovelace" });
    expect(detail.body.endUser.subscriptions).toMatchObject([{ tierPlanId: tierPlan.id, creditAllowance: 40 }]);
    expect(await getDb().groupMember.count({ where: { groupId: group.id, endUserId: created.endUserId } })).toBe(1);
    const renamedRow = await getDb().endUser.findFirstOrThrow({
      where: { organizationId: tenant.organization.id, email: renamed },
    });
    expect(renamedRow.fullName).toBe("New name");
    // Refused rows wrote nothing: only the three named accounts exist.
    expect(await getDb().endUser.count({ where: { organizationId: tenant.organization.id } })).toBe(3);

    // Once applied, the same file changes nothing more.
    const again = await importCsv(tenant, csv, true);
    expect(again.body.summary).toEqual({ created: 0, updated: 0, unchanged: 3, refused: 4 });
  });

  it("imports 200 end users: the dry run counts them, applying creates them with their plan", async () => {
    const tenant = await newOrganization();
    const { tierPlan } = await newPlan(tenant.operator, { name: "Starter", credits: 10 });
    const tag = uniqueSuffix();
    const lines = Array.from({ length: 200 }, (_, i) => `user${i}-${tag}@example.test,User ${i},Starter,`);
    const csv = ["email,name,plan,groups", ...lines].join("\n");

    const dry = await importCsv(tenant, csv);
    expect(dry.body.summary).toEqual({ created: 200, updated: 0, unchanged: 0, refused: 0 });
    expect(await getDb().endUser.count({ where: { organizationId: tenant.organization.id } })).toBe(0);

    const applied = await importCsv(tenant, csv, false);
    expect(applied.body.summary.created).toBe(200);
    expect(await getDb().subscription.count({ where: { tierPlanId: tierPlan.id, status: "active" } })).toBe(200);
    expect(
      await getDb().auditEvent.count({ where: { organizationId: tenant.organization.id, action: "end_user.create" } }),
    ).toBe(200);
  });

  it("refuses a file it cannot read, or too large, whole, writing nothing", async () => {
    const tenant = await newOrganization();
    expectError(await importCsv(tenant, "mail,name\nx@example.test,X"), 400, "invalid_request");
    expectError(await importCsv(tenant, "name\nX"), 400, "invalid_request");
    const tooMany = ["email", ...Array.from({ length: 1001 }, (_, i) => `u${i}@example.test`)].join("\n");
    const refused = expectError(await importCsv(tenant, tooMany), 400, "invalid_request");
    expect(refused.message).toContain("1,000");
    expectError(await importCsv(tenant, "email\n" + "a".repeat(600 * 1024)), 400, "invalid_request");
    expect(await getDb().endUser.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  });

  it("needs end_users:write", async () => {
    const tenant = await newOrganization();
    const reader = await issueKey(tenant.operator, { kind: "organization", scopes: ["end_users:read"] });
    expectError(
      await api("POST", "/end-user-imports", { key: reader.secret, body: { csv: `email\n${email()}` } }),
      403,
      "insufficient_scope",
    );
  });
});

describe("POST /end-user-bulk-actions", () => {
  it("grants access, adds to a group and revokes each chosen end user, naming every refusal", async () => {
    const w = await accessWorld();
    const tenant = w.tenant;
    const a = await provision(tenant, { email: email() });
    const b = await provision(tenant, { email: email() });
    const revoked = await provision(tenant, { email: email() });
    await api("POST", `/end-users/${revoked}/revoke`, { key: w.key });
    const outsider = (
      await api("POST", "/end-users", { key: (await newOrganization()).orgKey.secret, body: { email: email() } })
    ).body.endUser.id as string;

    const grant = await api("POST", "/end-user-bulk-actions", {
      key: w.key,
      body: { action: "grant", appId: w.appId, endUserIds: [a, b, revoked, outsider] },
    });
    expect(grant.status).toBe(200);
    expect(grant.body.results).toEqual([
      { endUserId: a, outcome: "changed", error: null },
      { endUserId: b, outcome: "changed", error: null },
      {
        endUserId: revoked,
        outcome: "refused",
        error: { code: "conflict", message: expect.stringContaining("revoked") },
      },
      { endUserId: outsider, outcome: "refused", error: { code: "not_found", message: expect.any(String) } },
    ]);
    expect(await getDb().grant.count({ where: { endUserId: { in: [a, b] }, targetId: w.appId } })).toBe(2);
    expect(await getDb().grant.count({ where: { endUserId: { in: [revoked, outsider] } } })).toBe(0);
    // The revoked one stays revoked.
    expect((await getDb().endUser.findUniqueOrThrow({ where: { id: revoked } })).revokedAt).not.toBeNull();
    // Again: nothing new.
    const twice = await api("POST", "/end-user-bulk-actions", {
      key: w.key,
      body: { action: "grant", appId: w.appId, endUserIds: [a] },
    });
    expect(twice.body.results[0].outcome).toBe("unchanged");

    const group = (await api("POST", "/user-groups", { key: w.key, body: { name: `Bulk ${uniqueSuffix()}` } })).body
      .userGroup;
    const added = await api("POST", "/end-user-bulk-actions", {
      key: w.key,
      body: { action: "add_to_group", groupId: group.id, endUserIds: [a, b] },
    });
    expect(added.body.results.map((r: { outcome: string }) => r.outcome)).toEqual(["changed", "changed"]);
    expect(await getDb().groupMember.count({ where: { groupId: group.id } })).toBe(2);

    const revoke = await api("POST", "/end-user-bulk-actions", {
      key: w.key,
      body: { action: "revoke", endUserIds: [a, revoked] },
    });
    expect(revoke.body.results.map((r: { outcome: string }) => r.outcome)).toEqual(["changed", "unchanged"]);
    expect((await getDb().endUser.findUniqueOrThrow({ where: { id: a } })).revokedAt).not.toBeNull();
    const events = await getDb().auditEvent.findMany({
      where: { organizationId: w.org, action: "end_user.revoke", targetId: a },
    });
    expect(events).toHaveLength(1);

    expectError(
      await api("POST", "/end-user-bulk-actions", { key: w.key, body: { action: "grant", endUserIds: [a] } }),
      400,
      "invalid_request",
    );
    expectError(
      await api("POST", "/end-user-bulk-actions", {
        key: w.key,
        body: { action: "revoke", endUserIds: Array.from({ length: 201 }, () => a) },
      }),
      400,
      "invalid_request",
    );
  });

  it("refuses per-user grants where access is managed with groups, as POST /end-users does", async () => {
    const w = await accessWorld();
    const a = await provision(w.tenant, { email: email() });
    await updateOrganization(getDb(), w.tenant.operator, { accessMode: "groups" });
    const grant = await api("POST", "/end-user-bulk-actions", {
      key: w.key,
      body: { action: "grant", appId: w.appId, endUserIds: [a] },
    });
    expect(grant.body.results[0]).toMatchObject({ outcome: "refused", error: { code: "grants_unsupported" } });
  });
});

describe("GET /end-users at a glance", () => {
  it("shows plans, groups, credits left and status, filters by status and sorts with cursors", async () => {
    const tenant = await newOrganization();
    const { tierPlan } = await newPlan(tenant.operator, { name: "Team", credits: 30, withGroup: true });
    const group = await newGroup(tenant.operator, "Early");
    const zed = await provision(tenant, {
      email: `zed-${uniqueSuffix()}@example.test`,
      tierPlanIds: [tierPlan.id],
      groupIds: [group.id],
    });
    const amy = await provision(tenant, { email: `amy-${uniqueSuffix()}@example.test` });
    const max = await provision(tenant, { email: `max-${uniqueSuffix()}@example.test` });
    await api("POST", `/end-users/${max}/revoke`, { key: tenant.orgKey.secret });
    await getDb().endUser.update({ where: { id: amy }, data: { lastSeenAt: new Date() } });

    const list = await api("GET", "/end-users", { key: tenant.orgKey.secret });
    const first = list.body.endUsers[0];
    expect(first).toMatchObject({
      id: zed,
      plans: [{ id: tierPlan.id, name: "Team" }],
      groups: [{ id: group.id, name: "Early" }],
      creditsLeft: 30,
    });

    const active = await api("GET", "/end-users?status=active", { key: tenant.orgKey.secret });
    expect(active.body.endUsers.map((u: { id: string }) => u.id)).toEqual([zed, amy]);
    const revoked = await api("GET", "/end-users?status=revoked", { key: tenant.orgKey.secret });
    expect(revoked.body.endUsers.map((u: { id: string }) => u.id)).toEqual([max]);

    const walk = async (sort: string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: { endUsers: { id: string }[]; nextCursor: string | null } } = await api(
          "GET",
          `/end-users?sort=${sort}&limit=1${cursor ? `&cursor=${cursor}` : ""}`,
          { key: tenant.orgKey.secret },
        );
        ids.push(...page.body.endUsers.map((u) => u.id));
        cursor = page.body.nextCursor;
      } while (cursor);
      return ids;
    };
    expect(await walk("email")).toEqual([amy, max, zed]);
    expect(await walk("newest")).toEqual([max, amy, zed]);
    expect(await walk("lastSeen")).toEqual([amy, ...[zed, max].sort()]);

    // A cursor of one sort is refused by another.
    const byEmail = await api("GET", "/end-users?sort=email&limit=1", { key: tenant.orgKey.secret });
    expectError(
      await api("GET", `/end-users?sort=newest&cursor=${byEmail.body.nextCursor}`, { key: tenant.orgKey.secret }),
      400,
      "invalid_request",
    );
  });

  it("sorts by credits left on the server, both ways, with cursors that keep ties in order (REST and console)", async () => {
    const tenant = await newOrganization();
    const small = await newPlan(tenant.operator, { name: "Small", credits: 10 });
    const big = await newPlan(tenant.operator, { name: "Big", credits: 50 });
    const person = (plans: string[], used: number[] = []) =>
      provision(tenant, { email: email(), tierPlanIds: plans }).then(async (id) => {
        for (const [index, planId] of plans.entries())
          if (used[index])
            await getDb().subscription.updateMany({
              where: { endUserId: id, tierPlanId: planId },
              data: { creditsUsed: used[index] },
            });
        return id;
      });
    const nearlyOut = await person([big.tierPlan.id], [45]); // 5 left
    const smallA = await person([small.tierPlan.id]); // 10
    const smallB = await person([small.tierPlan.id]); // 10
    const bigOnly = await person([big.tierPlan.id]); // 50
    const noPlan = await person([]); // 0
    const both = await person([small.tierPlan.id, big.tierPlan.id]); // 60
    const overspent = await person([small.tierPlan.id], [15]); // 0, never below
    const byId = (...ids: string[]) => ids.sort();
    const fewestFirst = [...byId(noPlan, overspent), nearlyOut, ...byId(smallA, smallB), bigOnly, both];
    const mostFirst = [
      both,
      bigOnly,
      ...byId(smallA, smallB).reverse(),
      nearlyOut,
      ...byId(noPlan, overspent).reverse(),
    ];

    const rest = async (sort: string, limit: number) => {
      const seen: { id: string; creditsLeft: number }[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: {
          status: number;
          body: { endUsers: { id: string; creditsLeft: number }[]; nextCursor: string | null };
        } = await api("GET", `/end-users?sort=${sort}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, {
          key: tenant.orgKey.secret,
        });
        expect(page.status).toBe(200);
        seen.push(...page.body.endUsers);
        cursor = page.body.nextCursor;
        pages += 1;
      } while (cursor);
      return { ids: seen.map((u) => u.id), credits: seen.map((u) => u.creditsLeft), pages };
    };
    const ascending = await rest("creditsLeft", 2);
    expect(ascending.ids).toEqual(fewestFirst);
    expect(ascending.credits).toEqual([0, 0, 5, 10, 10, 50, 60]);
    expect(ascending.pages).toBe(4);
    const descending = await rest("creditsLeftDesc", 3);
    expect(descending.ids).toEqual(mostFirst);
    expect(descending.credits).toEqual([60, 50, 10, 10, 5, 0, 0]);

    // The console's list (tRPC) is the same service: the same order, page by page.
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const first = await trpc("query", "endUsers.list", { sort: "creditsLeft", limit: 4 }, { cookie });
    expect(first.status).toBe(200);
    const firstPage = first.body.result.data as { endUsers: { id: string }[]; nextCursor: string };
    const second = await trpc(
      "query",
      "endUsers.list",
      { sort: "creditsLeft", limit: 4, cursor: firstPage.nextCursor },
      { cookie },
    );
    expect([...firstPage.endUsers, ...second.body.result.data.endUsers].map((u: { id: string }) => u.id)).toEqual(
      fewestFirst,
    );
    expect(second.body.result.data.nextCursor).toBeNull();

    // A cursor belongs to its sort and direction, and its key must be a count.
    const page = await api("GET", "/end-users?sort=creditsLeft&limit=1", { key: tenant.orgKey.secret });
    for (const sort of ["creditsLeftDesc", "email"])
      expectError(
        await api("GET", `/end-users?sort=${sort}&cursor=${page.body.nextCursor}`, { key: tenant.orgKey.secret }),
        400,
        "invalid_request",
      );
    const forged = Buffer.from(JSON.stringify(["creditsLeft", "0) or (1=1", noPlan])).toString("base64url");
    expectError(
      await api("GET", `/end-users?sort=creditsLeft&cursor=${forged}`, { key: tenant.orgKey.secret }),
      400,
      "invalid_request",
    );
  });
});
