// End-user sign-in by email code, through the portal door: the code's rules, throttling
// without locking the owner out, no account oracle, and sessions that end at once on
// revocation or deletion.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { CODE_REQUEST_LIMITS, CODE_REQUESTS_PER_HOUR } from "@/server/services/portal/portal-sign-in";
import { api } from "../helpers";
import { clientAddress, codeFromOutbox, errorCode, portalCall, portalScenario, signIn } from "./helpers";

async function requestCode(portal: string, email: string, headers: Record<string, string>) {
  return portalCall("mutation", "auth.requestCode", { portal, email }, { headers });
}

async function verify(portal: string, email: string, code: string, headers: Record<string, string>) {
  return portalCall("mutation", "auth.verifyCode", { portal, email, code }, { headers });
}

function otherCode(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, "0");
}

describe("sign-in codes", () => {
  it("mails a 6-digit code valid 10 minutes, stored only hashed; the first sign-in verifies the email", async () => {
    const scenario = await portalScenario();
    const from = clientAddress();
    const before = Date.now();
    const response = await requestCode(scenario.portal.slug, scenario.endUser.email.toUpperCase(), from);
    expect(response.status).toBe(200);
    expect(response.body.result.data).toEqual({ sent: true, expiresInSeconds: 600 });

    const code = await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email);
    const mail = await getDb().outboxMessage.findFirstOrThrow({
      where: { organizationId: scenario.tenant.organization.id },
    });
    expect(mail.to).toBe(scenario.endUser.email);
    expect(mail.text).toContain(`/p/${scenario.portal.slug}`);
    expect(code).toMatch(/^\d{6}$/);
    const stored = await getDb().endUserSignInCode.findFirstOrThrow({ where: { endUserId: scenario.endUser.id } });
    expect(stored.codeHash).not.toContain(code);
    expect(stored.expiresAt.getTime() - before).toBeGreaterThan(599_000);
    expect(stored.expiresAt.getTime() - before).toBeLessThan(605_000);

    const endUserBefore = await getDb().endUser.findUniqueOrThrow({ where: { id: scenario.endUser.id } });
    expect(endUserBefore.emailVerifiedAt).toBeNull();
    const verified = await verify(scenario.portal.slug, scenario.endUser.email, code!, from);
    expect(verified.status).toBe(200);
    expect(verified.body.result.data).toEqual({
      endUser: { id: scenario.endUser.id, email: scenario.endUser.email, fullName: "Alice" },
    });
    const cookie = verified.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^atrium_portal_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Expires=/);
    expect(cookie).not.toContain("Secure");
    const endUser = await getDb().endUser.findUniqueOrThrow({ where: { id: scenario.endUser.id } });
    expect(endUser.authMethod).toBe("email_code");
    expect(endUser.emailVerifiedAt).not.toBeNull();
    expect(endUser.lastSeenAt).not.toBeNull();
    // Only the hash of the session token is stored.
    const token = decodeURIComponent(cookie.split(";")[0]!.split("=")[1]!);
    expect(await getDb().endUserSession.count({ where: { tokenHash: token } })).toBe(0);
    expect(await getDb().endUserSession.count({ where: { endUserId: scenario.endUser.id } })).toBe(1);
  });

  it("sets Secure on the cookie over https", async () => {
    const scenario = await portalScenario();
    const from = { ...clientAddress(), "x-forwarded-proto": "https" };
    await requestCode(scenario.portal.slug, scenario.endUser.email, from);
    const code = await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email);
    const verified = await verify(scenario.portal.slug, scenario.endUser.email, code!, from);
    expect(verified.headers.get("set-cookie")).toContain("; Secure");
  });

  it("is single use", async () => {
    const scenario = await portalScenario();
    const from = clientAddress();
    await requestCode(scenario.portal.slug, scenario.endUser.email, from);
    const code = (await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email))!;
    expect((await verify(scenario.portal.slug, scenario.endUser.email, code, from)).status).toBe(200);
    const again = await verify(scenario.portal.slug, scenario.endUser.email, code, from);
    expect(again.status).toBe(400);
    expect(errorCode(again)).toBe("invalid_code");
    expect(again.body.error.message).toBe("That code is wrong or has expired. Request a new one.");
    expect(again.headers.get("set-cookie")).toBeNull();
    expect(await getDb().endUserSession.count({ where: { endUserId: scenario.endUser.id } })).toBe(1);
  });

  it("expires after 10 minutes", async () => {
    const scenario = await portalScenario();
    const from = clientAddress();
    await requestCode(scenario.portal.slug, scenario.endUser.email, from);
    const code = (await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email))!;
    await getDb().endUserSignInCode.updateMany({
      where: { endUserId: scenario.endUser.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const late = await verify(scenario.portal.slug, scenario.endUser.email, code, from);
    expect(late.status).toBe(400);
    expect(errorCode(late)).toBe("invalid_code");
    expect(await getDb().endUserSession.count({ where: { endUserId: scenario.endUser.id } })).toBe(0);
  });

  it("is void after 5 wrong tries, even the right code; a new code replaces the older ones", async () => {
    const scenario = await portalScenario();
    const from = clientAddress();
    await requestCode(scenario.portal.slug, scenario.endUser.email, from);
    const first = (await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email))!;
    await requestCode(scenario.portal.slug, scenario.endUser.email, from);
    const second = (await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email, 2))!;
    const wrong = ["000000", "111111", "222222", "333333", "444444", "555555"].find(
      (c) => c !== first && c !== second,
    )!;
    for (let i = 0; i < 4; i++)
      expect((await verify(scenario.portal.slug, scenario.endUser.email, wrong, from)).status).toBe(400);
    // The second code replaced the first; the fifth wrong try voids it.
    expect((await verify(scenario.portal.slug, scenario.endUser.email, wrong, from)).status).toBe(400);
    for (const code of [first, second]) {
      const late = await verify(scenario.portal.slug, scenario.endUser.email, code, from);
      expect(late.status).toBe(400);
      expect(errorCode(late)).toBe("invalid_code");
    }
    expect(await getDb().endUserSession.count({ where: { endUserId: scenario.endUser.id } })).toBe(0);
    // A new code works again.
    await requestCode(scenario.portal.slug, scenario.endUser.email, from);
    const fresh = (await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email, 3))!;
    expect((await verify(scenario.portal.slug, scenario.endUser.email, fresh, from)).status).toBe(200);
  });

  it("4 wrong tries leave the right code working", async () => {
    const scenario = await portalScenario();
    const from = clientAddress();
    await requestCode(scenario.portal.slug, scenario.endUser.email, from);
    const code = (await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email))!;
    for (let i = 0; i < 4; i++)
      expect((await verify(scenario.portal.slug, scenario.endUser.email, otherCode(code), from)).status).toBe(400);
    expect((await verify(scenario.portal.slug, scenario.endUser.email, code, from)).status).toBe(200);
  });

  it("a code for one organization's end user does not sign in the same email elsewhere", async () => {
    const scenario = await portalScenario();
    const elsewhere = await portalScenario();
    await api("POST", "/end-users", { key: elsewhere.key, body: { email: scenario.endUser.email } });
    const from = clientAddress();
    await requestCode(scenario.portal.slug, scenario.endUser.email, from);
    const code = (await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email))!;
    const wrongPortal = await verify(elsewhere.portal.slug, scenario.endUser.email, code, from);
    expect(wrongPortal.status).toBe(400);
    expect(errorCode(wrongPortal)).toBe("invalid_code");
  });
});

