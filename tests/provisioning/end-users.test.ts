// POST /end-users and the end-user endpoints, seen from an external system keeping its
// customers in sync: statuses, bodies, and that every refusal leaves nothing behind.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { linkProcessorSubscription } from "@/server/services/provisioning/end-user-subscriptions";
import { updateOrganization } from "@/server/services/org/organizations";
import { archiveTierPlan } from "@/server/services/provisioning/tier-plans";
import { api, expectError, newOrganization, type ApiResponse } from "../helpers";
import { email, newGroup, newPlan, provisioningSnapshot } from "../provisioning-helpers";

describe("POST /end-users", () => {
  it("creates an account with 201, then updates it in place with 200, idempotent on email", async () => {
    const tenant = await newOrganization();
    const { tierPlan } = await newPlan(tenant.operator, { credits: 250 });
    const address = email();

    const first = await api("POST", "/end-users", {
      key: tenant.orgKey.secret,
      body: { email: address, fullName: "Ada", tierPlanIds: [tierPlan.id] },
    });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      endUser: { id: expect.any(String), email: address, fullName: "Ada", createdAt: expect.any(String) },
      created: true,
      subscriptions: [
        {
          id: expect.any(String),
          tierPlanId: tierPlan.id,
          tierPlanName: tierPlan.name,
          status: "active",
          creditAllowance: 250,
          creditsUsed: 0,
          creditsResetAt: expect.any(String),
        },
      ],
      grantsCreated: 0,
    });
    const resetIn = Date.parse(first.body.subscriptions[0].creditsResetAt) - Date.now();
    expect(resetIn).toBeGreaterThan(27 * 86_400_000);
    expect(resetIn).toBeLessThan(32 * 86_400_000);

    const again = await api("POST", "/end-users", {
      key: tenant.orgKey.secret,
      body: { email: `  ${address.toUpperCase()} `, tierPlanIds: [tierPlan.id] },
    });
    expect(again.status).toBe(200);
    expect(again.body.created).toBe(false);
    expect(again.body.endUser.id).toBe(first.body.endUser.id);
    expect(again.body.endUser.fullName).toBe("Ada");
    expect(again.body.subscriptions).toHaveLength(1);
    expect(again.body.subscriptions[0].id).toBe(first.body.subscriptions[0].id);
  });

  it("gives each plan its own subscription and credit pool, and adds groups in the same call", async () => {
    const tenant = await newOrganization();
    const basic = await newPlan(tenant.operator, { credits: 10 });
    const extra = await newPlan(tenant.operator, { credits: 20, withGroup: true });
    const group = await newGroup(tenant.operator);

    const response = await api("POST", "/end-users", {
      key: tenant.orgKey.secret,
      body: {
        email: email(),
        tierPlanIds: [basic.tierPlan.id, extra.tierPlan.id, basic.tierPlan.id],
        groupIds: [group.id],
      },
    });
    expect(response.status).toBe(201);
    expect(response.body.subscriptions.map((s: { creditAllowance: number }) => s.creditAllowance).sort()).toEqual([
      10, 20,
    ]);

    const memberships = await getDb().groupMember.findMany({ where: { endUserId: response.body.endUser.id } });
    expect(memberships.map((m) => m.groupId).sort()).toEqual([group.id, extra.group!.id].sort());

    const detail = await api("GET", `/end-users/${response.body.endUser.id}`, { key: tenant.orgKey.secret });
    expect(detail.status).toBe(200);
    expect(detail.body.endUser.subscriptions).toHaveLength(2);
    expect(detail.body.endUser.subscriptions[0]).toMatchObject({
      provisionedBy: "api",
      isComped: true,
      bonusCredits: 0,
      creditsUsed: 0,
    });
    expect(detail.body.endUser.grants).toEqual([]);
  });

  it("restores a revoked account", async () => {
    const tenant = await newOrganization();
    const address = email();
    const created = await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: address } });
    const id = created.body.endUser.id;

    const revoked = await api("POST", `/end-users/${id}/revoke`, { key: tenant.orgKey.secret });
    expect(revoked.status).toBe(200);
    expect(revoked.body.endUser.revokedAt).toEqual(expect.any(String));

    const restored = await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: address } });
    expect(restored.status).toBe(200);
    const detail = await api("GET", `/end-users/${id}`, { key: tenant.orgKey.secret });
    expect(detail.body.endUser.revokedAt).toBeNull();
  });

  it("makes one account from 20 concurrent calls for one new email: one 201, the rest 200", async () => {
    const tenant = await newOrganization();
    const { tierPlan } = await newPlan(tenant.operator);
    const address = email();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: address, tierPlanIds: [tierPlan.id] } }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 200)).toHaveLength(19);
    expect(new Set(responses.map((r) => r.body.endUser.id)).size).toBe(1);
    const snapshot = await provisioningSnapshot(tenant.organization.id);
    expect(snapshot.endUsers).toHaveLength(1);
    expect(snapshot.subscriptions).toHaveLength(1);
  });

  describe("refusals write nothing", () => {
    it("tier_not_found for an unknown plan, another organization's plan, or an archived plan", async () => {
      const tenant = await newOrganization();
      const other = await newOrganization();
      const { tierPlan: good } = await newPlan(tenant.operator);
      const { tierPlan: foreign } = await newPlan(other.operator);
      const { tierPlan: archived } = await newPlan(tenant.operator);
      await archiveTierPlan(getDb(), tenant.operator, { tierPlanId: archived.id });
      const before = await provisioningSnapshot(tenant.organization.id);

      for (const id of ["00000000-0000-4000-8000-000000000000", foreign.id, archived.id]) {
        const response = await api("POST", "/end-users", {
          key: tenant.orgKey.secret,
          body: { email: email(), tierPlanIds: [good.id, id] },
        });
        expectError(response, 422, "tier_not_found");
        expect(response.body.error.message).toContain(id);
      }
      expect(await provisioningSnapshot(tenant.organization.id)).toEqual(before);
    });

    it("group_not_found and plan_group (422) for groups", async () => {
      const tenant = await newOrganization();
      const { group: planGroup } = await newPlan(tenant.operator, { withGroup: true });
      const before = await provisioningSnapshot(tenant.organization.id);

      expectError(
        await api("POST", "/end-users", {
          key: tenant.orgKey.secret,
          body: { email: email(), groupIds: ["00000000-0000-4000-8000-000000000001"] },
        }),
        422,
        "group_not_found",
      );
      expectError(
        await api("POST", "/end-users", {
          key: tenant.orgKey.secret,
          body: { email: email(), groupIds: [planGroup!.id] },
        }),
        422,
        "plan_group",
      );
      expect(await provisioningSnapshot(tenant.organization.id)).toEqual(before);
    });

    it("groups_disabled when groups are off", async () => {
      const tenant = await newOrganization();
      const group = await newGroup(tenant.operator);
      await updateOrganization(getDb(), tenant.operator, { groupsEnabled: false });
      const before = await provisioningSnapshot(tenant.organization.id);
      expectError(
        await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email(), groupIds: [group.id] } }),
        403,
        "groups_disabled",
      );
      expect(await provisioningSnapshot(tenant.organization.id)).toEqual(before);
    });

    it("grants_unsupported (400) for per-user grants where access is managed with groups", async () => {
      const tenant = await newOrganization({ settings: { accessMode: "groups" } });
      const before = await provisioningSnapshot(tenant.organization.id);
      const response = await api("POST", "/end-users", {
        key: tenant.orgKey.secret,
        body: { email: email(), grants: [{ targetKind: "app", targetId: "00000000-0000-4000-8000-000000000002" }] },
      });
      expectError(response, 400, "grants_unsupported");
      expect(await provisioningSnapshot(tenant.organization.id)).toEqual(before);
    });

    it("deleted_identity (409) for the email of a deleted account, in any case", async () => {
      const tenant = await newOrganization();
      const address = email();
      const created = await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: address } });
      const deleted = await api("DELETE", `/end-users/${created.body.endUser.id}`, { key: tenant.orgKey.secret });
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe("");
      const before = await provisioningSnapshot(tenant.organization.id);

      expectError(
        await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: address.toUpperCase() } }),
        409,
        "deleted_identity",
      );
      expectError(
        await api("GET", `/end-users/${created.body.endUser.id}`, { key: tenant.orgKey.secret }),
        404,
        "not_found",
      );
      expect(await provisioningSnapshot(tenant.organization.id)).toEqual(before);
    });

    it("live_paid_subscription (409) when a requested plan is paid at the processor", async () => {
      const tenant = await newOrganization();
      const { tierPlan } = await newPlan(tenant.operator);
      const { tierPlan: other } = await newPlan(tenant.operator);
      const address = email();
      const created = await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: address } });
      const subscription = await linkProcessorSubscription(getDb(), tenant.operator, {
        endUserId: created.body.endUser.id,
        tierPlanId: tierPlan.id,
      });
      expect(subscription).toMatchObject({ provisionedBy: "processor", isComped: false, status: "active" });
      const before = await provisioningSnapshot(tenant.organization.id);

      const response = await api("POST", "/end-users", {
        key: tenant.orgKey.secret,
        body: { email: address, tierPlanIds: [other.id, tierPlan.id] },
      });
      expectError(response, 409, "live_paid_subscription");
      expect(await provisioningSnapshot(tenant.organization.id)).toEqual(before);
      expectError(
        await api("DELETE", `/end-users/${created.body.endUser.id}/tier-plans/${tierPlan.id}`, {
          key: tenant.orgKey.secret,
        }),
        409,
        "live_paid_subscription",
      );
    });

    it.each([
      ["a malformed email", { email: "not-an-email" }, "email"],
      ["a missing email", {}, "email"],
      ["an unknown field", { email: "a@b.test", nickname: "x" }, "nickname"],
      ["a wrong type", { email: "a@b.test", tierPlanIds: "plan" }, "tierPlanIds"],
      ["a bad grant", { email: "a@b.test", grants: [{ targetKind: "page", targetId: "x" }] }, "grants.0.targetKind"],
    ])("invalid_request for %s, naming the field", async (_label, body, field) => {
      const tenant = await newOrganization();
      const response = await api("POST", "/end-users", { key: tenant.orgKey.secret, body });
      expectError(response, 400, "invalid_request");
      expect(response.body.error.problems.map((p: { path: string }) => p.path)).toContain(field);
      expect((await provisioningSnapshot(tenant.organization.id)).endUsers).toEqual([]);
    });

    it("invalid_request for a body that is not JSON", async () => {
      const tenant = await newOrganization();
      const response = await api("POST", "/end-users", { key: tenant.orgKey.secret, rawBody: "{email:" });
      expectError(response, 400, "invalid_request");
      expect(response.body.error.message).toContain("JSON");
    });
  });
});

