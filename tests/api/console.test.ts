// The console door (/api/trpc): sign-in with a session cookie, sessions ending, and the rules
// for managing keys and members that a signed-in person meets.
import { describe, expect, it } from "vitest";
import { hashSecret } from "@/server/auth/secrets";
import { getDb } from "@/server/db";
import {
  addPerson,
  api,
  awayFromWindowEdge,
  issueKey,
  newOrganization,
  signInCookie,
  trpc,
  trpcErrorCode,
  type ApiResponse,
} from "../helpers";

function expectConsoleError(response: ApiResponse, status: number, code: string): void {
  expect({ status: response.status, code: trpcErrorCode(response) }).toEqual({ status, code });
  expect(response.headers.get("x-request-id")).toBeTruthy();
}

describe("sign-in", () => {
  it("sets an httpOnly session cookie on the right password and the session authenticates", async () => {
    const tenant = await newOrganization();
    const response = await trpc("mutation", "auth.signIn", {
      email: tenant.owner.email,
      password: tenant.owner.password,
    });
    expect(response.status).toBe(200);
    expect(response.body.result.data).toEqual({ ok: true });

    const setCookie = response.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^atrium_session=[^;]+/);
    expect(setCookie).toMatch(/;\s*HttpOnly/i);
    expect(setCookie).toMatch(/;\s*SameSite=Lax/i);
    expect(setCookie).toMatch(/;\s*Path=\//);
    expect(setCookie).toMatch(/;\s*Expires=/);

    const cookie = setCookie.split(";")[0]!;
    const me = await trpc("query", "auth.me", undefined, { cookie });
    expect(me.status).toBe(200);
    expect(me.body.result.data.member).toEqual({
      id: tenant.owner.member.id,
      email: tenant.owner.email,
      role: "owner",
    });
    expect(me.body.result.data.organization.id).toBe(tenant.organization.id);
  });

  it("stores only a hash of the session token", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const token = decodeURIComponent(cookie.slice("atrium_session=".length));
    const sessions = await getDb().session.findMany({ where: { memberId: tenant.owner.member.id } });
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.tokenHash).toBe(hashSecret(token));
    expect(sessions[0]!.tokenHash).not.toContain(token);
  });

  it("accepts the email in another case", async () => {
    const tenant = await newOrganization();
    const response = await trpc("mutation", "auth.signIn", {
      email: tenant.owner.email.toUpperCase(),
      password: tenant.owner.password,
    });
    expect(response.status).toBe(200);
  });

  it("refuses a wrong password or an unknown email with unauthorized and no cookie", async () => {
    const tenant = await newOrganization();
    for (const input of [
      { email: tenant.owner.email, password: `${tenant.owner.password}x` },
      { email: `nobody-${tenant.organization.id}@example.test`, password: tenant.owner.password },
    ]) {
      const response = await trpc("mutation", "auth.signIn", input);
      expectConsoleError(response, 401, "unauthorized");
      expect(response.headers.get("set-cookie")).toBeNull();
    }
    expect(await getDb().session.count({ where: { memberId: tenant.owner.member.id } })).toBe(0);
  });

  it("refuses a person who has left the organization", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const owner = await signInCookie(tenant.owner.email, tenant.owner.password);
    expect((await trpc("mutation", "members.remove", { memberId: person.member.id }, { cookie: owner })).status).toBe(
      200,
    );
    expectConsoleError(
      await trpc("mutation", "auth.signIn", { email: person.email, password: person.password }),
      401,
      "unauthorized",
    );
  });

  it("limits failed sign-ins per email and address to 10 a minute, with Retry-After", async () => {
    const tenant = await newOrganization();
    await awayFromWindowEdge(10);
    for (let i = 0; i < 10; i++) {
      expectConsoleError(
        await trpc("mutation", "auth.signIn", { email: tenant.owner.email, password: "wrong" }),
        401,
        "unauthorized",
      );
    }
    // Even the right password is refused now, from the same address (tests/security/console-throttle.test.ts covers other addresses).
    const refused = await trpc("mutation", "auth.signIn", {
      email: tenant.owner.email,
      password: tenant.owner.password,
    });
    expectConsoleError(refused, 429, "rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("refuses console calls without a session with unauthorized", async () => {
    expectConsoleError(await trpc("query", "auth.me"), 401, "unauthorized");
    expectConsoleError(
      await trpc("query", "auth.me", undefined, { cookie: "atrium_session=made-up" }),
      401,
      "unauthorized",
    );
  });
});

