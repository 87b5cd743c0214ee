// SCIM Groups: Entra ID's and Okta's group requests, copied from their documentation; directory
// groups as user groups that only the directory changes; concurrent PATCHes of one group.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api, expectError } from "../helpers";
import { directoryTenant, expectScimError, PATCH_OP, scim, uniqueUserName, type DirectoryTenant } from "./helpers";

const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";

async function newUser(tenant: DirectoryTenant): Promise<{ id: string; userName: string }> {
  const userName = uniqueUserName();
  const response = await scim("POST", "/Users", {
    key: tenant.scimKey,
    body: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName },
  });
  return { id: response.body.id, userName };
}

async function endUserIdOf(tenant: DirectoryTenant, userName: string): Promise<string> {
  return (
    await getDb().endUser.findFirstOrThrow({ where: { organizationId: tenant.organization.id, email: userName } })
  ).id;
}

async function memberEndUsers(tenant: DirectoryTenant, groupId: string): Promise<string[]> {
  const rows = await getDb().groupMember.findMany({
    where: { groupId, group: { organizationId: tenant.organization.id } },
    select: { endUserId: true },
  });
  return rows.map((row) => row.endUserId).sort();
}

describe("SCIM groups", () => {
  it("creates Entra ID's group as a directory user group, adds and removes members as Entra and Okta do, and renames it", async () => {
    const tenant = await directoryTenant();
    const key = tenant.scimKey;
    const [ann, bob, cy] = [await newUser(tenant), await newUser(tenant), await newUser(tenant)];
    // Entra ID, "Group operations: Create Group" (learn.microsoft.com/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups)
    const created = await scim("POST", "/Groups", {
      key,
      body: {
        schemas: [GROUP, "http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group"],
        externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
        displayName: "Support agents",
        meta: { resourceType: "Group" },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      schemas: [GROUP],
      id: expect.any(String),
      externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
      displayName: "Support agents",
      members: [],
      meta: { resourceType: "Group" },
    });
    const id = created.body.id;
    // The SCIM id is the user group's id on /api/v1.
    expect((await api("GET", `/user-groups/${id}`, { key: tenant.orgKey.secret })).body.userGroup).toMatchObject({
      name: "Support agents",
      directoryManaged: true,
    });

    // Entra ID, "Update Group [Add Members]": {"op":"Add","path":"members","value":[{"$ref":null,"value":"<id>"}]}
    const added = await scim("PATCH", `/Groups/${id}`, {
      key,
      body: {
        schemas: [PATCH_OP],
        Operations: [
          {
            op: "Add",
            path: "members",
            value: [
              { $ref: null, value: ann.id },
              { $ref: null, value: bob.id },
            ],
          },
        ],
      },
    });
    expect(added.status).toBe(204);
    expect(await memberEndUsers(tenant, id)).toEqual(
      [await endUserIdOf(tenant, ann.userName), await endUserIdOf(tenant, bob.userName)].sort(),
    );

    // Okta, "Update a specific group membership (PATCH)": remove by filtered path, add a bare id value, in one request.
    const okta = await scim("PATCH", `/Groups/${id}`, {
      key,
      body: {
        schemas: [PATCH_OP],
        Operations: [
          { op: "remove", path: `members[value eq "${ann.id}"]` },
          {
            op: "add",
            path: "members",
            value: [
              { value: cy.id, display: cy.userName },
              { value: bob.id },
              { value: "00000000-0000-4000-8000-000000000000" },
            ],
          },
        ],
      },
    });
    expect(okta.status).toBe(204);
    const group = (await scim("GET", `/Groups/${id}`, { key })).body;
    expect(group.members.map((member: { value: string }) => member.value).sort()).toEqual([bob.id, cy.id].sort());
    expect(group.members[0]).toMatchObject({
      display: expect.any(String),
      $ref: expect.stringContaining("/scim/v2/Users/"),
    });

    // Entra ID, "Update Group [Remove Members]": {"op":"Remove","path":"members","value":[{"$ref":null,"value":"<id>"}]}; removing one not there is a no-op.
    const removed = await scim("PATCH", `/Groups/${id}`, {
      key,
      body: {
        schemas: [PATCH_OP],
        Operations: [{ op: "Remove", path: "members", value: [{ $ref: null, value: bob.id }, { value: ann.id }] }],
      },
    });
    expect(removed.status).toBe(204);
    expect(await memberEndUsers(tenant, id)).toEqual([await endUserIdOf(tenant, cy.userName)]);

    // Entra ID, "Update Group [Non-member attributes]" and Okta's path-less rename with the id in the value.
    expect(
      (
        await scim("PATCH", `/Groups/${id}`, {
          key,
          body: { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "displayName", value: "Support" }] },
        })
      ).status,
    ).toBe(204);
    expect(
      (
        await scim("PATCH", `/Groups/${id}`, {
          key,
          body: { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { id, displayName: "Support team" } }] },
        })
      ).status,
    ).toBe(204);
    expect((await api("GET", `/user-groups/${id}`, { key: tenant.orgKey.secret })).body.userGroup.name).toBe(
      "Support team",
    );

    // Entra ID's lookup: GET /Groups?excludedAttributes=members&filter=displayName eq "displayName"
    const found = await scim(
      "GET",
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "support TEAM"')}`,
      { key },
    );
    expect(found.body.totalResults).toBe(1);
    expect(found.body.Resources[0]).not.toHaveProperty("members");
    const byMember = await scim("GET", `/Groups?filter=${encodeURIComponent(`members[value eq "${cy.id}"]`)}`, { key });
    expect(byMember.body.Resources.map((item: { id: string }) => item.id)).toEqual([id]);
  });

  it("refuses hand edits of a directory group's members and name with 409 directory_managed, and allows its description", async () => {
    const tenant = await directoryTenant();
    const user = await newUser(tenant);
    const group = (
      await scim("POST", "/Groups", {
        key: tenant.scimKey,
        body: { schemas: [GROUP], displayName: "Directory group", members: [{ value: user.id }] },
      })
    ).body;
    const endUserId = await endUserIdOf(tenant, user.userName);
    const other = (
      await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: uniqueUserName("hand") } })
    ).body.endUser.id;
    const key = tenant.orgKey.secret;
    expectError(
      await api("POST", `/user-groups/${group.id}/members`, { key, body: { endUserId: other } }),
      409,
      "directory_managed",
    );
    expectError(
      await api("DELETE", `/user-groups/${group.id}/members/${endUserId}`, { key }),
      409,
      "directory_managed",
    );
    expectError(
      await api("PATCH", `/user-groups/${group.id}`, { key, body: { name: "Renamed by hand" } }),
      409,
      "directory_managed",
    );
    expectError(
      await api("POST", "/end-users", { key, body: { email: uniqueUserName("p"), groupIds: [group.id] } }),
      409,
      "directory_managed",
    );
    expect(
      (await api("PATCH", `/user-groups/${group.id}`, { key, body: { description: "Granted the Support app" } }))
        .status,
    ).toBe(200);
    expect(await memberEndUsers(tenant, group.id)).toEqual([endUserId]);
    expect((await api("GET", `/user-groups/${group.id}`, { key })).body.userGroup.name).toBe("Directory group");
  });

  it("deletes the group and its memberships, not the end users; refuses an invalid group atomically", async () => {
    const tenant = await directoryTenant();
    const user = await newUser(tenant);
    const group = (
      await scim("POST", "/Groups", { key: tenant.scimKey, body: { displayName: "Leaving", members: [user.id] } })
    ).body;
    expect(group.members).toHaveLength(1);
    const failed = await scim("PATCH", `/Groups/${group.id}`, {
      key: tenant.scimKey,
      body: {
        schemas: [PATCH_OP],
        Operations: [
          { op: "remove", path: "members" },
          { op: "replace", path: "displayName", value: "" },
        ],
      },
    });
    expectScimError(failed, 400, "invalidValue");
    expect((await scim("GET", `/Groups/${group.id}`, { key: tenant.scimKey })).body.members).toHaveLength(1);
    expectScimError(
      await scim("POST", "/Groups", { key: tenant.scimKey, body: { schemas: [GROUP] } }),
      400,
      "invalidValue",
    );

    expect((await scim("DELETE", `/Groups/${group.id}`, { key: tenant.scimKey })).status).toBe(204);
    expectScimError(await scim("GET", `/Groups/${group.id}`, { key: tenant.scimKey }), 404);
    expect(await getDb().endUser.count({ where: { organizationId: tenant.organization.id, deletedAt: null } })).toBe(1);
  });

  it("applies PATCHes of 5,000 members at once, adding and removing, to exactly the members named", async () => {
    const tenant = await directoryTenant();
    const key = tenant.scimKey;
    const organizationId = tenant.organization.id;
    // Seeded in one statement: 5,000 POSTs would test the POST, not the PATCH.
    const users = await getDb().$queryRaw<{ id: string; endUserId: string }[]>`
      with end_users_made as (
        insert into end_users (id, organization_id, email, updated_at)
        select gen_random_uuid(), ${organizationId}::uuid, 'bulk' || n || '@contoso.example', now() from generate_series(1, 5000) n
        returning id, email)
      insert into directory_users (id, organization_id, user_name, user_name_key, attributes, end_user_id, updated_at)
      select gen_random_uuid(), ${organizationId}::uuid, email, email, '{}', id, now() from end_users_made
      returning id::text, end_user_id::text as "endUserId"`;
    const ids = users.map((user) => user.id);
    const endUserOf = new Map(users.map((user) => [user.id, user.endUserId]));
    const group = (
      await scim("POST", "/Groups", {
        key,
        body: { schemas: [GROUP], displayName: "Everyone", members: ids.slice(0, 100).map((value) => ({ value })) },
      })
    ).body;
    const membersOf = async () =>
      ((await scim("GET", `/Groups/${group.id}`, { key })).body.members as { value: string }[])
        .map((member) => member.value)
        .sort();

    // Entra ID and Okta push a whole department as one operation of many values (the first 100 are there already).
    const added = await scim("PATCH", `/Groups/${group.id}`, {
      key,
      body: {
        schemas: [PATCH_OP],
        Operations: [{ op: "add", path: "members", value: ids.map((value) => ({ value })) }],
      },
    });
    expect(added.status).toBe(204);
    expect(await membersOf()).toEqual([...ids].sort());
    expect(await memberEndUsers(tenant, group.id)).toEqual([...endUserOf.values()].sort());

    const removed = await scim("PATCH", `/Groups/${group.id}`, {
      key,
      body: {
        schemas: [PATCH_OP],
        Operations: [
          { op: "remove", path: "members", value: ids.slice(0, 2_500).map((value) => ({ value })) },
          { op: "remove", path: `members[value eq "${ids[4_999]}"]` },
          { op: "add", path: "members", value: [{ value: ids[0] }, { value: ids[2_500] }] },
        ],
      },
    });
    expect(removed.status).toBe(204);
    const left = [ids[0]!, ...ids.slice(2_500, 4_999)].sort();
    expect(await membersOf()).toEqual(left);
    expect(await memberEndUsers(tenant, group.id)).toEqual(left.map((id) => endUserOf.get(id)!).sort());
  }, 60_000);

  it("applies 20 concurrent PATCHes of one group, each adding a member, without losing one", async () => {
    const tenant = await directoryTenant();
    const users = await Promise.all(Array.from({ length: 20 }, () => newUser(tenant)));
    const group = (await scim("POST", "/Groups", { key: tenant.scimKey, body: { displayName: "Busy" } })).body;
    const answers = await Promise.all(
      users.map((user) =>
        scim("PATCH", `/Groups/${group.id}`, {
          key: tenant.scimKey,
          body: { schemas: [PATCH_OP], Operations: [{ op: "add", path: "members", value: [{ value: user.id }] }] },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(users.map(() => 204));
    const members = (await scim("GET", `/Groups/${group.id}`, { key: tenant.scimKey })).body.members;
    expect(members.map((member: { value: string }) => member.value).sort()).toEqual(
      users.map((user) => user.id).sort(),
    );
    expect(await memberEndUsers(tenant, group.id)).toHaveLength(20);
  });
});
