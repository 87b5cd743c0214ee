// User groups, plan groups, portals and tier plans through the REST door.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { updateOrganization } from "@/server/services/org/organizations";
import { addPerson, api, expectError, issueKey, newOrganization } from "../helpers";
import { email, newGroup, newPlan, newPortal } from "../provisioning-helpers";

async function endUser(key: string, body: Record<string, unknown> = {}): Promise<string> {
  return (await api("POST", "/end-users", { key, body: { email: email(), ...body } })).body.endUser.id;
}

describe("user groups", () => {
  it("creates, lists, gets, renames and deletes a group", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const created = await api("POST", "/user-groups", {
      key,
      body: { name: "Beta testers", description: "Early access" },
    });
    expect(created.status).toBe(201);
    expect(created.body.userGroup).toEqual({
      id: expect.any(String),
      name: "Beta testers",
      description: "Early access",
      createdAt: expect.any(String),
      memberCount: 0,
      planId: null,
      directoryManaged: false,
    });
    const id = created.body.userGroup.id;
    expect((await api("GET", "/user-groups", { key })).body).toEqual({
      userGroups: [created.body.userGroup],
      nextCursor: null,
    });

    const renamed = await api("PATCH", `/user-groups/${id}`, { key, body: { name: "Testers" } });
    expect(renamed.body.userGroup).toMatchObject({ name: "Testers", description: "Early access" });
    expect((await api("GET", `/user-groups/${id}`, { key })).body.userGroup.name).toBe("Testers");

    expect((await api("DELETE", `/user-groups/${id}`, { key })).status).toBe(204);
    expectError(await api("GET", `/user-groups/${id}`, { key }), 404, "not_found");
  });

  it("adds members (201, then 200 when already a member), counts them, and removes them", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const group = await newGroup(tenant.operator);
    const user = await endUser(key);

    const added = await api("POST", `/user-groups/${group.id}/members`, { key, body: { endUserId: user } });
    expect(added.status).toBe(201);
    expect(added.body.member).toEqual({ groupId: group.id, endUserId: user, addedAt: expect.any(String) });
    const again = await api("POST", `/user-groups/${group.id}/members`, { key, body: { endUserId: user } });
    expect(again.status).toBe(200);
    expect(again.body.member.addedAt).toBe(added.body.member.addedAt);
    expect((await api("GET", `/user-groups/${group.id}`, { key })).body.userGroup.memberCount).toBe(1);

    expect((await api("DELETE", `/user-groups/${group.id}/members/${user}`, { key })).status).toBe(204);
    expectError(await api("DELETE", `/user-groups/${group.id}/members/${user}`, { key }), 404, "not_found");
  });

  it("end_user_not_found (422) for an unknown or deleted end user; nothing written", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const group = await newGroup(tenant.operator);
    const gone = await endUser(key);
    await api("DELETE", `/end-users/${gone}`, { key });
    for (const id of ["00000000-0000-4000-8000-000000000003", gone]) {
      expectError(
        await api("POST", `/user-groups/${group.id}/members`, { key, body: { endUserId: id } }),
        422,
        "end_user_not_found",
      );
    }
    expect(await getDb().groupMember.count({ where: { groupId: group.id } })).toBe(0);
  });

  it("plan groups follow their plan: member changes 422, rename and delete 409, nothing written", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const { tierPlan, group } = await newPlan(tenant.operator, { withGroup: true, name: "Gold" });
    expect(group).toMatchObject({ name: "Gold", planId: tierPlan.id });
    const subscriber = await endUser(key, { tierPlanIds: [tierPlan.id] });
    const outsider = await endUser(key);

    expectError(
      await api("POST", `/user-groups/${group!.id}/members`, { key, body: { endUserId: outsider } }),
      422,
      "plan_group",
    );
    expectError(await api("DELETE", `/user-groups/${group!.id}/members/${subscriber}`, { key }), 422, "plan_group");
    expectError(
      await api("PATCH", `/user-groups/${group!.id}`, { key, body: { name: "Platinum" } }),
      409,
      "plan_group",
    );
    expectError(await api("DELETE", `/user-groups/${group!.id}`, { key }), 409, "plan_group");

    const after = await api("GET", `/user-groups/${group!.id}`, { key });
    expect(after.body.userGroup).toMatchObject({ name: "Gold", memberCount: 1 });
    const members = await getDb().groupMember.findMany({ where: { groupId: group!.id } });
    expect(members.map((m) => m.endUserId)).toEqual([subscriber]);
  });

  it("groups_disabled (403) on every group endpoint and on admissions when groups are off", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const group = await newGroup(tenant.operator);
    const portal = await newPortal(tenant.operator);
    await updateOrganization(getDb(), tenant.operator, { groupsEnabled: false });
    expectError(await api("POST", "/user-groups", { key, body: { name: "x" } }), 403, "groups_disabled");
    expectError(await api("GET", "/user-groups", { key }), 403, "groups_disabled");
    expectError(await api("GET", `/user-groups/${group.id}`, { key }), 403, "groups_disabled");
    expectError(await api("PATCH", `/user-groups/${group.id}`, { key, body: { name: "y" } }), 403, "groups_disabled");
    expectError(
      await api("POST", `/portals/${portal.id}/admissions`, { key, body: { groupId: group.id } }),
      403,
      "groups_disabled",
    );
    expect(await getDb().userGroup.count({ where: { organizationId: tenant.organization.id } })).toBe(1);
    expect(await getDb().portalAdmission.count({ where: { portalId: portal.id } })).toBe(0);
  });

  it("answers not_found for another organization's group", async () => {
    const tenant = await newOrganization();
    const other = await newOrganization();
    const theirs = await newGroup(other.operator);
    expectError(await api("GET", `/user-groups/${theirs.id}`, { key: tenant.orgKey.secret }), 404, "not_found");
    expectError(await api("DELETE", `/user-groups/${theirs.id}`, { key: tenant.orgKey.secret }), 404, "not_found");
    expect(await getDb().userGroup.count({ where: { id: theirs.id } })).toBe(1);
  });
});

