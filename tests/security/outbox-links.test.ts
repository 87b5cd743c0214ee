// Mail that grants a role or a password is readable only by someone who could have granted it.
// With no SMTP server the organization's outbox keeps every mail, and admins read it in the
// console: an owner invitation's link, or a reset link for an owner's or an admin's password,
// would let an admin become an owner or take over an owner's account. Through the console door,
// an admin sees that such a mail was sent, never its link; owners and the recipient see it.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { addPerson, newOrganization, signInCookie, trpc, uniqueSuffix, type Tenant } from "../helpers";

/** The link's token in the newest stored mail to `email` (what the recipient's mailbox would hold). */
async function storedToken(tenant: Tenant, email: string): Promise<string> {
  const mail = await getDb().outboxMessage.findFirstOrThrow({
    where: { organizationId: tenant.organization.id, to: email },
    orderBy: { createdAt: "desc" },
  });
  const line = mail.text.split("\n").find((text) => text.includes("/invite/"))!;
  return decodeURIComponent(line.slice(line.indexOf("/invite/") + "/invite/".length).trim());
}

/** The secret half of a token (`<invitation id>.<secret>`): the part that must never reach an admin. */
function secretOf(token: string): string {
  return token.slice(token.indexOf(".") + 1);
}

async function outboxAs(cookie: string) {
  const response = await trpc("query", "mail.list", { limit: 200 }, { cookie });
  expect(response.status).toBe(200);
  return response;
}

describe("the outbox through the console door", () => {
  it("keeps an owner invitation's link from an admin; owners read it; an admin reads the links an admin may grant", async () => {
    const tenant = await newOrganization();
    const admin = await addPerson(tenant.operator, "admin");
    const owner = await signInCookie(tenant.owner.email, tenant.owner.password);
    const adminCookie = await signInCookie(admin.email, admin.password);
    const futureOwner = `future-owner-${uniqueSuffix()}@example.test`;
    const futureMember = `future-member-${uniqueSuffix()}@example.test`;

    expect(
      (await trpc("mutation", "invitations.create", { email: futureOwner, role: "owner" }, { cookie: owner })).status,
    ).toBe(200);
    expect(
      (await trpc("mutation", "invitations.create", { email: futureMember, role: "member" }, { cookie: adminCookie }))
        .status,
    ).toBe(200);
    const ownerToken = await storedToken(tenant, futureOwner);
    const memberToken = await storedToken(tenant, futureMember);

    // The admin sees that the owner invitation was sent, not its link, anywhere the console lists it.
    const adminView = await outboxAs(adminCookie);
    const ownerInvitation = adminView.body.result.data.messages.find((m: { to: string }) => m.to === futureOwner);
    expect(ownerInvitation).toMatchObject({ to: futureOwner, withheld: true });
    expect(ownerInvitation.text).not.toContain("/invite/");
    for (const procedure of ["mail.list", "invitations.list", "audit.list", "members.list"]) {
      const response = await trpc("query", procedure, procedure === "members.list" ? undefined : {}, {
        cookie: adminCookie,
      });
      expect(response.status, procedure).toBe(200);
      expect(response.text, procedure).not.toContain(secretOf(ownerToken));
    }
    // What an admin may grant, an admin may read.
    const memberInvitation = adminView.body.result.data.messages.find((m: { to: string }) => m.to === futureMember);
    expect(memberInvitation).toMatchObject({ withheld: false });
    expect(memberInvitation.text).toContain(encodeURIComponent(memberToken));

    // An owner reads the owner invitation's link, and it works for the invitee.
    const ownerView = await outboxAs(owner);
    expect(ownerView.text).toContain(encodeURIComponent(ownerToken));
    const accepted = await trpc("mutation", "invitations.accept", { token: ownerToken, password: "a-long-passphrase" });
    expect(accepted.status).toBe(200);
    expect(accepted.body.result.data.member).toMatchObject({ email: futureOwner, role: "owner" });
  });

  it("keeps reset links for an owner's and an admin's password from admins; the recipient reads their own", async () => {
    const tenant = await newOrganization();
    const secondOwner = await addPerson(tenant.operator, "owner");
    const admin = await addPerson(tenant.operator, "admin");
    const otherAdmin = await addPerson(tenant.operator, "admin");
    const member = await addPerson(tenant.operator, "member");
    const owner = await signInCookie(tenant.owner.email, tenant.owner.password);
    const adminCookie = await signInCookie(admin.email, admin.password);

    for (const target of [secondOwner, otherAdmin, member]) {
      const reset = await trpc("mutation", "members.resetPassword", { memberId: target.member.id }, { cookie: owner });
      expect(reset.status).toBe(200);
    }
    const ownerReset = await storedToken(tenant, secondOwner.email);
    const adminReset = await storedToken(tenant, otherAdmin.email);
    const memberReset = await storedToken(tenant, member.email);

    const adminView = await outboxAs(adminCookie);
    const byRecipient = new Map(
      adminView.body.result.data.messages.map((m: { to: string; withheld: boolean }) => [m.to, m]),
    );
    expect(byRecipient.get(secondOwner.email)).toMatchObject({ withheld: true });
    expect(byRecipient.get(otherAdmin.email)).toMatchObject({ withheld: true });
    expect(adminView.text).not.toContain(secretOf(ownerReset));
    expect(adminView.text).not.toContain(secretOf(adminReset));
    // An admin may reset a member's password, so may read that link.
    expect(byRecipient.get(member.email)).toMatchObject({ withheld: false });
    expect(adminView.text).toContain(encodeURIComponent(memberReset));

    // Owners read every link.
    const ownerView = await outboxAs(owner);
    expect(ownerView.body.result.data.messages.every((m: { withheld: boolean }) => !m.withheld)).toBe(true);
    expect(ownerView.text).toContain(encodeURIComponent(ownerReset));

    // The recipient reads mail sent to them: the admin whose password was reset, once back in.
    expect(
      (await trpc("mutation", "invitations.accept", { token: adminReset, password: "another-long-passphrase" })).status,
    ).toBe(200);
    const recipientView = await outboxAs(await signInCookie(otherAdmin.email, "another-long-passphrase"));
    const own = recipientView.body.result.data.messages.find((m: { to: string }) => m.to === otherAdmin.email);
    expect(own).toMatchObject({ withheld: false });
    expect(own.text).toContain(encodeURIComponent(adminReset));
    expect(recipientView.text).not.toContain(secretOf(ownerReset));
  });
});
