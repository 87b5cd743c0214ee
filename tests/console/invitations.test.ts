// Invitations by email, tried the way an attacker or a clumsy admin would: links used twice or at
// once, after expiry, after revocation or resending, across organizations, and links that must
// never be built from request headers.
import { describe, expect, it } from "vitest";
import { publicOrigin } from "@/env";
import { getDb } from "@/server/db";
import { hashSecret } from "@/server/auth/secrets";
import {
  addPerson,
  consoleHandler,
  newOrganization,
  signInCookie,
  toApiResponse,
  trpc,
  trpcErrorCode,
  uniqueSuffix,
  type ApiResponse,
  type Tenant,
} from "../helpers";

const PASSWORD = "a-long-enough-passphrase";

function freshEmail(): string {
  return `invitee-${uniqueSuffix()}@example.test`;
}

async function ownerCookie(tenant: Tenant): Promise<string> {
  return signInCookie(tenant.owner.email, tenant.owner.password);
}

/** The token of the newest invitation mail to `email` in the organization's outbox. */
async function tokenFromOutbox(tenant: Tenant, email: string): Promise<string> {
  const mail = await getDb().outboxMessage.findFirstOrThrow({
    where: { organizationId: tenant.organization.id, to: email },
    orderBy: { createdAt: "desc" },
  });
  const line = mail.text.split("\n").find((text) => text.includes("/invite/"));
  if (!line) throw new Error("no invitation link in the mail");
  expect(line.startsWith(`${publicOrigin()}/invite/`)).toBe(true);
  return decodeURIComponent(line.slice(line.indexOf("/invite/") + "/invite/".length).trim());
}

async function invite(
  tenant: Tenant,
  email: string,
  role = "member",
  cookie?: string,
): Promise<{ response: ApiResponse; token: string }> {
  const response = await trpc(
    "mutation",
    "invitations.create",
    { email, role },
    { cookie: cookie ?? (await ownerCookie(tenant)) },
  );
  expect(response.status).toBe(200);
  return { response, token: await tokenFromOutbox(tenant, email) };
}

async function accept(token: string, password = PASSWORD): Promise<ApiResponse> {
  return trpc("mutation", "invitations.accept", { token, password });
}

function expectRefused(response: ApiResponse, status: number, code: string, reason?: string): void {
  expect(response.status).toBe(status);
  expect(trpcErrorCode(response)).toBe(code);
  if (reason) expect(response.body.error.data.appError.reason).toBe(reason);
}

async function memberCount(tenant: Tenant, email: string): Promise<number> {
  return getDb().member.count({ where: { organizationId: tenant.organization.id, removedAt: null, user: { email } } });
}

