// SCIM Users: the requests Entra ID and Okta send, copied from their documentation, and the
// contract's rules for directory users and the end users they stand for.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { endUserForSession, startEndUserSession } from "@/server/services/portal/end-user-sessions";
import { findActiveEndUser } from "@/server/services/portal/portal-access";
import { api, expectError, issueKey, newOrganization } from "../helpers";
import { newPlan } from "../provisioning-helpers";
import { directoryTenant, expectScimError, PATCH_OP, scim, uniqueUserName } from "./helpers";

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

/**
 * Entra ID's "Create User" request, from learn.microsoft.com/entra/identity/app-provisioning/
 * use-scim-to-provision-users-and-groups ("User operations: Create User"), with the enterprise
 * extension's attributes Entra maps by default (employeeNumber, department, manager).
 */
function entraCreateUser(userName: string, email: string) {
  return {
    schemas: [USER, ENTERPRISE],
    externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
    userName,
    active: true,
    emails: [{ primary: true, type: "work", value: email }],
    meta: { resourceType: "User" },
    name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
    roles: [],
    [ENTERPRISE]: {
      employeeNumber: "701984",
      department: "Tour Operations",
      manager: { value: "26118915-6090-4610-87e4-49d8ca9f808d" },
    },
  };
}

/** Okta's "Create the user" request, from developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20 (POST /Users). */
function oktaCreateUser(userName: string) {
  return {
    schemas: [USER],
    userName,
    name: { givenName: "Test", familyName: "User" },
    emails: [{ primary: true, value: userName, type: "work" }],
    displayName: "Test User",
    locale: "en-US",
    externalId: "00ujl29u0le5T6Aj10h7",
    groups: [],
    password: "1mz050nq",
    active: true,
  };
}

async function endUserOf(organizationId: string, email: string) {
  return getDb().endUser.findFirst({ where: { organizationId, email: email.toLowerCase() } });
}

describe("SCIM credentials", () => {
  it("answers 401 without a key and 403 for a key without the scim scope, in SCIM's error shape", async () => {
    const tenant = await directoryTenant();
    const none = await scim("GET", "/Users");
    expectScimError(none, 401);
    expect(none.headers.get("content-type")).toContain("application/scim+json");
    expectScimError(await scim("GET", "/Users", { key: "sk_org_nothing" }), 401);
    expectScimError(await scim("GET", "/Users", { key: tenant.orgKey.secret }), 403);
    expectScimError(await scim("GET", "/Users", { key: tenant.personalKey.secret }), 403);
  });

  it("gives a scim key nothing outside SCIM, and gives the scope only when asked for", async () => {
    const tenant = await directoryTenant();
    expectError(await api("GET", "/end-users", { key: tenant.scimKey }), 403, "insufficient_scope");
    expectError(await api("GET", "/models", { key: tenant.scimKey }), 403, "insufficient_scope");
    expect(tenant.orgKey.scopes).not.toContain("scim");
    await expect(
      issueKey(tenant.operator, { kind: "organization", scopes: ["scim", "end_users:read"] }),
    ).rejects.toMatchObject({ code: "invalid_request" });
    await expect(
      issueKey(tenant.operator, { kind: "personal", memberId: tenant.owner.member.id, scopes: ["scim"] }),
    ).rejects.toMatchObject({ code: "invalid_request" });
  });

  it("answers 403 when the organization's API is off", async () => {
    const tenant = await directoryTenant();
    await getDb().organization.update({ where: { id: tenant.organization.id }, data: { apiEnabled: false } });
    expectScimError(await scim("GET", "/Users", { key: tenant.scimKey }), 403);
  });

  it("refuses a body over the bound with 413 in SCIM's shape, and writes nothing", async () => {
    const tenant = await directoryTenant();
    const huge = JSON.stringify({ schemas: [USER], userName: uniqueUserName(), title: "x".repeat(9 * 1024 * 1024) });
    expectScimError(await scim("POST", "/Users", { key: tenant.scimKey, rawBody: huge }), 413);
    expect(await getDb().directoryUser.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  });
});

describe("SCIM refusals", () => {
  it("records a refusal whose request holds U+0000 like any other, and answers without echoing the NUL", async () => {
    const tenant = await directoryTenant();
    const organizationId = tenant.organization.id;
    const key = tenant.scimKey;
    const user = await scim("POST", "/Users", { key, body: { schemas: [USER], userName: uniqueUserName() } });
    const badPath = await scim("PATCH", `/Users/${user.body.id}`, {
      key,
      body: { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "name.given\u0000Name.x", value: "x" }] },
    });
    expectScimError(badPath, 400, "invalidPath");
    expect(badPath.body.detail).not.toContain("\u0000");
    expect(badPath.body.detail).toContain("given\\u0000Name");
    const badFilter = await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "a" \u0000')}`, { key });
    expectScimError(badFilter, 400, "invalidFilter");
    expect(badFilter.body.detail).not.toContain("\u0000");

    const events = await getDb().directoryEvent.findMany({ where: { organizationId }, orderBy: { createdAt: "asc" } });
    expect(events.map((event) => [event.action, event.status])).toEqual([
      ["POST /Users", 201],
      [`PATCH /Users/${user.body.id}`, 400],
      ["GET /Users", 400],
    ]);
    expect(events[1]!.detail).toBe(badPath.body.detail);
    const failures = await getDb().auditEvent.findMany({
      where: { organizationId, action: "directory.sync_failed" },
      orderBy: [{ occurredAt: "asc" }, { id: "asc" }],
    });
    expect(failures.map((event) => (event.data as { scimType: string }).scimType)).toEqual([
      "invalidPath",
      "invalidFilter",
    ]);
  });
});

