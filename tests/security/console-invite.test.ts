// Inviting an email must not tell an admin whether that person has an account elsewhere: the
// answer for someone who signs in to another organization is the answer for a new email, and
// the password they choose through the link opens the organization that invited them only
// (their own password, and their other organization, stay as they were).
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { addPerson, newOrganization, signInCookie, trpc, uniqueSuffix, type Tenant } from "../helpers";

/** The invite answer with what differs by nature (ids, emails, times) replaced by its type. */
function shapeOf(data: Record<string, unknown>) {
  return Object.fromEntries(
    Object.entries(data).map(([key, value]) => [
      key,
      key === "role" || key === "status" || value === null ? value : typeof value,
    ]),
  );
}

async function acceptFromOutbox(tenant: Tenant, email: string, password: string) {
  const mail = await getDb().outboxMessage.findFirstOrThrow({
    where: { organizationId: tenant.organization.id, to: email },
    orderBy: { createdAt: "desc" },
  });
  const link = mail.text.split("\n").find((line) => line.includes("/invite/"))!;
  const token = decodeURIComponent(link.slice(link.indexOf("/invite/") + "/invite/".length).trim());
  return trpc("mutation", "invitations.accept", { token, password });
}

describe("inviting a member", () => {
  it("answers the same for an email with an account in another organization as for a new email", async () => {
    const elsewhere = await newOrganization();
    const existing = await addPerson(elsewhere.operator, "member");
    const tenant = await newOrganization();
    const admin = await signInCookie(tenant.owner.email, tenant.owner.password);

    const forNew = await trpc(
      "mutation",
      "invitations.create",
      { email: `fresh-${uniqueSuffix()}@example.test`, role: "member" },
      { cookie: admin },
    );
    const forExisting = await trpc(
      "mutation",
      "invitations.create",
      { email: existing.email, role: "member" },
      { cookie: admin },
    );
    expect(forNew.status).toBe(200);
    expect(forExisting.status).toBe(200);
    expect(shapeOf(forExisting.body.result.data)).toEqual(shapeOf(forNew.body.result.data));
    expect(Object.keys(forExisting.body.result.data)).toEqual(Object.keys(forNew.body.result.data));

    // The password they choose signs them in to the organization that invited them...
    const chosen = `chosen-${uniqueSuffix()}-${uniqueSuffix()}`;
    expect((await acceptFromOutbox(tenant, existing.email, chosen)).status).toBe(200);
    const asInvited = await signInCookie(existing.email, chosen);
    const me = (await trpc("query", "auth.me", undefined, { cookie: asInvited })).body.result.data;
    expect(me.organization.id).toBe(tenant.organization.id);

    // ...while their own password still signs them in to their first organization, unchanged.
    const asThemselves = await signInCookie(existing.email, existing.password);
    const own = (await trpc("query", "auth.me", undefined, { cookie: asThemselves })).body.result.data;
    expect(own.organization.id).toBe(elsewhere.organization.id);
  });

  it("does not let the password chosen for one organization open another, nor outlive the membership", async () => {
    const elsewhere = await newOrganization();
    const existing = await addPerson(elsewhere.operator, "member");
    const tenant = await newOrganization();
    const admin = await signInCookie(tenant.owner.email, tenant.owner.password);
    expect(
      (await trpc("mutation", "invitations.create", { email: existing.email, role: "viewer" }, { cookie: admin }))
        .status,
    ).toBe(200);
    const chosen = `chosen-${uniqueSuffix()}-${uniqueSuffix()}`;
    expect((await acceptFromOutbox(tenant, existing.email, chosen)).status).toBe(200);
    const cookie = await signInCookie(existing.email, chosen);
    const me = (await trpc("query", "auth.me", undefined, { cookie })).body.result.data;
    expect(me.organization.id).toBe(tenant.organization.id);
    expect(me.member.role).toBe("viewer");

    // Removed from the inviting organization, that password opens nothing.
    const removed = await trpc("mutation", "members.remove", { memberId: me.member.id }, { cookie: admin });
    expect(removed.status).toBe(200);
    const again = await trpc("mutation", "auth.signIn", { email: existing.email, password: chosen });
    expect(again.status).toBe(401);
  });
});