describe("no account oracle", () => {
  it("answers unknown, revoked and deleted emails exactly as a real one, and sends them nothing", async () => {
    const scenario = await portalScenario();
    const revoked = `revoked-${scenario.endUser.email}`;
    const deleted = `deleted-${scenario.endUser.email}`;
    const revokedUser = await api("POST", "/end-users", { key: scenario.key, body: { email: revoked } });
    const deletedUser = await api("POST", "/end-users", { key: scenario.key, body: { email: deleted } });
    await api("POST", `/end-users/${revokedUser.body.endUser.id}/revoke`, { key: scenario.key });
    await api("DELETE", `/end-users/${deletedUser.body.endUser.id}`, { key: scenario.key });
    const from = clientAddress();

    const real = await requestCode(scenario.portal.slug, scenario.endUser.email, from);
    expect(await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email)).toBeDefined();
    for (const email of [`nobody-${scenario.endUser.email}`, revoked, deleted]) {
      const response = await requestCode(scenario.portal.slug, email, from);
      expect(response.status, email).toBe(real.status);
      expect(response.body, email).toEqual(real.body);
      expect(await getDb().outboxMessage.count({ where: { to: email } }), email).toBe(0);
      const guess = await verify(scenario.portal.slug, email, "123456", from);
      expect(guess.status).toBe(400);
      expect(guess.body.error.message).toBe("That code is wrong or has expired. Request a new one.");
    }
    // The stranger's requests came after the real one, whose mail is there: theirs would be too.
    await portalCall(
      "mutation",
      "auth.requestCode",
      { portal: scenario.portal.slug, email: scenario.endUser.email },
      { headers: from },
    );
    await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email, 2);
    expect(await getDb().outboxMessage.count({ where: { organizationId: scenario.tenant.organization.id } })).toBe(2);
    expect(await getDb().endUserSignInCode.count({ where: { organizationId: scenario.tenant.organization.id } })).toBe(
      2,
    );
  });
});