describe("SCIM users", () => {
  it("creates Entra ID's user: 201 with the resource, and an end user by the primary email", async () => {
    const tenant = await directoryTenant();
    const userName = uniqueUserName("Test_User");
    const email = `Test_User_${Date.now()}@testuser.com`;
    const created = await scim("POST", "/Users", { key: tenant.scimKey, body: entraCreateUser(userName, email) });
    expect(created.status).toBe(201);
    expect(created.headers.get("content-type")).toContain("application/scim+json");
    expect(created.body).toMatchObject({
      schemas: [USER, ENTERPRISE],
      id: expect.any(String),
      externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
      userName,
      active: true,
      emails: [{ primary: true, type: "work", value: email }],
      name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
      [ENTERPRISE]: {
        employeeNumber: "701984",
        department: "Tour Operations",
        manager: { value: "26118915-6090-4610-87e4-49d8ca9f808d" },
      },
      meta: {
        resourceType: "User",
        created: expect.any(String),
        lastModified: expect.any(String),
        location: expect.stringContaining(`/scim/v2/Users/${created.body.id}`),
        version: 'W/"1"',
      },
    });
    expect(created.headers.get("location")).toBe(created.body.meta.location);

    const endUser = await endUserOf(tenant.organization.id, email);
    expect(endUser).toMatchObject({
      email: email.toLowerCase(),
      fullName: "givenName familyName",
      authMethod: "directory",
      suspendedAt: null,
    });
    expect(created.body.id).not.toBe(endUser!.id);
    const viaRest = await api("GET", `/end-users/${endUser!.id}`, { key: tenant.orgKey.secret });
    expect(viaRest.body.endUser).toMatchObject({ authMethod: "directory", suspendedAt: null });

    const fetched = await scim("GET", `/Users/${created.body.id}`, { key: tenant.scimKey });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(created.body);
  });

  it("creates Okta's user, keeps no password, and answers Okta's lookup filter", async () => {
    const tenant = await directoryTenant();
    const userName = uniqueUserName("test.user");
    const created = await scim("POST", "/Users", { key: tenant.scimKey, body: oktaCreateUser(userName) });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty("password");
    expect(created.body).toMatchObject({ displayName: "Test User", locale: "en-US", userName });
    expect(JSON.stringify(await getDb().directoryUser.findUnique({ where: { id: created.body.id } }))).not.toContain(
      "1mz050nq",
    );
    expect((await endUserOf(tenant.organization.id, userName))!.fullName).toBe("Test User");

    // Okta: GET /Users?filter=userName eq "test.user@okta.local"&startIndex=1&count=100
    const found = await scim(
      "GET",
      `/Users?filter=${encodeURIComponent(`userName eq "${userName.toUpperCase()}"`)}&startIndex=1&count=100`,
      { key: tenant.scimKey },
    );
    expect(found.body).toMatchObject({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
      totalResults: 1,
      startIndex: 1,
      itemsPerPage: 1,
    });
    expect(found.body.Resources[0].id).toBe(created.body.id);
    const missing = await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "nobody@okta.local"')}`, {
      key: tenant.scimKey,
    });
    expect(missing.body).toMatchObject({ totalResults: 0, itemsPerPage: 0, Resources: [] });
  });

  it("refuses a second userName in any case with 409 uniqueness, and a user without userName with 400", async () => {
    const tenant = await directoryTenant();
    const userName = uniqueUserName();
    expect((await scim("POST", "/Users", { key: tenant.scimKey, body: { schemas: [USER], userName } })).status).toBe(
      201,
    );
    expectScimError(
      await scim("POST", "/Users", {
        key: tenant.scimKey,
        body: { schemas: [USER], userName: userName.toUpperCase() },
      }),
      409,
      "uniqueness",
    );
    expectScimError(
      await scim("POST", "/Users", { key: tenant.scimKey, body: { schemas: [USER], displayName: "No name" } }),
      400,
      "invalidValue",
    );
    expectScimError(await scim("POST", "/Users", { key: tenant.scimKey, rawBody: "{not json" }), 400, "invalidSyntax");
    expect(await getDb().directoryUser.count({ where: { organizationId: tenant.organization.id } })).toBe(1);
  });

  it('suspends the end user on Entra\'s Replace active "False" and restores them on "True"', async () => {
    const tenant = await directoryTenant();
    const userName = uniqueUserName();
    const created = await scim("POST", "/Users", {
      key: tenant.scimKey,
      body: { schemas: [USER], userName, active: true },
    });
    const endUser = (await endUserOf(tenant.organization.id, userName))!;
    const { tierPlan } = await newPlan(tenant.operator, { credits: 50 });
    await api("POST", "/end-users", {
      key: tenant.orgKey.secret,
      body: { email: userName, tierPlanIds: [tierPlan.id] },
    });
    const portal = { id: "00000000-0000-0000-0000-000000000000", organizationId: tenant.organization.id };
    const session = await startEndUserSession(getDb(), { id: endUser.id, organizationId: tenant.organization.id });
    expect(await endUserForSession(getDb(), session.token, portal)).not.toBeNull();

    // Entra ID, "Update User [Single-valued properties]"/"Disable User": {"op":"Replace","path":"active","value":"False"}
    const disabled = await scim("PATCH", `/Users/${created.body.id}`, {
      key: tenant.scimKey,
      body: { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "False" }] },
    });
    expect(disabled.status).toBe(204);
    expect(disabled.text).toBe("");
    const suspended = (await getDb().endUser.findUniqueOrThrow({ where: { id: endUser.id } }))!;
    expect(suspended.suspendedAt).not.toBeNull();
    expect(suspended.deletedAt).toBeNull();
    expect(await endUserForSession(getDb(), session.token, portal)).toBeNull();
    expect(await getDb().endUserSession.count({ where: { endUserId: endUser.id } })).toBe(0);
    await expect(findActiveEndUser(getDb(), tenant.organization.id, endUser.id)).rejects.toMatchObject({
      code: "not_found",
    });
    // Nothing of theirs is deleted: the subscription is still there.
    expect(await getDb().subscription.count({ where: { endUserId: endUser.id, status: "active" } })).toBe(1);
    expect((await api("GET", `/end-users/${endUser.id}`, { key: tenant.orgKey.secret })).body.endUser.suspendedAt).toBe(
      suspended.suspendedAt!.toISOString(),
    );
    expect((await scim("GET", `/Users/${created.body.id}`, { key: tenant.scimKey })).body.active).toBe(false);

    const enabled = await scim("PATCH", `/Users/${created.body.id}`, {
      key: tenant.scimKey,
      body: { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "True" }] },
    });
    expect(enabled.status).toBe(204);
    expect((await getDb().endUser.findUniqueOrThrow({ where: { id: endUser.id } })).suspendedAt).toBeNull();
    await expect(findActiveEndUser(getDb(), tenant.organization.id, endUser.id)).resolves.toMatchObject({
      id: endUser.id,
    });
  });

  it("suspends on Okta's path-less replace {active:false}", async () => {
    const tenant = await directoryTenant();
    const userName = uniqueUserName();
    const created = await scim("POST", "/Users", { key: tenant.scimKey, body: oktaCreateUser(userName) });
    // Okta, "Update a specific user (PATCH)": {"op":"replace","value":{"active":false}}
    const response = await scim("PATCH", `/Users/${created.body.id}`, {
      key: tenant.scimKey,
      body: { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] },
    });
    expect(response.status).toBe(204);
    expect((await endUserOf(tenant.organization.id, userName))!.suspendedAt).not.toBeNull();
  });

  it("follows Okta's lifecycle through the server: deactivate, reactivate, PUT with a new userName, DELETE", async () => {
    const tenant = await directoryTenant();
    const key = tenant.scimKey;
    const userName = uniqueUserName("okta.user");
    const created = await scim("POST", "/Users", { key, body: oktaCreateUser(userName) });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const endUser = (await endUserOf(tenant.organization.id, userName))!;
    // Okta, "Update a specific user (PATCH)": deactivation, then reactivation, each a path-less replace.
    const okta = (active: boolean) => ({
      schemas: [PATCH_OP],
      Operations: [{ op: "replace", value: { active } }],
    });
    expect((await scim("PATCH", `/Users/${id}`, { key, body: okta(false) })).status).toBe(204);
    expect((await getDb().endUser.findUniqueOrThrow({ where: { id: endUser.id } })).suspendedAt).not.toBeNull();
    expect((await scim("PATCH", `/Users/${id}`, { key, body: okta(true) })).status).toBe(204);
    expect((await getDb().endUser.findUniqueOrThrow({ where: { id: endUser.id } })).suspendedAt).toBeNull();

    // Okta, "Update a specific user (PUT)": the whole user again, here renamed (userName and primary email).
    const renamed = uniqueUserName("okta.renamed");
    const put = await scim("PUT", `/Users/${id}`, {
      key,
      body: { ...oktaCreateUser(renamed), id, emails: [{ primary: true, value: renamed, type: "work" }] },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id, userName: renamed, active: true });
    expect(await endUserOf(tenant.organization.id, renamed)).toMatchObject({ suspendedAt: null });
    expect((await endUserOf(tenant.organization.id, userName))!.suspendedAt).not.toBeNull();
    const byNewName = await scim("GET", `/Users?filter=${encodeURIComponent(`userName eq "${renamed}"`)}`, { key });
    expect(byNewName.body.Resources.map((user: { id: string }) => user.id)).toEqual([id]);

    expect((await scim("DELETE", `/Users/${id}`, { key })).status).toBe(204);
    expect((await endUserOf(tenant.organization.id, renamed))!.suspendedAt).not.toBeNull();
    expectScimError(await scim("GET", `/Users/${id}`, { key }), 404);
  });

  it("applies Entra's multi-valued and dotted replaces, path-less extension keys, and answers 200 when attributes are named", async () => {
    const tenant = await directoryTenant();
    const userName = uniqueUserName();
    const created = await scim("POST", "/Users", {
      key: tenant.scimKey,
      body: { schemas: [USER], userName, name: { givenName: "Ann", familyName: "Old" } },
    });
    // Entra ID, "Update User [Multi-valued properties]"
    const response = await scim("PATCH", `/Users/${created.body.id}?attributes=emails,name`, {
      key: tenant.scimKey,
      body: {
        schemas: [PATCH_OP],
        Operations: [
          { op: "Replace", path: 'emails[type eq "work"].value', value: "updatedEmail@microsoft.com" },
          { op: "Replace", path: "name.familyName", value: "updatedFamilyName" },
          {
            op: "Add",
            value: {
              "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department": "Sales",
              "name.GivenName": "Anne",
              Title: "Lead",
            },
          },
        ],
      },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      schemas: [USER, ENTERPRISE],
      id: created.body.id,
      emails: [{ type: "work", value: "updatedEmail@microsoft.com" }],
      name: { givenName: "Anne", familyName: "updatedFamilyName" },
    });
    const full = (await scim("GET", `/Users/${created.body.id}`, { key: tenant.scimKey })).body;
    expect(full).toMatchObject({ title: "Lead", [ENTERPRISE]: { department: "Sales" }, meta: { version: 'W/"2"' } });
    // The work email now names the end user: a new one, and the old address loses its directory user.
    expect(await endUserOf(tenant.organization.id, "updatedemail@microsoft.com")).toMatchObject({
      fullName: "Anne updatedFamilyName",
      suspendedAt: null,
    });
    expect((await endUserOf(tenant.organization.id, userName))!.suspendedAt).not.toBeNull();
  });

  it("writes nothing of a PATCH whose later operation cannot apply", async () => {
    const tenant = await directoryTenant();
    const userName = uniqueUserName();
    const created = await scim("POST", "/Users", {
      key: tenant.scimKey,
      body: { schemas: [USER], userName, displayName: "Before" },
    });
    const failed = await scim("PATCH", `/Users/${created.body.id}`, {
      key: tenant.scimKey,
      body: {
        schemas: [PATCH_OP],
        Operations: [
          { op: "replace", path: "displayName", value: "After" },
          { op: "replace", path: "active", value: "maybe" },
        ],
      },
    });
    expectScimError(failed, 400, "invalidValue");
    expectScimError(
      await scim("PATCH", `/Users/${created.body.id}`, {
        key: tenant.scimKey,
        body: { schemas: [PATCH_OP], Operations: [{ op: "remove" }] },
      }),
      400,
      "noTarget",
    );
    expectScimError(
      await scim("PATCH", `/Users/${created.body.id}`, {
        key: tenant.scimKey,
        body: { schemas: [PATCH_OP], Operations: [{ op: "move", path: "title" }] },
      }),
      400,
      "invalidSyntax",
    );
    expectScimError(
      await scim("PATCH", `/Users/${created.body.id}`, {
        key: tenant.scimKey,
        body: { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "emails[type eq", value: "x" }] },
      }),
      400,
      "invalidPath",
    );
    expectScimError(
      await scim("PATCH", `/Users/${created.body.id}`, {
        key: tenant.scimKey,
        body: { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "id", value: "x" }] },
      }),
      400,
      "mutability",
    );
    const after = await scim("GET", `/Users/${created.body.id}`, { key: tenant.scimKey });
    expect(after.body).toMatchObject({ displayName: "Before", active: true, meta: { version: 'W/"1"' } });
  });

  it("replaces a user with PUT, keeping the id", async () => {
    const tenant = await directoryTenant();
    const created = await scim("POST", "/Users", { key: tenant.scimKey, body: oktaCreateUser(uniqueUserName()) });
    const userName = uniqueUserName("renamed");
    const replaced = await scim("PUT", `/Users/${created.body.id}`, {
      key: tenant.scimKey,
      body: { schemas: [USER], id: created.body.id, userName, displayName: "Renamed", active: true },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id: created.body.id, userName, displayName: "Renamed" });
    expect(replaced.body).not.toHaveProperty("locale");
    expectScimError(
      await scim("PUT", `/Users/${created.body.id}`, { key: tenant.scimKey, body: { schemas: [USER] } }),
      400,
      "invalidValue",
    );
  });

  it("shares one end user between directory users of one address, and suspends it only when none is active", async () => {
    const tenant = await directoryTenant();
    const address = uniqueUserName("shared");
    const first = await scim("POST", "/Users", {
      key: tenant.scimKey,
      body: { schemas: [USER], userName: uniqueUserName(), emails: [{ value: address }] },
    });
    const second = await scim("POST", "/Users", {
      key: tenant.scimKey,
      body: { schemas: [USER], userName: uniqueUserName(), emails: [{ value: address, type: "work" }] },
    });
    const rows = await getDb().directoryUser.findMany({ where: { id: { in: [first.body.id, second.body.id] } } });
    expect(new Set(rows.map((row) => row.endUserId)).size).toBe(1);
    expect(await getDb().endUser.count({ where: { organizationId: tenant.organization.id } })).toBe(1);

    expect((await scim("DELETE", `/Users/${first.body.id}`, { key: tenant.scimKey })).status).toBe(204);
    expect((await endUserOf(tenant.organization.id, address))!.suspendedAt).toBeNull();
    expect((await scim("DELETE", `/Users/${second.body.id}`, { key: tenant.scimKey })).status).toBe(204);
    const left = (await endUserOf(tenant.organization.id, address))!;
    expect(left).toMatchObject({ deletedAt: null, suspendedAt: expect.any(Date) });
    expectScimError(await scim("GET", `/Users/${second.body.id}`, { key: tenant.scimKey }), 404);
  });

  it("subscribes new end users to the directory default plan, and leaves an end user deleted through the API deleted", async () => {
    const tenant = await directoryTenant();
    const { tierPlan: plan } = await newPlan(tenant.operator, { credits: 75 });
    await getDb().organization.update({
      where: { id: tenant.organization.id },
      data: { directoryDefaultPlanId: plan.id },
    });
    const userName = uniqueUserName();
    const created = await scim("POST", "/Users", { key: tenant.scimKey, body: { schemas: [USER], userName } });
    const endUser = (await endUserOf(tenant.organization.id, userName))!;
    expect(
      await getDb().subscription.findMany({
        where: { endUserId: endUser.id },
        select: { tierPlanId: true, creditAllowance: true },
      }),
    ).toEqual([{ tierPlanId: plan.id, creditAllowance: 75 }]);

    expect((await api("DELETE", `/end-users/${endUser.id}`, { key: tenant.orgKey.secret })).status).toBe(204);
    expect((await getDb().directoryUser.findUniqueOrThrow({ where: { id: created.body.id } })).endUserId).toBeNull();
    const patched = await scim("PATCH", `/Users/${created.body.id}`, {
      key: tenant.scimKey,
      body: { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "displayName", value: "Back" }] },
    });
    expect(patched.status).toBe(204);
    expect((await getDb().endUser.findUniqueOrThrow({ where: { id: endUser.id } })).deletedAt).not.toBeNull();
    expect((await getDb().directoryUser.findUniqueOrThrow({ where: { id: created.body.id } })).endUserId).toBeNull();
  });
});