describe("sessions", () => {
  it("stop authenticating once they expire", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    expect((await trpc("query", "auth.me", undefined, { cookie })).status).toBe(200);

    await getDb().session.updateMany({
      where: { memberId: tenant.owner.member.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });

    expectConsoleError(await trpc("query", "auth.me", undefined, { cookie }), 401, "unauthorized");
  });

  it("end on sign-out: the cookie is cleared and the session deleted", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const response = await trpc("mutation", "auth.signOut", undefined, { cookie });
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toMatch(/^atrium_session=;.*Max-Age=0/);
    expect(await getDb().session.count({ where: { memberId: tenant.owner.member.id } })).toBe(0);
    expectConsoleError(await trpc("query", "auth.me", undefined, { cookie }), 401, "unauthorized");
  });

  it("end when the member is removed", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "admin");
    const cookie = await signInCookie(person.email, person.password);
    const owner = await signInCookie(tenant.owner.email, tenant.owner.password);
    expect((await trpc("mutation", "members.remove", { memberId: person.member.id }, { cookie: owner })).status).toBe(
      200,
    );
    expectConsoleError(await trpc("query", "auth.me", undefined, { cookie }), 401, "unauthorized");
  });
});

describe("API keys in the console", () => {
  const allScopes = ["knowledge:read", "knowledge:write"];

  it("creating an organization key needs admin: a member gets forbidden_role and nothing is stored", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const cookie = await signInCookie(person.email, person.password);
    const before = await getDb().apiKey.count({ where: { organizationId: tenant.organization.id } });

    const response = await trpc(
      "mutation",
      "apiKeys.create",
      { name: "CI", kind: "organization", scopes: allScopes },
      { cookie },
    );

    expectConsoleError(response, 403, "forbidden_role");
    expect(await getDb().apiKey.count({ where: { organizationId: tenant.organization.id } })).toBe(before);
  });

  it("an admin creates an organization key whose secret is shown once, stored hashed, and works", async () => {
    const tenant = await newOrganization();
    const admin = await addPerson(tenant.operator, "admin");
    const cookie = await signInCookie(admin.email, admin.password);

    const response = await trpc(
      "mutation",
      "apiKeys.create",
      { name: "CI", kind: "organization", scopes: allScopes },
      { cookie },
    );

    expect(response.status).toBe(200);
    const created = response.body.result.data;
    expect(created).toMatchObject({
      kind: "organization",
      name: "CI",
      scopes: allScopes,
      memberId: null,
      revokedAt: null,
    });
    expect(created.secret).toMatch(/^sk_org_[A-Za-z0-9_-]{43,}$/);
    expect(created.prefix).toBe(created.secret.slice(0, created.prefix.length));

    const row = await getDb().apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.secretHash).toBe(hashSecret(created.secret));
    expect(JSON.stringify(row)).not.toContain(created.secret);
    const list = await trpc("query", "apiKeys.list", undefined, { cookie });
    expect(JSON.stringify(list.body)).not.toContain(created.secret);
    expect(list.body.result.data.map((k: { id: string }) => k.id)).toContain(created.id);

    expect((await api("GET", "/models", { key: created.secret })).status).toBe(200);
  });

  it("any member creates their own personal key (sk_mem_)", async () => {
    const tenant = await newOrganization();
    const viewer = await addPerson(tenant.operator, "viewer");
    const cookie = await signInCookie(viewer.email, viewer.password);
    const response = await trpc(
      "mutation",
      "apiKeys.create",
      { name: "mine", kind: "personal", scopes: ["knowledge:read"] },
      { cookie },
    );
    expect(response.status).toBe(200);
    expect(response.body.result.data).toMatchObject({
      kind: "personal",
      memberId: viewer.member.id,
      memberEmail: viewer.email,
    });
    expect(response.body.result.data.secret).toMatch(/^sk_mem_/);
    expect((await api("GET", "/models", { key: response.body.result.data.secret })).status).toBe(200);
  });

  it("refuses a key with no scopes or an unknown scope with invalid_request", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    expectConsoleError(
      await trpc("mutation", "apiKeys.create", { name: "x", kind: "organization", scopes: [] }, { cookie }),
      400,
      "invalid_request",
    );
    expectConsoleError(
      await trpc(
        "mutation",
        "apiKeys.create",
        { name: "x", kind: "organization", scopes: ["knowledge:admin"] },
        { cookie },
      ),
      400,
      "invalid_request",
    );
  });

  it("revoking a key stops it at once", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    expect((await api("GET", "/models", { key: tenant.orgKey.secret })).status).toBe(200);

    const response = await trpc("mutation", "apiKeys.revoke", { keyId: tenant.orgKey.id }, { cookie });

    expect(response.status).toBe(200);
    expect(response.body.result.data).toMatchObject({ id: tenant.orgKey.id, revokedAt: expect.any(String) });
    const refused = await api("GET", "/models", { key: tenant.orgKey.secret });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("api_key_revoked");
  });

  it("a member may revoke their own key but not someone else's", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const own = await issueKey(tenant.operator, { kind: "personal", memberId: person.member.id });
    const cookie = await signInCookie(person.email, person.password);

    expectConsoleError(
      await trpc("mutation", "apiKeys.revoke", { keyId: tenant.orgKey.id }, { cookie }),
      403,
      "forbidden_role",
    );
    expect((await api("GET", "/models", { key: tenant.orgKey.secret })).status).toBe(200);

    expect((await trpc("mutation", "apiKeys.revoke", { keyId: own.id }, { cookie })).status).toBe(200);
    expect((await api("GET", "/models", { key: own.secret })).body.error.code).toBe("api_key_revoked");
  });

  it("cannot see or revoke another organization's keys", async () => {
    const tenant = await newOrganization();
    const other = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    expectConsoleError(
      await trpc("mutation", "apiKeys.revoke", { keyId: other.orgKey.id }, { cookie }),
      404,
      "not_found",
    );
    expect((await api("GET", "/models", { key: other.orgKey.secret })).status).toBe(200);
    const list = await trpc("query", "apiKeys.list", undefined, { cookie });
    expect(list.body.result.data.map((k: { id: string }) => k.id)).not.toContain(other.orgKey.id);
  });
});