describe("portals and admissions", () => {
  it("admits a group (201, then 200), lists portals, group_not_found (422) and not_found for the portal", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const portal = await newPortal(tenant.operator, "Customer portal");
    const group = await newGroup(tenant.operator);

    expect((await api("GET", "/portals", { key })).body).toEqual({ portals: [portal], nextCursor: null });
    const admitted = await api("POST", `/portals/${portal.id}/admissions`, { key, body: { groupId: group.id } });
    expect(admitted.status).toBe(201);
    expect(admitted.body.admission).toEqual({ portalId: portal.id, groupId: group.id, createdAt: expect.any(String) });
    expect((await api("POST", `/portals/${portal.id}/admissions`, { key, body: { groupId: group.id } })).status).toBe(
      200,
    );

    expectError(
      await api("POST", `/portals/${portal.id}/admissions`, {
        key,
        body: { groupId: "00000000-0000-4000-8000-000000000004" },
      }),
      422,
      "group_not_found",
    );
    expectError(
      await api("POST", `/portals/00000000-0000-4000-8000-000000000005/admissions`, {
        key,
        body: { groupId: group.id },
      }),
      404,
      "not_found",
    );
    expect(await getDb().portalAdmission.count({ where: { portalId: portal.id } })).toBe(1);
  });
});

describe("ending an admission", () => {
  it("DELETE /portals/{portalId}/admissions/{groupId}: 204, the group is no longer admitted, then not_found", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const portal = await newPortal(tenant.operator);
    const [kept, ended] = [await newGroup(tenant.operator, "Kept"), await newGroup(tenant.operator, "Ended")];
    for (const group of [kept, ended])
      await api("POST", `/portals/${portal.id}/admissions`, { key, body: { groupId: group.id } });

    const removed = await api("DELETE", `/portals/${portal.id}/admissions/${ended.id}`, { key });
    expect(removed.status).toBe(204);
    const left = await getDb().portalAdmission.findMany({ where: { portalId: portal.id } });
    expect(left.map((admission) => admission.groupId)).toEqual([kept.id]);
    expectError(await api("DELETE", `/portals/${portal.id}/admissions/${ended.id}`, { key }), 404, "not_found");
  });

  it("needs an admin, keeps to the organization and answers groups_disabled when groups are off; nothing removed", async () => {
    const tenant = await newOrganization();
    const portal = await newPortal(tenant.operator);
    const group = await newGroup(tenant.operator);
    await api("POST", `/portals/${portal.id}/admissions`, { key: tenant.orgKey.secret, body: { groupId: group.id } });

    const member = await addPerson(tenant.operator, "member");
    const memberKey = await issueKey(tenant.operator, { kind: "personal", memberId: member.member.id });
    expectError(
      await api("DELETE", `/portals/${portal.id}/admissions/${group.id}`, { key: memberKey.secret }),
      403,
      "forbidden_role",
    );
    const outsider = await newOrganization();
    expectError(
      await api("DELETE", `/portals/${portal.id}/admissions/${group.id}`, { key: outsider.orgKey.secret }),
      404,
      "not_found",
    );
    await updateOrganization(getDb(), tenant.operator, { groupsEnabled: false });
    expectError(
      await api("DELETE", `/portals/${portal.id}/admissions/${group.id}`, { key: tenant.orgKey.secret }),
      403,
      "groups_disabled",
    );
    expect(await getDb().portalAdmission.count({ where: { portalId: portal.id } })).toBe(1);
  });
});

describe("tier plans", () => {
  it("lists plans with their group and archived flag", async () => {
    const noDetails = {
      description: "",
      priceAmount: null,
      priceCurrency: "USD",
      priceInterval: "month",
      features: [],
    };
    const tenant = await newOrganization();
    const plain = await newPlan(tenant.operator, { credits: 5, name: "Plain" });
    const grouped = await newPlan(tenant.operator, { credits: 9, name: "Grouped", withGroup: true });
    const list = await api("GET", "/tier-plans", { key: tenant.orgKey.secret });
    expect(list.body).toEqual({
      tierPlans: [
        {
          id: plain.tierPlan.id,
          name: "Plain",
          creditAllowance: 5,
          archived: false,
          groupId: null,
          allowedModels: null,
          ...noDetails,
        },
        {
          id: grouped.tierPlan.id,
          name: "Grouped",
          creditAllowance: 9,
          archived: false,
          groupId: grouped.group!.id,
          allowedModels: null,
          ...noDetails,
        },
      ],
      nextCursor: null,
    });
  });
});