describe("SCIM user lists", () => {
  it("filters with and/or/sw/pr/not, unquoted values, attribute names in any case, and pages with startIndex and count", async () => {
    const tenant = await directoryTenant();
    const key = tenant.scimKey;
    const suffix = Math.random().toString(36).slice(2, 8);
    const names = ["ann", "bob", "carl", "dana", "eve"].map((name) => `${name}.${suffix}@contoso.example`);
    const ids: string[] = [];
    for (const [index, userName] of names.entries()) {
      const body = {
        schemas: [USER],
        userName,
        active: index !== 4,
        name: { familyName: index < 2 ? "Smith" : "Jones" },
        externalId: `ext-${index}`,
      };
      ids.push((await scim("POST", "/Users", { key, body })).body.id);
    }
    const list = async (filter: string, extra = "") =>
      (await scim("GET", `/Users?filter=${encodeURIComponent(filter)}${extra}`, { key })).body;
    const userNames = (body: { Resources: { userName: string }[] }) => body.Resources.map((user) => user.userName);

    expect(userNames(await list(`userName sw "ann" or userName sw "BOB"`))).toEqual(names.slice(0, 2));
    expect(userNames(await list(`name.FAMILYNAME eq "jones" and active eq true`))).toEqual(names.slice(2, 4));
    expect(userNames(await list(`userName eq ${names[2]}`))).toEqual([names[2]]);
    expect(userNames(await list(`active eq "False"`))).toEqual([names[4]]);
    expect(userNames(await list(`not (name.familyName eq "Jones") and externalId pr`))).toEqual(names.slice(0, 2));
    expect(userNames(await list(`externalId eq "ext-3"`))).toEqual([names[3]]);
    expect(userNames(await list(`(userName co "${suffix}") and meta.created gt "2000-01-01T00:00:00Z"`))).toEqual(
      names,
    );

    const second = (await scim("GET", "/Users?startIndex=2&count=2", { key })).body;
    expect(second).toMatchObject({ totalResults: 5, startIndex: 2, itemsPerPage: 2 });
    expect(second.Resources.map((user: { id: string }) => user.id)).toEqual(ids.slice(1, 3));
    const filteredPage = await list(`userName co "${suffix}"`, "&startIndex=5&count=10");
    expect(filteredPage).toMatchObject({ totalResults: 5, startIndex: 5, itemsPerPage: 1 });

    const only = (await scim("GET", `/Users?attributes=userName&count=1`, { key })).body.Resources[0];
    expect(Object.keys(only).sort()).toEqual(["id", "schemas", "userName"]);
    const without = (await scim("GET", `/Users?excludedAttributes=name,meta&count=1`, { key })).body.Resources[0];
    expect(without).not.toHaveProperty("name");
    expect(without).not.toHaveProperty("meta");
  });

  it("refuses filters that do not parse with 400 invalidFilter, fast on long or hostile input", async () => {
    const tenant = await directoryTenant();
    const key = tenant.scimKey;
    for (const filter of [
      `userName eq`,
      `userName zz "x"`,
      `(userName eq "x"`,
      `userName eq "open`,
      "(".repeat(40) + 'userName eq "x"' + ")".repeat(40),
    ]) {
      expectScimError(await scim("GET", `/Users?filter=${encodeURIComponent(filter)}`, { key }), 400, "invalidFilter");
    }
    const started = Date.now();
    // An unterminated string full of newlines backtracks exponentially in the library's own tokenizer.
    expectScimError(
      await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "' + "\n".repeat(2000))}`, { key }),
      400,
      "invalidFilter",
    );
    // Over the filter's 2,048 characters, within the 16 KB a request's head may take.
    expectScimError(
      await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "a" or '.repeat(400))}`, { key }),
      400,
      "invalidFilter",
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("SCIM tenancy", () => {
  it("never shows or changes one organization's directory to another's token", async () => {
    const a = await directoryTenant();
    const b = await directoryTenant();
    const user = await scim("POST", "/Users", {
      key: a.scimKey,
      body: { schemas: [USER], userName: uniqueUserName() },
    });
    const group = await scim("POST", "/Groups", {
      key: a.scimKey,
      body: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Support agents" },
    });
    expectScimError(await scim("GET", `/Users/${user.body.id}`, { key: b.scimKey }), 404);
    expectScimError(
      await scim("PATCH", `/Users/${user.body.id}`, {
        key: b.scimKey,
        body: { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] },
      }),
      404,
    );
    expectScimError(await scim("DELETE", `/Users/${user.body.id}`, { key: b.scimKey }), 404);
    expectScimError(await scim("GET", `/Groups/${group.body.id}`, { key: b.scimKey }), 404);
    expect((await scim("GET", "/Users", { key: b.scimKey })).body.totalResults).toBe(0);
    expect((await scim("GET", "/Groups", { key: b.scimKey })).body.totalResults).toBe(0);
    // B's group cannot take A's user as a member: the value names no directory user of B.
    const foreign = await scim("POST", "/Groups", {
      key: b.scimKey,
      body: { displayName: "Mixed", members: [{ value: user.body.id }] },
    });
    expect(foreign.body.members).toEqual([]);
    expect((await scim("GET", `/Users/${user.body.id}`, { key: a.scimKey })).body.active).toBe(true);
    expect(await newOrganization()).toBeTruthy();
  });
});

describe("SCIM discovery", () => {
  it("describes itself: ServiceProviderConfig, ResourceTypes and Schemas", async () => {
    const tenant = await directoryTenant();
    const config = await scim("GET", "/ServiceProviderConfig", { key: tenant.scimKey });
    expect(config.body).toMatchObject({
      patch: { supported: true },
      filter: { supported: true, maxResults: 1000 },
      bulk: { supported: false },
    });
    const types = await scim("GET", "/ResourceTypes", { key: tenant.scimKey });
    expect(types.body.Resources.map((type: { name: string }) => type.name)).toEqual(["User", "Group"]);
    const schemas = await scim("GET", "/Schemas", { key: tenant.scimKey });
    expect(schemas.body.Resources.map((schema: { id: string }) => schema.id)).toEqual([
      USER,
      ENTERPRISE,
      "urn:ietf:params:scim:schemas:core:2.0:Group",
    ]);
    expect((await scim("GET", `/Schemas/${USER}`, { key: tenant.scimKey })).body.attributes[0]).toMatchObject({
      name: "userName",
      required: true,
      uniqueness: "server",
    });
    expectScimError(await scim("GET", "/Nothing", { key: tenant.scimKey }), 404);
    expectScimError(await scim("DELETE", "/ServiceProviderConfig", { key: tenant.scimKey }), 405);
  });
});