describe("members in the console", () => {
  it("inviting a new person mails a link and hands out no password", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const email = `new-${tenant.organization.id}@example.test`;

    const response = await trpc("mutation", "invitations.create", { email, role: "member" }, { cookie });

    expect(response.status).toBe(200);
    expect(response.body.result.data).toMatchObject({ email, role: "member", status: "pending" });
    expect(JSON.stringify(response.body)).not.toMatch(/password/i);
    expect(await getDb().user.count({ where: { email } })).toBe(0);
    const mail = await getDb().outboxMessage.findFirstOrThrow({
      where: { organizationId: tenant.organization.id, to: email },
    });
    expect(mail.text).toContain("/invite/");
  });

  it("inviting needs admin", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const cookie = await signInCookie(person.email, person.password);
    expectConsoleError(
      await trpc("mutation", "invitations.create", { email: "x@example.test", role: "viewer" }, { cookie }),
      403,
      "forbidden_role",
    );
    expect(await getDb().invitation.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  });

  it("an admin cannot make an owner", async () => {
    const tenant = await newOrganization();
    const admin = await addPerson(tenant.operator, "admin");
    const cookie = await signInCookie(admin.email, admin.password);
    const email = `would-be-owner-${tenant.organization.id}@example.test`;
    expectConsoleError(
      await trpc("mutation", "invitations.create", { email, role: "owner" }, { cookie }),
      403,
      "forbidden_role",
    );
  });

  it("inviting someone who is already a member gives conflict", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "viewer");
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    expectConsoleError(
      await trpc("mutation", "invitations.create", { email: person.email, role: "member" }, { cookie }),
      409,
      "conflict",
    );
  });

  it("removing the last owner is refused and changes nothing", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);

    const response = await trpc("mutation", "members.remove", { memberId: tenant.owner.member.id }, { cookie });

    expectConsoleError(response, 400, "invalid_request");
    expect(response.body.error.message).toMatch(/owner/);
    const row = await getDb().member.findUniqueOrThrow({ where: { id: tenant.owner.member.id } });
    expect(row.removedAt).toBeNull();
    expect((await trpc("query", "auth.me", undefined, { cookie })).status).toBe(200);
    expect((await api("GET", "/models", { key: tenant.personalKey.secret })).status).toBe(200);
  });

  it("demoting the last owner is refused; with a second owner it is allowed", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    expectConsoleError(
      await trpc("mutation", "members.changeRole", { memberId: tenant.owner.member.id, role: "admin" }, { cookie }),
      400,
      "invalid_request",
    );
    await addPerson(tenant.operator, "owner");
    const response = await trpc(
      "mutation",
      "members.changeRole",
      { memberId: tenant.owner.member.id, role: "admin" },
      { cookie },
    );
    expect(response.status).toBe(200);
    expect(response.body.result.data.role).toBe("admin");
  });

  it("removing a member stops their personal keys with member_removed", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const key = await issueKey(tenant.operator, { kind: "personal", memberId: person.member.id });
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);

    const response = await trpc("mutation", "members.remove", { memberId: person.member.id }, { cookie });

    expect(response.status).toBe(200);
    expect(response.body.result.data.removedAt).toEqual(expect.any(String));
    expect((await api("GET", "/models", { key: key.secret })).body.error.code).toBe("member_removed");
    const list = await trpc("query", "members.list", undefined, { cookie });
    expect(list.body.result.data.map((m: { id: string }) => m.id)).not.toContain(person.member.id);
  });
});

describe("organization settings in the console", () => {
  it("an admin turns the API off and keys get api_disabled; plan is not the console's to set", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const response = await trpc("mutation", "organization.update", { apiEnabled: false }, { cookie });
    expect(response.status).toBe(200);
    expect(response.body.result.data.apiEnabled).toBe(false);
    expect((await api("GET", "/models", { key: tenant.orgKey.secret })).body.error.code).toBe("api_disabled");

    expectConsoleError(
      await trpc("mutation", "organization.update", { plan: "agency" }, { cookie }),
      400,
      "invalid_request",
    );
  });

  it("a member cannot change settings", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const cookie = await signInCookie(person.email, person.password);
    expectConsoleError(
      await trpc("mutation", "organization.update", { apiEnabled: false }, { cookie }),
      403,
      "forbidden_role",
    );
    expect((await api("GET", "/models", { key: tenant.orgKey.secret })).status).toBe(200);
  });
});
