// Access grants to apps: per user on POST /end-users (idempotent, counted), per group
// (additive), limited to a portal, and every refusal leaving nothing behind.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api, expectError, newOrganization } from "../helpers";
import { create } from "../builder-helpers";
import { email, newGroup, newPortal, provisioningSnapshot } from "../provisioning-helpers";

const MISSING = "00000000-0000-4000-8000-00000000000a";

describe("per-user grants", () => {
  it("grants apps on POST /end-users, skips duplicates and counts only new grants", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const app = await create(key, "apps", { name: "Helpdesk" });
    const portal = await newPortal(tenant.operator);
    const address = email();
    const grants = [
      { targetKind: "app", targetId: app.id },
      { targetKind: "app", targetId: app.id, deploymentId: portal.id, expiresAt: "2030-01-01T00:00:00.000Z" },
      { targetKind: "app", targetId: app.id, effect: "allow" },
    ];

    const first = await api("POST", "/end-users", { key, body: { email: address, grants } });
    expect(first.status).toBe(201);
    expect(first.body.grantsCreated).toBe(2);
    const again = await api("POST", "/end-users", { key, body: { email: address, grants } });
    expect(again.body.grantsCreated).toBe(0);

    const detail = await api("GET", `/end-users/${first.body.endUser.id}`, { key });
    expect(detail.body.endUser.grants).toHaveLength(2);
    expect(detail.body.endUser.grants).toEqual(
      expect.arrayContaining([
        {
          id: expect.any(String),
          targetKind: "app",
          targetId: app.id,
          effect: "allow",
          deploymentId: null,
          source: "api",
          expiresAt: null,
        },
        {
          id: expect.any(String),
          targetKind: "app",
          targetId: app.id,
          effect: "allow",
          deploymentId: portal.id,
          source: "api",
          expiresAt: "2030-01-01T00:00:00.000Z",
        },
      ]),
    );

    const grantId = detail.body.endUser.grants[0].id;
    expect((await api("DELETE", `/end-users/${first.body.endUser.id}/grants/${grantId}`, { key })).status).toBe(204);
    expectError(
      await api("DELETE", `/end-users/${first.body.endUser.id}/grants/${grantId}`, { key }),
      404,
      "not_found",
    );
  });

  it("grant_target_not_found (422) for a missing app, another organization's app, or an unknown portal; nothing written", async () => {
    const tenant = await newOrganization();
    const other = await newOrganization();
    const key = tenant.orgKey.secret;
    const app = await create(key, "apps", { name: "Mine" });
    const theirs = await create(other.orgKey.secret, "apps", { name: "Theirs" });
    const before = await provisioningSnapshot(tenant.organization.id);

    for (const grant of [
      { targetKind: "app", targetId: MISSING },
      { targetKind: "app", targetId: theirs.id },
      { targetKind: "app", targetId: app.id, deploymentId: MISSING },
    ]) {
      const response = await api("POST", "/end-users", {
        key,
        body: { email: email(), grants: [{ targetKind: "app", targetId: app.id }, grant] },
      });
      expectError(response, 422, "grant_target_not_found");
    }
    expect(await provisioningSnapshot(tenant.organization.id)).toEqual(before);
  });
});

describe("group grants", () => {
  it("grants a group access (201, then 200 with the same grant) and removes it", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const app = await create(key, "apps", { name: "Helpdesk" });
    const group = await newGroup(tenant.operator);

    const added = await api("POST", `/user-groups/${group.id}/grants`, {
      key,
      body: { targetKind: "app", targetId: app.id },
    });
    expect(added.status).toBe(201);
    expect(added.body.grant).toMatchObject({
      targetKind: "app",
      targetId: app.id,
      effect: "allow",
      deploymentId: null,
      source: "api",
    });
    const again = await api("POST", `/user-groups/${group.id}/grants`, {
      key,
      body: { targetKind: "app", targetId: app.id },
    });
    expect(again.status).toBe(200);
    expect(again.body.grant.id).toBe(added.body.grant.id);

    expectError(
      await api("POST", `/user-groups/${group.id}/grants`, { key, body: { targetKind: "app", targetId: MISSING } }),
      422,
      "grant_target_not_found",
    );
    expectError(
      await api("POST", `/user-groups/${group.id}/grants`, {
        key,
        body: { targetKind: "app", targetId: app.id, effect: "deny" },
      }),
      400,
      "invalid_request",
    );
    expect((await api("DELETE", `/user-groups/${group.id}/grants/${added.body.grant.id}`, { key })).status).toBe(204);
    expect(await getDb().grant.count({ where: { groupId: group.id } })).toBe(0);
  });

  it("portal_scope_unsupported (400) for a portal-scoped group grant where access is managed with groups; nothing written", async () => {
    const tenant = await newOrganization({ settings: { accessMode: "groups" } });
    const key = tenant.orgKey.secret;
    const app = await create(key, "apps", { name: "Helpdesk" });
    const group = await newGroup(tenant.operator);
    const portal = await newPortal(tenant.operator);

    const response = await api("POST", `/user-groups/${group.id}/grants`, {
      key,
      body: { targetKind: "app", targetId: app.id, deploymentId: portal.id },
    });
    expectError(response, 400, "portal_scope_unsupported");
    expect(await getDb().grant.count({ where: { groupId: group.id } })).toBe(0);
    expect(
      (await api("POST", `/user-groups/${group.id}/grants`, { key, body: { targetKind: "app", targetId: app.id } }))
        .status,
    ).toBe(201);
  });
});
