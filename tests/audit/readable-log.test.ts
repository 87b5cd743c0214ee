// The console's Audit log as a person reads it: real events of the organization, each with its
// actor and target named (not ids), the owner called an owner, the ids inside the changes named,
// and the event as a sentence; filters offered by name, scoped to the organization.
import { describe, expect, it } from "vitest";
import { addPerson, api, newOrganization, signInCookie, trpc, trpcErrorCode } from "../helpers";
import { email, newGroup, newPlan } from "../provisioning-helpers";

async function readable(cookie: string, input: Record<string, unknown> = {}) {
  const response = await trpc("query", "audit.readable", { limit: 50, ...input }, { cookie });
  expect(response.status, response.text).toBe(200);
  return response.body.result.data.auditEvents as any[];
}

async function ok(response: Promise<{ status: number; text: string; body: any }>) {
  const answer = await response;
  expect(answer.status, answer.text).toBe(200);
  return answer.body.result.data;
}

describe("audit.readable", () => {
  it("tells each real event as a sentence with names, the owner by role", async () => {
    const tenant = await newOrganization();
    const { tierPlan: free } = await newPlan(tenant.operator, { name: "Free" });
    const { tierPlan: pro } = await newPlan(tenant.operator, { name: "Pro" });
    const owner = tenant.owner.email;
    const cookie = await signInCookie(owner, tenant.owner.password);
    const aliceEmail = email();
    const { endUser: alice } = await ok(
      trpc(
        "mutation",
        "endUsers.provision",
        { email: aliceEmail, fullName: "Alice", tierPlanIds: [free.id] },
        { cookie },
      ),
    );
    await ok(trpc("mutation", "endUsers.provision", { email: aliceEmail, tierPlanIds: [pro.id] }, { cookie }));
    await ok(trpc("mutation", "endUsers.removeSubscription", { endUserId: alice.id, tierPlanId: free.id }, { cookie }));
    await ok(trpc("mutation", "endUsers.update", { endUserId: alice.id, fullName: "Alice Liddell" }, { cookie }));
    await api("PATCH", `/end-users/${alice.id}`, { key: tenant.orgKey.secret, body: { fullName: "Alice L." } });

    const events = await readable(cookie, { targetId: alice.id });
    const sentences = events.map((event) => event.sentence);
    expect(sentences).toContain(`${owner} changed Alice L.’s full name from “Alice” to “Alice Liddell”`);
    expect(sentences).toContain(`${owner} gave Alice L. the plan Pro`);
    expect(sentences).toContain(`${owner} added the end user Alice L.`);
    expect(sentences[0]).toBe(
      "The API key “organization key” changed Alice L.’s full name from “Alice Liddell” to “Alice L.”",
    );
    // A plan's bonus names the person it went to, not "subscription “Alice L.”".
    const bonus = await api("POST", `/end-users/${alice.id}/tier-plans/${pro.id}/bonus-credits`, {
      key: tenant.orgKey.secret,
      body: { credits: 25 },
    });
    expect(bonus.status, bonus.text).toBe(200);
    const [latest] = await readable(cookie, { action: "subscription.bonus_credits" });
    expect(latest.sentence).toBe("The API key “organization key” gave Alice L. 25 bonus credits");
    const byOwner = events.find((event) => event.actor.type === "member");
    expect(byOwner.actor).toMatchObject({ name: owner, role: "owner" });
    // The REST API's answer is unchanged: no names, no sentence.
    const rest = await api("GET", `/audit-events?targetId=${alice.id}`, { key: tenant.orgKey.secret });
    expect(Object.keys(rest.body.auditEvents[0]).sort()).toEqual([
      "action",
      "actor",
      "changes",
      "door",
      "id",
      "ipAddress",
      "occurredAt",
      "outcome",
      "requestId",
      "target",
      "userAgent",
    ]);

    // Members, groups and failed sign-ins, each in words.
    const bea = await addPerson(tenant.operator, "member");
    await ok(trpc("mutation", "members.changeRole", { memberId: bea.member.id, role: "admin" }, { cookie }));
    const group = await newGroup(tenant.operator, "Sales");
    await trpc("mutation", "auth.signIn", { email: bea.email, password: "wrong password" });
    const all = await readable(cookie);
    const told = all.map((event) => event.sentence);
    expect(told).toContain(`${bea.email} failed to sign in`);
    expect(told).toContain(`The operator (admin CLI) created group “${group.name}”`);
    expect(told).toContain(`The operator (admin CLI) added ${bea.email} to the organization as member`);
    expect(told).toContain(`${owner} changed ${bea.email}’s role from “member” to “admin”`);
    expect(told).toContain(`${owner} signed in`);
  });

  it("offers the organization's people and items by name, and filters by the one picked", async () => {
    const tenant = await newOrganization();
    const other = await newOrganization();
    const bea = await addPerson(tenant.operator, "admin");
    await newPlan(tenant.operator, { name: "Team" });
    await newPlan(other.operator, { name: "Other org's plan" });
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const beaCookie = await signInCookie(bea.email, bea.password);
    await ok(trpc("mutation", "endUsers.provision", { email: email(), fullName: "Carol" }, { cookie: beaCookie }));

    const options = await ok(trpc("query", "audit.filterOptions", undefined, { cookie }));
    expect(options.people).toContainEqual({ id: bea.member.id, type: "member", name: bea.email, detail: "admin" });
    expect(options.people).toContainEqual({
      id: tenant.owner.member.id,
      type: "member",
      name: tenant.owner.email,
      detail: "owner",
    });
    expect(options.people.map((p: any) => p.name)).not.toContain(other.owner.email);
    expect(options.items.map((item: any) => item.name)).toContain("Team");
    expect(options.items.map((item: any) => item.name)).not.toContain("Other org's plan");

    const byBea = await readable(cookie, { actorId: bea.member.id });
    expect(byBea.map((event) => event.sentence)).toEqual([
      `${bea.email} added the end user Carol`,
      `${bea.email} signed in`,
    ]);
    expect(byBea[0].actor.role).toBe("admin");
  });

  it("is an admin's, as the log is", async () => {
    const tenant = await newOrganization();
    const member = await addPerson(tenant.operator, "member");
    const cookie = await signInCookie(member.email, member.password);
    const refused = await trpc("query", "audit.readable", { limit: 5 }, { cookie });
    expect(trpcErrorCode(refused)).toBe("forbidden_role");
    expect(trpcErrorCode(await trpc("query", "audit.filterOptions", undefined, { cookie }))).toBe("forbidden_role");
  });
});
