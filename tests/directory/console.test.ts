// The console's Directory page: the SCIM URL, the token made and rotated there (shown once),
// the default plan, and what the directory synced, for admins only.
import { describe, expect, it } from "vitest";
import { addPerson, signInCookie, trpc, trpcErrorCode } from "../helpers";
import { newPlan } from "../provisioning-helpers";
import { directoryTenant, PATCH_OP, scim, uniqueUserName } from "./helpers";

describe("the Directory page", () => {
  it("makes and rotates the SCIM token, sets the default plan, and lists users, groups and sync activity", async () => {
    const tenant = await directoryTenant();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const userName = uniqueUserName();
    const user = await scim("POST", "/Users", { key: tenant.scimKey, body: { userName, displayName: "Ann Lee" } });
    await scim("PATCH", `/Users/${user.body.id}`, {
      key: tenant.scimKey,
      body: { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "active", value: "False" }] },
    });
    await scim("POST", "/Groups", {
      key: tenant.scimKey,
      body: { displayName: "Support agents", members: [{ value: user.body.id }] },
    });
    await scim("POST", "/Users", { key: tenant.scimKey, body: { displayName: "No user name" } });

    const overview = (await trpc("query", "directory.overview", undefined, { cookie })).body.result.data;
    expect(overview.scimUrl).toMatch(/\/scim\/v2$/);
    expect(overview.tokens).toHaveLength(1);
    expect(overview.userCount).toBe(1);
    expect(overview.users[0]).toMatchObject({
      userName,
      displayName: "Ann Lee",
      active: false,
      endUser: { email: userName, suspendedAt: expect.any(String) },
    });
    expect(overview.groups).toEqual([expect.objectContaining({ name: "Support agents", memberCount: 1 })]);
    expect(
      overview.events.map((event: { action: string; status: number }) => `${event.action} ${event.status}`),
    ).toEqual(["POST /Users 400", "POST /Groups 201", `PATCH /Users/${user.body.id} 204`, "POST /Users 201"]);

    const rotated = (await trpc("mutation", "directory.rotateToken", undefined, { cookie })).body.result.data;
    expect(rotated.secret).toMatch(/^sk_org_/);
    expect((await scim("GET", "/Users", { key: rotated.secret })).status).toBe(200);
    expect((await scim("GET", "/Users", { key: tenant.scimKey })).status).toBe(401);
    expect(
      (await trpc("query", "directory.overview", undefined, { cookie })).body.result.data.tokens.map(
        (token: { id: string }) => token.id,
      ),
    ).toEqual([rotated.id]);

    const { tierPlan } = await newPlan(tenant.operator);
    expect(
      (await trpc("mutation", "directory.setDefaultPlan", { tierPlanId: tierPlan.id }, { cookie })).body.result.data,
    ).toEqual({ defaultPlanId: tierPlan.id });
    expect(
      trpcErrorCode(
        await trpc(
          "mutation",
          "directory.setDefaultPlan",
          { tierPlanId: "00000000-0000-4000-8000-000000000000" },
          { cookie },
        ),
      ),
    ).toBe("tier_not_found");
    expect((await trpc("query", "directory.overview", undefined, { cookie })).body.result.data.defaultPlanId).toBe(
      tierPlan.id,
    );
  });

  it("is for admins only", async () => {
    const tenant = await directoryTenant();
    const member = await addPerson(tenant.operator, "member");
    const cookie = await signInCookie(member.email, member.password);
    expect(trpcErrorCode(await trpc("query", "directory.overview", undefined, { cookie }))).toBe("forbidden_role");
    expect(trpcErrorCode(await trpc("mutation", "directory.rotateToken", undefined, { cookie }))).toBe(
      "forbidden_role",
    );
  });
});
