// The console's effective-access view of one end user: plans with credits, groups, grants (their
// own and their groups'), reachable portals, and each usable app with why, built on the one
// access rule (services/portal/portal-access.ts) that the portal and the API apply.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { updateOrganization } from "@/server/services/org/organizations";
import { effectiveAccess } from "@/server/services/portal/effective-access";
import { appsUsableBy } from "@/server/services/portal/portal-access";
import { create } from "../builder-helpers";
import { api, signInCookie, trpc, trpcErrorCode } from "../helpers";
import { accessEndUser, accessGroup, accessWorld, newPlan, type AccessWorld } from "../provisioning-helpers";

const view = (w: AccessWorld, endUserId: string) => effectiveAccess(getDb(), w.tenant.operator, { endUserId });

describe("effective access", () => {
  it("shows plans with credits, groups, every grant and whether it opens anything, portals, and each app with why", async () => {
    const w = await accessWorld();
    const { tierPlan: starter } = await newPlan(w.tenant.operator, { withGroup: true, name: "Starter", credits: 50 });
    const { tierPlan: legacy } = await newPlan(w.tenant.operator, { withGroup: true, name: "Legacy", credits: 10 });
    await api("POST", `/user-groups/${starter.groupId}/grants`, {
      key: w.key,
      body: { targetKind: "app", targetId: w.appId, deploymentId: w.partners },
    });
    await api("POST", `/user-groups/${legacy.groupId}/grants`, {
      key: w.key,
      body: { targetKind: "app", targetId: w.appId },
    });
    const id = await accessEndUser(w, {
      tierPlanIds: [starter.id, legacy.id],
      grants: [{ targetKind: "app", targetId: w.appId, deploymentId: w.helpCenter }],
    });
    // The Legacy subscription is canceled: its plan group (which opened the app everywhere) no longer counts.
    expect((await api("DELETE", `/end-users/${id}/tier-plans/${legacy.id}`, { key: w.key })).status).toBe(204);
    await getDb().subscription.updateMany({
      where: { endUserId: id, tierPlanId: starter.id },
      data: { creditsUsed: 12 },
    });
    // A group whose grant has expired, and a grant to an app that is not published.
    const lapsed = await accessGroup(w, [id], [{ expiresAt: new Date(Date.now() + 60_000).toISOString() }], "Lapsed");
    await getDb().grant.updateMany({ where: { groupId: lapsed }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const draft = await create(w.key, "apps", {
      name: "Draft app",
      members: [{ id: w.supportAgentId, kind: "agent" }],
    });
    await api("POST", "/end-users", {
      key: w.key,
      body: {
        email: (await getDb().endUser.findUniqueOrThrow({ where: { id } })).email,
        grants: [{ targetKind: "app", targetId: draft.id }],
      },
    });

    const access = await view(w, id);
    expect(access.accessMode).toBe("grants");
    expect(access.revoked).toBe(false);
    expect(
      access.plans.map((p) => ({
        name: p.name,
        status: p.status,
        used: p.creditsUsed,
        left: p.creditsLeft,
        groupId: p.groupId,
      })),
    ).toEqual([
      { name: "Starter", status: "active", used: 12, left: 38, groupId: starter.groupId },
      { name: "Legacy", status: "canceled", used: 0, left: 10, groupId: legacy.groupId },
    ]);
    expect(access.groups).toEqual([
      { id: lapsed, name: "Lapsed", planName: null },
      { id: starter.groupId, name: "Starter", planName: "Starter" },
    ]);
    expect(
      access.grants.map((g) => ({
        app: g.appName,
        holder: g.holder,
        by: g.holderName,
        portal: g.portal?.name ?? null,
        status: g.status,
      })),
    ).toEqual([
      { app: "Helpdesk", holder: "user", by: "", portal: "Help Center", status: "active" },
      { app: "Draft app", holder: "user", by: "", portal: null, status: "unpublished" },
      { app: "Helpdesk", holder: "plan", by: "Starter", portal: "Partners", status: "active" },
      { app: "Helpdesk", holder: "group", by: "Lapsed", portal: null, status: "expired" },
    ]);
    expect(access.apps).toEqual([
      {
        appId: w.appId,
        appName: "Helpdesk",
        portals: [
          { id: w.helpCenter, name: "Help Center" },
          { id: w.partners, name: "Partners" },
        ],
        via: [
          {
            grantId: expect.any(String),
            holder: "user",
            name: "",
            groupId: null,
            portal: { id: w.helpCenter, name: "Help Center" },
          },
          {
            grantId: expect.any(String),
            holder: "plan",
            name: "Starter",
            groupId: starter.groupId,
            portal: { id: w.partners, name: "Partners" },
          },
        ],
      },
    ]);
    expect(access.portals).toEqual([
      { id: w.helpCenter, name: "Help Center", apps: ["Helpdesk"] },
      { id: w.partners, name: "Partners", apps: ["Helpdesk"] },
    ]);
    // The view and the rule the portal applies agree.
    expect(await appsUsableBy(getDb(), w.org, id, w.helpCenter)).toEqual([w.appId]);
    expect(await appsUsableBy(getDb(), w.org, id, null)).toEqual([]);
  });

  it("a grant via a group opens the app in every portal; the group names the reason", async () => {
    const w = await accessWorld();
    const id = await accessEndUser(w);
    const support = await accessGroup(w, [id], [{}], "Support team");
    const access = await view(w, id);
    expect(access.apps).toEqual([
      {
        appId: w.appId,
        appName: "Helpdesk",
        portals: "all",
        via: [{ grantId: expect.any(String), holder: "group", name: "Support team", groupId: support, portal: null }],
      },
    ]);
    expect(access.portals.map((p) => p.name)).toEqual(["Help Center", "Partners"]);
    expect(await appsUsableBy(getDb(), w.org, id, w.partners)).toEqual([w.appId]);
  });

  it("a deleted app takes its grants with it: nothing lingers on the end user's page", async () => {
    const w = await accessWorld();
    const id = await accessEndUser(w, { grants: [{ targetKind: "app", targetId: w.appId }] });
    await accessGroup(w, [id], [{}], "Support team");
    expect((await view(w, id)).grants).toHaveLength(2);
    expect((await api("DELETE", `/apps/${w.appId}`, { key: w.key })).status).toBe(204);
    const access = await view(w, id);
    expect(access.grants).toEqual([]);
    expect(access.apps).toEqual([]);
    expect(await getDb().grant.count({ where: { targetId: w.appId } })).toBe(0);
  });

  it("in groups mode a personal grant is unused and a group opens only the portals it is admitted to", async () => {
    const w = await accessWorld();
    const id = await accessEndUser(w, { grants: [{ targetKind: "app", targetId: w.appId }] });
    await updateOrganization(getDb(), w.tenant.operator, { accessMode: "groups" });
    const admitted = await accessGroup(w, [id], [{}], "Admitted");
    await api("POST", `/portals/${w.helpCenter}/admissions`, { key: w.key, body: { groupId: admitted } });
    const access = await view(w, id);
    expect(access.accessMode).toBe("groups");
    expect(access.grants.map((g) => [g.holder, g.status])).toEqual([
      ["user", "unused"],
      ["group", "active"],
    ]);
    expect(access.apps[0]!.portals).toEqual([{ id: w.helpCenter, name: "Help Center" }]);
    expect(access.apps[0]!.via.map((v) => [v.name, v.portal?.name])).toEqual([["Admitted", "Help Center"]]);
    expect(access.portals).toEqual([{ id: w.helpCenter, name: "Help Center", apps: ["Helpdesk"] }]);
  });

  it("a revoked end user keeps their plans and grants on record but can use nothing", async () => {
    const w = await accessWorld();
    const id = await accessEndUser(w, { grants: [{ targetKind: "app", targetId: w.appId }] });
    await api("POST", `/end-users/${id}/revoke`, { key: w.key });
    const access = await view(w, id);
    expect(access).toMatchObject({ revoked: true, apps: [], portals: [] });
    expect(access.grants.map((g) => g.status)).toEqual(["unused"]);
  });

  it("the console door answers the view; another organization's end user is not found", async () => {
    const w = await accessWorld();
    const id = await accessEndUser(w, { grants: [{ targetKind: "app", targetId: w.appId }] });
    const cookie = await signInCookie(w.tenant.owner.email, w.tenant.owner.password);
    const ok = await trpc("query", "endUsers.access", { endUserId: id }, { cookie });
    expect(ok.status).toBe(200);
    expect(ok.body.result.data.apps.map((app: { appName: string }) => app.appName)).toEqual(["Helpdesk"]);
    const other = await accessWorld();
    const outsider = await accessEndUser(other);
    const refused = await trpc("query", "endUsers.access", { endUserId: outsider }, { cookie });
    expect(refused.status).toBe(404);
    expect(trpcErrorCode(refused)).toBe("not_found");
  });
});
