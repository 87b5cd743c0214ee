// Accounts in the console: a person changes their own password (current one required, their
// other sessions end); an admin resets a member's (role rules, sessions end, own password kept).
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { addMember } from "@/server/services/identity/members";
import { addPerson, newOrganization, signInCookie, trpc, trpcErrorCode } from "../helpers";

async function signInStatus(email: string, password: string): Promise<number> {
  return (await trpc("mutation", "auth.signIn", { email, password })).status;
}

describe("auth.changePassword", () => {
  it("needs the current password, ends the person's other sessions and keeps this one", async () => {
    const tenant = await newOrganization();
    const { email, password } = tenant.owner;
    const here = await signInCookie(email, password);
    const elsewhere = await signInCookie(email, password);

    const changed = await trpc(
      "mutation",
      "auth.changePassword",
      { currentPassword: password, newPassword: "a-brand-new-passphrase" },
      { cookie: here },
    );
    expect(changed.status).toBe(200);

    expect((await trpc("query", "auth.me", undefined, { cookie: here })).status).toBe(200);
    expect((await trpc("query", "auth.me", undefined, { cookie: elsewhere })).status).toBe(401);
    expect(await signInStatus(email, password)).toBe(401);
    expect(await signInStatus(email, "a-brand-new-passphrase")).toBe(200);
  });

  it("refuses a wrong current password naming the field, and changes nothing", async () => {
    const tenant = await newOrganization();
    const { email, password } = tenant.owner;
    const here = await signInCookie(email, password);
    const elsewhere = await signInCookie(email, password);
    const refused = await trpc(
      "mutation",
      "auth.changePassword",
      { currentPassword: "not-it", newPassword: "a-brand-new-passphrase" },
      { cookie: here },
    );
    expect(refused.status).toBe(400);
    expect(trpcErrorCode(refused)).toBe("invalid_request");
    expect(refused.body.error.data.appError.problems).toEqual([
      { path: "currentPassword", message: "That is not your current password." },
    ]);
    expect(await signInStatus(email, password)).toBe(200);
    expect((await trpc("query", "auth.me", undefined, { cookie: elsewhere })).status).toBe(200);
  });

  it("refuses a short new password and one equal to the current", async () => {
    const tenant = await newOrganization();
    const { email, password } = tenant.owner;
    const cookie = await signInCookie(email, password);
    for (const newPassword of ["short", password]) {
      const refused = await trpc(
        "mutation",
        "auth.changePassword",
        { currentPassword: password, newPassword },
        { cookie },
      );
      expect(refused.status).toBe(400);
      expect(trpcErrorCode(refused)).toBe("invalid_request");
    }
    expect(await signInStatus(email, password)).toBe(200);
  });

  it("changes the organization's own password for someone invited with an existing account", async () => {
    const first = await newOrganization();
    const second = await newOrganization();
    // The owner of the first organization is invited to the second: they get a password for it only.
    const { temporaryPassword } = await addMember(getDb(), second.operator, {
      email: first.owner.email,
      role: "member",
    });
    const cookie = await signInCookie(first.owner.email, temporaryPassword!);
    const changed = await trpc(
      "mutation",
      "auth.changePassword",
      { currentPassword: temporaryPassword, newPassword: "second-org-passphrase" },
      { cookie },
    );
    expect(changed.status).toBe(200);
    // Their own password still opens the first organization; the new one opens the second.
    expect(await signInStatus(first.owner.email, first.owner.password)).toBe(200);
    expect(await signInStatus(first.owner.email, "second-org-passphrase")).toBe(200);
    expect(await signInStatus(first.owner.email, temporaryPassword!)).toBe(401);
  });

  it("is refused without a session", async () => {
    const refused = await trpc("mutation", "auth.changePassword", {
      currentPassword: "x",
      newPassword: "a-brand-new-passphrase",
    });
    expect(refused.status).toBe(401);
  });
});

describe("members.resetPassword", () => {
  it("mails the member a link instead of a password, and ends their password and sessions here at once", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const theirSession = await signInCookie(person.email, person.password);
    const admin = await signInCookie(tenant.owner.email, tenant.owner.password);

    const reset = await trpc("mutation", "members.resetPassword", { memberId: person.member.id }, { cookie: admin });
    expect(reset.status).toBe(200);
    expect(reset.body.result.data).toEqual({
      member: expect.objectContaining({ id: person.member.id, email: person.email }),
    });
    expect(JSON.stringify(reset.body)).not.toMatch(/password"/i);

    expect((await trpc("query", "auth.me", undefined, { cookie: theirSession })).status).toBe(401);
    expect(await signInStatus(person.email, person.password)).toBe(401);
    const mail = await getDb().outboxMessage.findFirstOrThrow({
      where: { organizationId: tenant.organization.id, to: person.email },
    });
    expect(mail.subject).toMatch(/new password/);
    expect(mail.text).toContain("/invite/");
  });

  it("keeps the role rules: members cannot, admins cannot reset an admin or owner, nobody resets themselves", async () => {
    const tenant = await newOrganization();
    const admin = await addPerson(tenant.operator, "admin");
    const otherAdmin = await addPerson(tenant.operator, "admin");
    const member = await addPerson(tenant.operator, "member");
    const adminCookie = await signInCookie(admin.email, admin.password);
    const memberCookie = await signInCookie(member.email, member.password);
    const ownerCookie = await signInCookie(tenant.owner.email, tenant.owner.password);

    const cases: [string, string, number, string][] = [
      [memberCookie, admin.member.id, 403, "forbidden_role"],
      [adminCookie, otherAdmin.member.id, 403, "forbidden_role"],
      [adminCookie, tenant.owner.member.id, 403, "forbidden_role"],
      [adminCookie, admin.member.id, 400, "invalid_request"],
    ];
    for (const [cookie, memberId, status, code] of cases) {
      const refused = await trpc("mutation", "members.resetPassword", { memberId }, { cookie });
      expect({ status: refused.status, code: trpcErrorCode(refused) }).toEqual({ status, code });
    }
    // Nothing changed: every refused target still signs in with their password.
    for (const person of [admin, otherAdmin, tenant.owner])
      expect(await signInStatus(person.email, person.password)).toBe(200);
    // An owner may reset an admin.
    expect(
      (await trpc("mutation", "members.resetPassword", { memberId: otherAdmin.member.id }, { cookie: ownerCookie }))
        .status,
    ).toBe(200);
  });

  it("does not reach a member of another organization", async () => {
    const mine = await newOrganization();
    const theirs = await newOrganization();
    const admin = await signInCookie(mine.owner.email, mine.owner.password);
    const refused = await trpc(
      "mutation",
      "members.resetPassword",
      { memberId: theirs.owner.member.id },
      { cookie: admin },
    );
    expect(refused.status).toBe(404);
    expect(await signInStatus(theirs.owner.email, theirs.owner.password)).toBe(200);
  });
});