describe("throttling", () => {
  it("limits code requests per email with 429 and Retry-After, whatever the address", async () => {
    const scenario = await portalScenario();
    const attacker = clientAddress();
    let refused;
    for (let i = 0; i < 10 && !refused; i++) {
      const response = await requestCode(scenario.portal.slug, scenario.endUser.email, attacker);
      if (response.status === 429) refused = response;
      else expect(response.status).toBe(200);
    }
    expect(refused).toBeDefined();
    expect(errorCode(refused!)).toBe("rate_limited");
    const retryAfter = Number(refused!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(refused!.body.error.data.appError.retryAfterSeconds).toBe(retryAfter);
    expect(
      await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email, CODE_REQUESTS_PER_HOUR),
    ).toBeDefined();
    expect(await getDb().outboxMessage.count({ where: { to: scenario.endUser.email } })).toBe(CODE_REQUESTS_PER_HOUR);
    // From another address too: the cap is per email (sign-in-guessing.test.ts shows her back within the hour).
    expect(errorCode(await requestCode(scenario.portal.slug, scenario.endUser.email, clientAddress()))).toBe(
      "rate_limited",
    );
  });

  it("limits code requests per address across emails", async () => {
    const scenario = await portalScenario();
    const from = clientAddress();
    const statuses: number[] = [];
    const limit = CODE_REQUEST_LIMITS.perAddress;
    for (let i = 0; i < limit + 2; i++)
      statuses.push((await requestCode(scenario.portal.slug, `probe-${i}-${scenario.endUser.email}`, from)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
    expect(statuses.slice(limit)).toEqual([429, 429]);
  });

  it("limits code guesses per email from one address, and the owner still signs in from hers", async () => {
    const scenario = await portalScenario();
    const attacker = clientAddress();
    const statuses: number[] = [];
    // Each guess is wrong; the code is void after 5, the throttle refuses after 10 a minute.
    for (let i = 0; i < 11; i++)
      statuses.push((await verify(scenario.portal.slug, scenario.endUser.email, String(100000 + i), attacker)).status);
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
    expect(statuses[10]).toBe(429);
    const cookie = await signIn(scenario, scenario.endUser.email, clientAddress());
    expect(cookie).toMatch(/^atrium_portal_session=/);
  });
});

describe("sessions end with the end user", () => {
  it("revocation ends her open session at once, and provisioning her again does not revive it", async () => {
    const scenario = await portalScenario();
    const cookie = await signIn(scenario, scenario.endUser.email);
    expect((await portalCall("query", "me.get", { portal: scenario.portal.slug }, { cookie })).status).toBe(200);
    expect((await api("POST", `/end-users/${scenario.endUser.id}/revoke`, { key: scenario.key })).status).toBe(200);
    const after = await portalCall("query", "me.get", { portal: scenario.portal.slug }, { cookie });
    expect(after.status).toBe(401);
    expect(errorCode(after)).toBe("unauthorized");
    await api("POST", "/end-users", { key: scenario.key, body: { email: scenario.endUser.email } });
    expect((await portalCall("query", "me.get", { portal: scenario.portal.slug }, { cookie })).status).toBe(401);
  });

  it("revocation is checked on every request, even for a session left in the table", async () => {
    const scenario = await portalScenario();
    const cookie = await signIn(scenario, scenario.endUser.email);
    await getDb().endUser.update({ where: { id: scenario.endUser.id }, data: { revokedAt: new Date() } });
    expect((await portalCall("query", "apps.list", { portal: scenario.portal.slug }, { cookie })).status).toBe(401);
  });

  it("deletion ends her session at once", async () => {
    const scenario = await portalScenario();
    const cookie = await signIn(scenario, scenario.endUser.email);
    expect((await api("DELETE", `/end-users/${scenario.endUser.id}`, { key: scenario.key })).status).toBe(204);
    expect((await portalCall("query", "me.get", { portal: scenario.portal.slug }, { cookie })).status).toBe(401);
  });

  it("an expired session is refused", async () => {
    const scenario = await portalScenario();
    const cookie = await signIn(scenario, scenario.endUser.email);
    await getDb().endUserSession.updateMany({
      where: { endUserId: scenario.endUser.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await portalCall("query", "me.get", { portal: scenario.portal.slug }, { cookie })).status).toBe(401);
  });

  it("updates lastSeenAt on a visit at most once a minute", async () => {
    const scenario = await portalScenario();
    const cookie = await signIn(scenario, scenario.endUser.email);
    const db = getDb();
    const longAgo = new Date(Date.now() - 5 * 60_000);
    await db.endUser.update({ where: { id: scenario.endUser.id }, data: { lastSeenAt: longAgo } });
    await portalCall("query", "me.get", { portal: scenario.portal.slug }, { cookie });
    const seen = (await db.endUser.findUniqueOrThrow({ where: { id: scenario.endUser.id } })).lastSeenAt!;
    expect(seen.getTime()).toBeGreaterThan(longAgo.getTime());
    const recent = new Date(Date.now() - 10_000);
    await db.endUser.update({ where: { id: scenario.endUser.id }, data: { lastSeenAt: recent } });
    await portalCall("query", "me.get", { portal: scenario.portal.slug }, { cookie });
    expect((await db.endUser.findUniqueOrThrow({ where: { id: scenario.endUser.id } })).lastSeenAt!.getTime()).toBe(
      recent.getTime(),
    );
  });

  it("an end user with no usable app may sign in and sees an empty list", async () => {
    const scenario = await portalScenario();
    const plain = `plain-${scenario.endUser.email}`;
    await api("POST", "/end-users", { key: scenario.key, body: { email: plain } });
    const cookie = await signIn(scenario, plain);
    const apps = await portalCall("query", "apps.list", { portal: scenario.portal.slug }, { cookie });
    expect(apps.status).toBe(200);
    expect(apps.body.result.data.apps).toEqual([]);
  });
});
