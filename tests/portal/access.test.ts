// THE access rule, branch by branch, through the one service function every door uses (the
// console's effective-access view on it: tests/provisioning/effective-access.test.ts).
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { updateOrganization } from "@/server/services/org/organizations";
import { AppError } from "@/server/errors";
import { appsUsableBy, assertCanUse, MAY_USE_APP_SQL } from "@/server/services/portal/portal-access";
import { create, publish } from "../builder-helpers";
import { api } from "../helpers";
import { accessEndUser, accessGroup, accessWorld, newPlan, type AccessWorld } from "../provisioning-helpers";

/**
 * Where the end user can use the app: in each portal, and without one. The list of usable apps
 * and the one-app check every run makes (one statement of its own) must agree everywhere.
 */
async function where(w: AccessWorld, endUserId: string) {
  const usable = async (portalId: string | null) => {
    const listed = (await appsUsableBy(getDb(), w.org, endUserId, portalId)).includes(w.appId);
    const checked = await assertCanUse(getDb(), w.org, endUserId, portalId, w.appId).then(
      () => true,
      (error: unknown) => {
        if (error instanceof AppError && error.code === "not_found") return false;
        throw error;
      },
    );
    expect({ portalId, checked }).toEqual({ portalId, checked: listed });
    return listed;
  };
  return { helpCenter: await usable(w.helpCenter), partners: await usable(w.partners), noPortal: await usable(null) };
}

const EVERYWHERE = { helpCenter: true, partners: true, noPortal: true };
const NOWHERE = { helpCenter: false, partners: false, noPortal: false };

