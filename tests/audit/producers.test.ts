// The events that changes of state produce on their own (not a person's write): the directory
// suspending and reactivating end users and failing to sync, pools and balances running low and
// out, and failed executions. Each is an audit event with its webhook type and its data.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api } from "../helpers";
import { directoryTenant, PATCH_OP, scim, uniqueUserName } from "../directory/helpers";

async function eventsOf(organizationId: string, action: string) {
  return getDb().auditEvent.findMany({ where: { organizationId, action }, orderBy: [{ occurredAt: "asc" }, { id: "asc" }] });
}

describe("the directory's events", () => {
  it("records the end user's creation, suspension and reactivation as the directory, with its request and webhook data", async () => {
    const tenant = await directoryTenant();
    const organizationId = tenant.organization.id;
    const userName = uniqueUserName("carol");
    const created = await scim("POST", "/Users", {
      key: tenant.scimKey,
      body: { userName, displayName: "Carol Danvers" },
      headers: { "x-request-id": "entra-1", "user-agent": "Entra/1.0" },
    });
    expect(created.status).toBe(201);
    const suspended = await scim("PATCH", `/Users/${created.body.id}`, {
      key: tenant.scimKey,
      body: { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "False" }] },
      headers: { "x-request-id": "entra-2" },
    });
    expect(suspended.status).toBe(204);
    await scim("PATCH", `/Users/${created.body.id}`, { key: tenant.scimKey, body: { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "active", value: true }] } });

    const [create] = await eventsOf(organizationId, "end_user.create");
    expect(create).toMatchObject({ actorType: "directory", actorLabel: "Entra ID", door: "scim", requestId: "entra-1", userAgent: "Entra/1.0", webhookType: "end_user.created" });
    const [suspend] = await eventsOf(organizationId, "end_user.suspend");
    expect(suspend).toMatchObject({ actorType: "directory", door: "scim", requestId: "entra-2", webhookType: "end_user.suspended", targetLabel: userName.toLowerCase() });
    expect((suspend!.data as { suspendedAt: string | null }).suspendedAt).toEqual(expect.any(String));
    const [reactivate] = await eventsOf(organizationId, "end_user.reactivate");
    expect(reactivate).toMatchObject({ webhookType: "end_user.reactivated", data: expect.objectContaining({ suspendedAt: null }) });

    // Through the REST API the same person shows as suspended and back, once each.
    const listed = await api("GET", `/audit-events?targetId=${create!.targetId}`, { key: tenant.orgKey.secret });
    expect(listed.body.auditEvents.map((event: { action: string }) => event.action)).toEqual(["end_user.reactivate", "end_user.suspend", "end_user.create"]);
  });

  it("records a refused SCIM request after authentication as directory.sync_failed, and nothing for a bad token", async () => {
    const tenant = await directoryTenant();
    const organizationId = tenant.organization.id;
    const userName = uniqueUserName();
    await scim("POST", "/Users", { key: tenant.scimKey, body: { userName } });
    const clash = await scim("POST", "/Users", { key: tenant.scimKey, body: { userName } });
    expect(clash.status).toBe(409);
    expect((await scim("POST", "/Users", { key: "sk_org_wrong", body: { userName } })).status).toBe(401);

    const failures = await eventsOf(organizationId, "directory.sync_failed");
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ actorType: "directory", door: "scim", outcome: "failure", webhookType: "directory.sync_failed", targetLabel: "POST /Users" });
    expect(failures[0]!.data).toMatchObject({ object: "directory_sync_failure", request: "POST /Users", status: 409, scimType: "uniqueness" });
  });
});