describe("end-user endpoints", () => {
  it("lists end users by creation with cursors, finds one by email, searches, and hides deleted ones", async () => {
    const tenant = await newOrganization();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: `walk-${i}-${email()}` } })).body
          .endUser.id,
      );
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: ApiResponse = await api("GET", `/end-users?limit=2${cursor ? `&cursor=${cursor}` : ""}`, {
        key: tenant.orgKey.secret,
      });
      expect(page.status).toBe(200);
      seen.push(...page.body.endUsers.map((u: { id: string }) => u.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids);

    const target = await getDb().endUser.findUniqueOrThrow({ where: { id: ids[2]! } });
    const byEmail = await api("GET", `/end-users?email=${encodeURIComponent(target.email.toUpperCase())}`, {
      key: tenant.orgKey.secret,
    });
    expect(byEmail.body.endUsers.map((u: { id: string }) => u.id)).toEqual([ids[2]]);
    const search = await api("GET", "/end-users?query=WALK-3", { key: tenant.orgKey.secret });
    expect(search.body.endUsers.map((u: { id: string }) => u.id)).toEqual([ids[3]]);
    // A person is found by name too (part of it, any case), as an owner looks for them.
    await api("PATCH", `/end-users/${ids[1]}`, { key: tenant.orgKey.secret, body: { fullName: "Alice Martin" } });
    const byName = await api("GET", "/end-users?query=martin", { key: tenant.orgKey.secret });
    expect(byName.body.endUsers.map((u: { id: string }) => u.id)).toEqual([ids[1]]);

    await api("DELETE", `/end-users/${ids[0]}`, { key: tenant.orgKey.secret });
    const after = await api("GET", "/end-users", { key: tenant.orgKey.secret });
    expect(after.body.endUsers.map((u: { id: string }) => u.id)).toEqual(ids.slice(1));
    expect(after.body.nextCursor).toBeNull();

    expectError(await api("GET", "/end-users?cursor=garbage", { key: tenant.orgKey.secret }), 400, "invalid_request");
    expectError(await api("GET", "/end-users?limit=0", { key: tenant.orgKey.secret }), 400, "invalid_request");
    expectError(await api("GET", "/end-users?limit=201", { key: tenant.orgKey.secret }), 400, "invalid_request");
  });

  it("updates the profile with PATCH; an empty body changes nothing", async () => {
    const tenant = await newOrganization();
    const created = await api("POST", "/end-users", {
      key: tenant.orgKey.secret,
      body: { email: email(), fullName: "Old" },
    });
    const id = created.body.endUser.id;
    const patched = await api("PATCH", `/end-users/${id}`, {
      key: tenant.orgKey.secret,
      body: { fullName: "New Name" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.endUser).toMatchObject({ id, fullName: "New Name", authMethod: "email", revokedAt: null });
    const empty = await api("PATCH", `/end-users/${id}`, { key: tenant.orgKey.secret, body: {} });
    expect(empty.body.endUser.fullName).toBe("New Name");
    expectError(
      await api("PATCH", `/end-users/${id}`, { key: tenant.orgKey.secret, body: { email: "x@y.test" } }),
      400,
      "invalid_request",
    );
  });

  it("ends a subscription with DELETE …/tier-plans/{id}, and its plan group follows", async () => {
    const tenant = await newOrganization();
    const { tierPlan, group } = await newPlan(tenant.operator, { withGroup: true });
    const created = await api("POST", "/end-users", {
      key: tenant.orgKey.secret,
      body: { email: email(), tierPlanIds: [tierPlan.id] },
    });
    const id = created.body.endUser.id;
    expect(await getDb().groupMember.count({ where: { groupId: group!.id, endUserId: id } })).toBe(1);

    const removed = await api("DELETE", `/end-users/${id}/tier-plans/${tierPlan.id}`, { key: tenant.orgKey.secret });
    expect(removed.status).toBe(204);
    const detail = await api("GET", `/end-users/${id}`, { key: tenant.orgKey.secret });
    expect(detail.body.endUser.subscriptions[0].status).toBe("canceled");
    expect(await getDb().groupMember.count({ where: { groupId: group!.id, endUserId: id } })).toBe(0);
    expectError(
      await api("DELETE", `/end-users/${id}/tier-plans/${tierPlan.id}`, { key: tenant.orgKey.secret }),
      404,
      "not_found",
    );

    const back = await api("POST", "/end-users", {
      key: tenant.orgKey.secret,
      body: { email: created.body.endUser.email, tierPlanIds: [tierPlan.id] },
    });
    expect(back.body.subscriptions).toEqual([expect.objectContaining({ tierPlanId: tierPlan.id, status: "active" })]);
  });

  it("answers not_found for another organization's end user, on every endpoint", async () => {
    const tenant = await newOrganization();
    const other = await newOrganization();
    const theirs = await api("POST", "/end-users", { key: other.orgKey.secret, body: { email: email() } });
    const id = theirs.body.endUser.id;
    expectError(await api("GET", `/end-users/${id}`, { key: tenant.orgKey.secret }), 404, "not_found");
    expectError(
      await api("PATCH", `/end-users/${id}`, { key: tenant.orgKey.secret, body: { fullName: "x" } }),
      404,
      "not_found",
    );
    expectError(await api("POST", `/end-users/${id}/revoke`, { key: tenant.orgKey.secret }), 404, "not_found");
    expectError(await api("DELETE", `/end-users/${id}`, { key: tenant.orgKey.secret }), 404, "not_found");
    const detail = await api("GET", `/end-users/${id}`, { key: other.orgKey.secret });
    expect(detail.body.endUser.revokedAt).toBeNull();
  });

  it("needs end_users scopes, and admin for deletes with a personal key", async () => {
    const tenant = await newOrganization();
    const { issueKey, addPerson } = await import("../helpers");
    const readOnly = await issueKey(tenant.operator, { kind: "organization", scopes: ["end_users:read"] });
    expectError(
      await api("POST", "/end-users", { key: readOnly.secret, body: { email: email() } }),
      403,
      "insufficient_scope",
    );
    const member = await addPerson(tenant.operator, "member");
    const memberKey = await issueKey(tenant.operator, { kind: "personal", memberId: member.member.id });
    const created = await api("POST", "/end-users", { key: memberKey.secret, body: { email: email() } });
    expect(created.status).toBe(201);
    expectError(
      await api("DELETE", `/end-users/${created.body.endUser.id}`, { key: memberKey.secret }),
      403,
      "forbidden_role",
    );
    expect((await api("GET", `/end-users/${created.body.endUser.id}`, { key: memberKey.secret })).status).toBe(200);
  });
});