describe("access in grants mode", () => {
  it("a grant without deploymentId opens the app in every portal and over the API without one", async () => {
    const w = await accessWorld();
    const id = await accessEndUser(w, { grants: [{ targetKind: "app", targetId: w.appId }] });
    expect(await where(w, id)).toEqual(EVERYWHERE);
  });

  it("a grant with deploymentId opens it only in that portal", async () => {
    const w = await accessWorld();
    const id = await accessEndUser(w, {
      grants: [{ targetKind: "app", targetId: w.appId, deploymentId: w.helpCenter }],
    });
    expect(await where(w, id)).toEqual({ helpCenter: true, partners: false, noPortal: false });
  });

  it("no grant, no access; a grant to another app opens only that app", async () => {
    const w = await accessWorld();
    const other = await create(w.key, "apps", { name: "Other", members: [{ id: w.supportAgentId, kind: "agent" }] });
    await publish(w.key, "apps", other.id);
    const id = await accessEndUser(w, { grants: [{ targetKind: "app", targetId: other.id }] });
    expect(await where(w, id)).toEqual(NOWHERE);
    expect(await appsUsableBy(getDb(), w.org, id, w.helpCenter)).toEqual([other.id]);
  });

  it("an expired grant opens nothing; one expiring later does", async () => {
    const w = await accessWorld();
    const id = await accessEndUser(w, {
      grants: [{ targetKind: "app", targetId: w.appId, expiresAt: new Date(Date.now() + 3_600_000).toISOString() }],
    });
    expect(await where(w, id)).toEqual(EVERYWHERE);
    await getDb().grant.updateMany({ where: { endUserId: id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await where(w, id)).toEqual(NOWHERE);
  });

  it("a group's grant opens the app for its members, limited to its portal when it names one", async () => {
    const w = await accessWorld();
    const member = await accessEndUser(w);
    const outsider = await accessEndUser(w);
    await accessGroup(w, [member], [{ deploymentId: w.partners }]);
    expect(await where(w, member)).toEqual({ helpCenter: false, partners: true, noPortal: false });
    expect(await where(w, outsider)).toEqual(NOWHERE);
    const expiring = await accessEndUser(w);
    await accessGroup(w, [expiring], [{}]);
    expect(await where(w, expiring)).toEqual(EVERYWHERE);
    await getDb().grant.updateMany({
      where: { organizationId: w.org, groupId: { not: null }, deploymentId: null },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(await where(w, expiring)).toEqual(NOWHERE);
  });

  it("a plan group's grant opens the app for the plan's subscribers, and closes when the plan is removed", async () => {
    const w = await accessWorld();
    const { tierPlan: plan } = await newPlan(w.tenant.operator, { withGroup: true });
    expect(
      (
        await api("POST", `/user-groups/${plan.groupId}/grants`, {
          key: w.key,
          body: { targetKind: "app", targetId: w.appId },
        })
      ).status,
    ).toBe(201);
    const id = await accessEndUser(w, { tierPlanIds: [plan.id] });
    expect(await where(w, id)).toEqual(EVERYWHERE);
    expect((await api("DELETE", `/end-users/${id}/tier-plans/${plan.id}`, { key: w.key })).status).toBe(204);
    expect(await where(w, id)).toEqual(NOWHERE);
  });

  it("a revoked or deleted end user can use nothing; provisioning a revoked one again restores access", async () => {
    const w = await accessWorld();
    const grants = [{ targetKind: "app", targetId: w.appId }];
    const revoked = await accessEndUser(w, { grants });
    await accessGroup(w, [revoked], [{}]);
    await api("POST", `/end-users/${revoked}/revoke`, { key: w.key });
    expect(await where(w, revoked)).toEqual(NOWHERE);
    const email = (await getDb().endUser.findUniqueOrThrow({ where: { id: revoked } })).email;
    await api("POST", "/end-users", { key: w.key, body: { email } });
    expect(await where(w, revoked)).toEqual(EVERYWHERE);

    const deleted = await accessEndUser(w, { grants });
    await getDb().endUser.update({ where: { id: deleted }, data: { deletedAt: new Date() } });
    expect(await where(w, deleted)).toEqual(NOWHERE);
  });

  it("an unpublished app is usable by nobody; another organization's end user reaches nothing here", async () => {
    const w = await accessWorld();
    const draft = await create(w.key, "apps", {
      name: "Draft only",
      members: [{ id: w.supportAgentId, kind: "agent" }],
    });
    const id = await accessEndUser(w, {
      grants: [
        { targetKind: "app", targetId: w.appId },
        { targetKind: "app", targetId: draft.id },
      ],
    });
    expect(await appsUsableBy(getDb(), w.org, id, null)).toEqual([w.appId]);
    const elsewhere = await accessWorld();
    expect(await appsUsableBy(getDb(), elsewhere.org, id, null)).toEqual([]);
    expect(await appsUsableBy(getDb(), w.org, "00000000-0000-4000-8000-000000000000", null)).toEqual([]);
  });
});

describe("access in groups mode", () => {
  const toGroupsMode = (w: AccessWorld) => updateOrganization(getDb(), w.tenant.operator, { accessMode: "groups" });

  it("opens the app in a portal the group is admitted to, when that same group holds the grant; never without a portal", async () => {
    const w = await accessWorld();
    await toGroupsMode(w);
    const id = await accessEndUser(w);
    const g = await accessGroup(w, [id], [{}]);
    expect(await where(w, id)).toEqual(NOWHERE);
    expect(
      (await api("POST", `/portals/${w.helpCenter}/admissions`, { key: w.key, body: { groupId: g } })).status,
    ).toBe(201);
    expect(await where(w, id)).toEqual({ helpCenter: true, partners: false, noPortal: false });
  });

  it("an admission of one group and a grant on another do not combine", async () => {
    const w = await accessWorld();
    await toGroupsMode(w);
    const id = await accessEndUser(w);
    const admitted = await accessGroup(w, [id]);
    await accessGroup(w, [id], [{}]);
    await api("POST", `/portals/${w.helpCenter}/admissions`, { key: w.key, body: { groupId: admitted } });
    expect(await where(w, id)).toEqual(NOWHERE);
  });

  it("a personal grant made before the switch to groups mode opens nothing", async () => {
    const w = await accessWorld();
    const id = await accessEndUser(w, { grants: [{ targetKind: "app", targetId: w.appId }] });
    expect(await where(w, id)).toEqual(EVERYWHERE);
    await toGroupsMode(w);
    const g = await accessGroup(w, [id]);
    await api("POST", `/portals/${w.helpCenter}/admissions`, { key: w.key, body: { groupId: g } });
    expect(await where(w, id)).toEqual(NOWHERE);
  });

  it("a plan group admitted with a grant opens the app for the plan's subscribers; an expired grant does not", async () => {
    const w = await accessWorld();
    await toGroupsMode(w);
    const { tierPlan: plan } = await newPlan(w.tenant.operator, { withGroup: true });
    await api("POST", `/user-groups/${plan.groupId}/grants`, {
      key: w.key,
      body: { targetKind: "app", targetId: w.appId },
    });
    await api("POST", `/portals/${w.partners}/admissions`, { key: w.key, body: { groupId: plan.groupId } });
    const id = await accessEndUser(w, { tierPlanIds: [plan.id] });
    expect(await where(w, id)).toEqual({ helpCenter: false, partners: true, noPortal: false });
    await getDb().grant.updateMany({
      where: { groupId: plan.groupId! },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(await where(w, id)).toEqual(NOWHERE);
  });

  it("a revoked member of an admitted group can use nothing", async () => {
    const w = await accessWorld();
    await toGroupsMode(w);
    const id = await accessEndUser(w);
    const g = await accessGroup(w, [id], [{}]);
    await api("POST", `/portals/${w.helpCenter}/admissions`, { key: w.key, body: { groupId: g } });
    await api("POST", `/end-users/${id}/revoke`, { key: w.key });
    expect(await where(w, id)).toEqual(NOWHERE);
  });
});

describe("the one-app check at scale", () => {
  // Every turn and transaction for an end user runs it: with a grant for each of a million end
  // users, a plan that reads the whole grants table cost 30–70 ms a turn (BENCHMARKS.md).
  it("reads grants by the end user's and their groups' indexes, not the organization's", async () => {
    const w = await accessWorld();
    const id = await accessEndUser(w, { grants: [{ targetKind: "app", targetId: w.appId }] });
    // Enough end users with a grant each for the planner to see what a large organization is.
    await getDb().$executeRaw`
      with users as (
        insert into end_users (id, organization_id, email, updated_at)
        select gen_random_uuid(), ${w.org}::uuid, 'crowd' || n || '@example.com', now() from generate_series(1, 3000) n
        returning id
      )
      insert into grants (id, organization_id, end_user_id, target_kind, target_id, source)
      select gen_random_uuid(), ${w.org}::uuid, id, 'app', ${w.appId}::uuid, 'api' from users`;
    await getDb().$executeRawUnsafe("analyze grants");
    const client = await getDb().pool.connect();
    let plan: string[];
    try {
      await client.query("begin");
      // With sequential scans priced out, a plan still scans grants only if no index can serve it.
      await client.query("set local enable_seqscan = off");
      const { rows } = await client.query<{ "QUERY PLAN": string }>(`explain ${MAY_USE_APP_SQL}`, [
        w.org,
        id,
        w.helpCenter,
        w.appId,
      ]);
      plan = rows.map((row) => row["QUERY PLAN"]);
    } finally {
      await client.query("rollback");
      client.release();
    }
    // Each read of grants starts from the end user or their groups, never from the whole organization.
    const grantReads = plan.flatMap((line) => {
      if (line.includes("Seq Scan on grants")) return ["the whole table"];
      const index = /Scan (?:using|on) (grants_\w+)/.exec(line)?.[1];
      return index ? [index] : [];
    });
    expect([...new Set(grantReads)].sort()).toEqual(["grants_end_user_unique", "grants_group_unique"]);
  });
});