describe("an invitation by email", () => {
  it("mails a link the invitee opens to set a password, and signs them in to the console", async () => {
    const tenant = await newOrganization();
    const email = freshEmail();
    const { response, token } = await invite(tenant, email, "admin");
    expect(response.body.result.data).toMatchObject({
      email,
      role: "admin",
      status: "pending",
      invitedBy: tenant.owner.email,
    });

    // Only the secret's hash is stored.
    const stored = await getDb().invitation.findFirstOrThrow({
      where: { organizationId: tenant.organization.id, email },
    });
    expect(stored.tokenHash).toBe(hashSecret(token.split(".")[1]!));
    expect(JSON.stringify(stored)).not.toContain(token.split(".")[1]!);
    expect(stored.expiresAt.getTime() - stored.createdAt.getTime()).toBe(7 * 86_400_000);

    const preview = await trpc("query", "invitations.preview", { token });
    expect(preview.body.result.data).toMatchObject({
      organizationName: tenant.organization.name,
      email,
      role: "admin",
    });

    const accepted = await accept(token);
    expect(accepted.status).toBe(200);
    const cookie = accepted.headers.get("set-cookie")!.split(";")[0]!;
    const me = (await trpc("query", "auth.me", undefined, { cookie })).body.result.data;
    expect(me.member).toMatchObject({ email, role: "admin" });
    expect(me.organization.id).toBe(tenant.organization.id);
    expect((await trpc("mutation", "auth.signIn", { email, password: PASSWORD })).status).toBe(200);

    const actions = await getDb().auditEvent.findMany({
      where: { organizationId: tenant.organization.id, targetType: "invitation" },
      orderBy: { occurredAt: "asc" },
    });
    expect(actions.map((event) => [event.action, event.actorLabel])).toEqual([
      ["invitation.create", tenant.owner.email],
      ["invitation.accept", email],
    ]);
    const pending = await trpc("query", "invitations.list", { limit: 50 }, { cookie: await ownerCookie(tenant) });
    expect(pending.body.result.data.invitations).toEqual([]);
  });

  it("works once: a second use, and two submits at once, make one member", async () => {
    const tenant = await newOrganization();
    const email = freshEmail();
    const { token } = await invite(tenant, email);
    const [first, second] = await Promise.all([accept(token), accept(token, "another-long-passphrase")]);
    expect([first.status, second.status].sort()).toEqual([200, 410]);
    expectRefused(first.status === 410 ? first : second, 410, "invitation_unavailable", "used");
    expectRefused(await accept(token), 410, "invitation_unavailable", "used");
    expect(await memberCount(tenant, email)).toBe(1);
    expect(
      await getDb().session.count({ where: { member: { organizationId: tenant.organization.id, user: { email } } } }),
    ).toBe(1);
  });

  it("refuses an expired link, shows nothing of it, and writes nothing", async () => {
    const tenant = await newOrganization();
    const email = freshEmail();
    const { token } = await invite(tenant, email);
    await getDb().invitation.updateMany({
      where: { organizationId: tenant.organization.id, email },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expectRefused(await trpc("query", "invitations.preview", { token }), 410, "invitation_unavailable", "expired");
    expectRefused(await accept(token), 410, "invitation_unavailable", "expired");
    expect(await memberCount(tenant, email)).toBe(0);
    expect(await getDb().user.count({ where: { email } })).toBe(0);
    // The admin still sees it, as expired, and may send it again.
    const list = (await trpc("query", "invitations.list", { limit: 50 }, { cookie: await ownerCookie(tenant) })).body
      .result.data.invitations;
    expect(list.map((item: { email: string; status: string }) => [item.email, item.status])).toEqual([
      [email, "expired"],
    ]);
  });

  it("refuses a revoked link", async () => {
    const tenant = await newOrganization();
    const email = freshEmail();
    const { response, token } = await invite(tenant, email);
    const cookie = await ownerCookie(tenant);
    expect(
      (await trpc("mutation", "invitations.revoke", { invitationId: response.body.result.data.id }, { cookie })).status,
    ).toBe(200);
    expectRefused(await accept(token), 410, "invitation_unavailable", "revoked");
    expect(await memberCount(tenant, email)).toBe(0);
    expectRefused(
      await trpc("mutation", "invitations.resend", { invitationId: response.body.result.data.id }, { cookie }),
      404,
      "not_found",
    );
  });

  it("resends with a new link and kills the old one", async () => {
    const tenant = await newOrganization();
    const email = freshEmail();
    const { response, token: old } = await invite(tenant, email);
    const cookie = await ownerCookie(tenant);
    await getDb().invitation.updateMany({
      where: { organizationId: tenant.organization.id, email },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const resent = await trpc(
      "mutation",
      "invitations.resend",
      { invitationId: response.body.result.data.id },
      { cookie },
    );
    expect(resent.status).toBe(200);
    expect(resent.body.result.data.status).toBe("pending");
    const fresh = await tokenFromOutbox(tenant, email);
    expect(fresh).not.toBe(old);
    expectRefused(await accept(old), 404, "not_found");
    expect((await accept(fresh)).status).toBe(200);
    expect(await memberCount(tenant, email)).toBe(1);
  });

  it("keeps organizations apart: a link joins its own organization only, and admins reach only their own invitations", async () => {
    const a = await newOrganization();
    const b = await newOrganization();
    const email = freshEmail();
    const { response: forA, token: tokenA } = await invite(a, email);
    const { token: tokenB } = await invite(b, email);
    const cookieB = await ownerCookie(b);

    // B's admin neither sees, resends nor revokes A's invitation.
    expectRefused(
      await trpc("mutation", "invitations.revoke", { invitationId: forA.body.result.data.id }, { cookie: cookieB }),
      404,
      "not_found",
    );
    expectRefused(
      await trpc("mutation", "invitations.resend", { invitationId: forA.body.result.data.id }, { cookie: cookieB }),
      404,
      "not_found",
    );
    const listB = (await trpc("query", "invitations.list", { limit: 50 }, { cookie: cookieB })).body.result.data
      .invitations;
    expect(listB.map((item: { id: string }) => item.id)).not.toContain(forA.body.result.data.id);

    // A's id with B's secret opens nothing.
    const mixed = `${tokenA.split(".")[0]}.${tokenB.split(".")[1]}`;
    expectRefused(await accept(mixed), 404, "not_found");

    const accepted = await accept(tokenA);
    expect(accepted.status).toBe(200);
    expect(await memberCount(a, email)).toBe(1);
    expect(await memberCount(b, email)).toBe(0);
  });

  it("answers 409 for an existing member's email or a pending invitation, writing and mailing nothing", async () => {
    const tenant = await newOrganization();
    const cookie = await ownerCookie(tenant);
    const mailsBefore = await getDb().outboxMessage.count({ where: { organizationId: tenant.organization.id } });
    expectRefused(
      await trpc(
        "mutation",
        "invitations.create",
        { email: tenant.owner.email.toUpperCase(), role: "member" },
        { cookie },
      ),
      409,
      "conflict",
    );
    expect(await getDb().invitation.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
    expect(await getDb().outboxMessage.count({ where: { organizationId: tenant.organization.id } })).toBe(mailsBefore);

    const email = freshEmail();
    await invite(tenant, email, "member", cookie);
    expectRefused(await trpc("mutation", "invitations.create", { email, role: "viewer" }, { cookie }), 409, "conflict");
    expect(await getDb().invitation.count({ where: { organizationId: tenant.organization.id } })).toBe(1);
  });

  it("lets only admins invite, and only owners invite owners", async () => {
    const tenant = await newOrganization();
    const memberInvite = await invite(tenant, freshEmail(), "member");
    const memberCookie = (await accept(memberInvite.token)).headers.get("set-cookie")!.split(";")[0]!;
    expectRefused(
      await trpc("mutation", "invitations.create", { email: freshEmail(), role: "viewer" }, { cookie: memberCookie }),
      403,
      "forbidden_role",
    );
    expectRefused(
      await trpc("query", "invitations.list", { limit: 50 }, { cookie: memberCookie }),
      403,
      "forbidden_role",
    );

    const adminInvite = await invite(tenant, freshEmail(), "admin");
    const adminCookie = (await accept(adminInvite.token)).headers.get("set-cookie")!.split(";")[0]!;
    expectRefused(
      await trpc("mutation", "invitations.create", { email: freshEmail(), role: "owner" }, { cookie: adminCookie }),
      403,
      "forbidden_role",
    );
    expect(
      (await trpc("mutation", "invitations.create", { email: freshEmail(), role: "admin" }, { cookie: adminCookie }))
        .status,
    ).toBe(200);
  });

  it("asks for a password as sign-up does, and keeps the link open after a refusal", async () => {
    const tenant = await newOrganization();
    const email = freshEmail();
    const { token } = await invite(tenant, email);
    const short = await accept(token, "short");
    expectRefused(short, 400, "invalid_request");
    expect(await memberCount(tenant, email)).toBe(0);
    expect((await accept(token)).status).toBe(200);
  });

  it("refuses a malformed or unknown token as not found, and a token over its bound as invalid", async () => {
    for (const token of ["nothing", ".", `${crypto.randomUUID()}.`, `${crypto.randomUUID()}.abc`, "../../etc.passwd"]) {
      expectRefused(await accept(token), 404, "not_found");
    }
    expectRefused(await accept("x".repeat(101)), 400, "invalid_request");
  });

  it("builds the link from the configured origin, whatever the request's Host says", async () => {
    const tenant = await newOrganization();
    const email = freshEmail();
    const request = new Request("http://localhost/api/trpc/invitations.create", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        cookie: await ownerCookie(tenant),
        host: "evil.example",
        "x-forwarded-host": "evil.example",
        origin: "http://localhost",
      },
      body: JSON.stringify({ email, role: "member" }),
    });
    expect((await toApiResponse(await consoleHandler()(request))).status).toBe(200);
    const mail = await getDb().outboxMessage.findFirstOrThrow({
      where: { organizationId: tenant.organization.id, to: email },
    });
    expect(mail.text).not.toContain("evil.example");
    await tokenFromOutbox(tenant, email);
  });
});

describe("a password reset by link", () => {
  it("lets the member choose a new password once, signs them in, and is no invitation", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const cookie = await ownerCookie(tenant);
    expect((await trpc("mutation", "members.resetPassword", { memberId: person.member.id }, { cookie })).status).toBe(
      200,
    );
    const token = await tokenFromOutbox(tenant, person.email);
    expect((await trpc("query", "invitations.preview", { token })).body.result.data).toMatchObject({
      email: person.email,
      purpose: "reset",
    });
    expect((await trpc("query", "invitations.list", { limit: 50 }, { cookie })).body.result.data.invitations).toEqual(
      [],
    );

    const accepted = await accept(token, "my-new-passphrase-1");
    expect(accepted.status).toBe(200);
    expect(accepted.body.result.data.member.id).toBe(person.member.id);
    const me = (
      await trpc("query", "auth.me", undefined, { cookie: accepted.headers.get("set-cookie")!.split(";")[0]! })
    ).body.result.data;
    expect(me.member.id).toBe(person.member.id);
    expect(
      (await trpc("mutation", "auth.signIn", { email: person.email, password: "my-new-passphrase-1" })).status,
    ).toBe(200);
    expect((await trpc("mutation", "auth.signIn", { email: person.email, password: person.password })).status).toBe(
      401,
    );
    expectRefused(await accept(token, "my-new-passphrase-2"), 410, "invitation_unavailable", "used");
    expect(await memberCount(tenant, person.email)).toBe(1);
    const changes = await getDb().auditEvent.findMany({
      where: {
        organizationId: tenant.organization.id,
        targetId: person.member.id,
        action: { startsWith: "member.password" },
      },
      orderBy: { occurredAt: "asc" },
    });
    expect(changes.map((event) => [event.action, event.actorLabel])).toEqual([
      ["member.password_reset", tenant.owner.email],
      ["member.password_change", person.email],
    ]);
  });

  it("kills an earlier reset link, refuses an expired one, and dies with the membership", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const cookie = await ownerCookie(tenant);
    await trpc("mutation", "members.resetPassword", { memberId: person.member.id }, { cookie });
    const first = await tokenFromOutbox(tenant, person.email);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await trpc("mutation", "members.resetPassword", { memberId: person.member.id }, { cookie });
    const second = await tokenFromOutbox(tenant, person.email);
    expect(second).not.toBe(first);
    expectRefused(await accept(first), 410, "invitation_unavailable", "revoked");

    await getDb().invitation.updateMany({
      where: { memberId: person.member.id, acceptedAt: null, revokedAt: null },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expectRefused(await accept(second), 410, "invitation_unavailable", "expired");

    await trpc("mutation", "members.resetPassword", { memberId: person.member.id }, { cookie });
    const third = await tokenFromOutbox(tenant, person.email);
    expect((await trpc("mutation", "members.remove", { memberId: person.member.id }, { cookie })).status).toBe(200);
    expectRefused(await accept(third), 410, "invitation_unavailable");
    expect(await memberCount(tenant, person.email)).toBe(0);
  });
});
