// Inviting an email must not tell an admin whether that person has an account elsewhere: the
// answer for someone who signs in to another organization is the answer for a new email, and
// the temporary password it returns works for the organization that invited them (their own
// password, and their other organization, stay as they were).
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { addPerson, newOrganization, signInCookie, trpc, uniqueSuffix } from "../helpers";

/** The invite answer with what differs by nature (ids, emails, times) replaced by its type. */
function shapeOf(data: { member: Record<string, unknown>; temporaryPassword: unknown }) {
  const { member, temporaryPassword } = data;
  return {
    member: Object.fromEntries(Object.entries(member).map(([key, value]) => [key, key === "role" || value === null ? value : typeof value])),
    temporaryPassword: typeof temporaryPassword === "string" ? temporaryPassword.length : temporaryPassword,
  };
}

describe("inviting a member", () => {
  it("answers the same for an email with an account in another organization as for a new email", async () => {
    const elsewhere = await newOrganization();
    const existing = await addPerson(elsewhere.operator, "member");
    const tenant = await newOrganization();
    const admin = await signInCookie(tenant.owner.email, tenant.owner.password);

    const forNew = await trpc("mutation", "members.invite", { email: `fresh-${uniqueSuffix()}@example.test`, role: "member" }, { cookie: admin });
    const forExisting = await trpc("mutation", "members.invite", { email: existing.email, role: "member" }, { cookie: admin });
    expect(forNew.status).toBe(200);
    expect(forExisting.status).toBe(200);
    expect(shapeOf(forExisting.body.result.data)).toEqual(shapeOf(forNew.body.result.data));
    expect(Object.keys(forExisting.body.result.data)).toEqual(Object.keys(forNew.body.result.data));

    // The temporary password signs them in to the organization that invited them...
    const invitedMember = forExisting.body.result.data.member;
    const asInvited = await signInCookie(existing.email, forExisting.body.result.data.temporaryPassword);
    const me = (await trpc("query", "auth.me", undefined, { cookie: asInvited })).body.result.data;
    expect(me.member.id).toBe(invitedMember.id);
    expect(me.organization.id).toBe(tenant.organization.id);

    // ...while their own password still signs them in to their first organization, unchanged.
    const asThemselves = await signInCookie(existing.email, existing.password);
    const own = (await trpc("query", "auth.me", undefined, { cookie: asThemselves })).body.result.data;
    expect(own.organization.id).toBe(elsewhere.organization.id);
    const user = await getDb().user.findUniqueOrThrow({ where: { email: existing.email } });
    expect(user.passwordHash).not.toBeNull();
  });

  it("does not let the temporary password of one organization open another", async () => {
    const elsewhere = await newOrganization();
    const existing = await addPerson(elsewhere.operator, "member");
    const tenant = await newOrganization();
    const admin = await signInCookie(tenant.owner.email, tenant.owner.password);
    const invite = await trpc("mutation", "members.invite", { email: existing.email, role: "viewer" }, { cookie: admin });
    const cookie = await signInCookie(existing.email, invite.body.result.data.temporaryPassword);
    const me = (await trpc("query", "auth.me", undefined, { cookie })).body.result.data;
    expect(me.organization.id).toBe(tenant.organization.id);
    expect(me.member.role).toBe("viewer");

    // Removed from the inviting organization, the temporary password opens nothing.
    const removed = await trpc("mutation", "members.remove", { memberId: me.member.id }, { cookie: admin });
    expect(removed.status).toBe(200);
    const again = await trpc("mutation", "auth.signIn", { email: existing.email, password: invite.body.result.data.temporaryPassword });
    expect(again.status).toBe(401);
  });
});
