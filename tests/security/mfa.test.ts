// Members' second factor (issue 48), through the console's real sign-in door: TOTP enrollment with
// codes otplib generates, the second step of a password sign-in (valid, expired and replayed
// codes, single-use recovery codes), its throttle, an organization's requireMfa walking a member
// through enrollment, and the owner's and the CLI's reset. Date is frozen in the middle of a
// 30-second step so that "this step", "the one before" and "the one after" are exact.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
});

import { generate } from "otplib";
import { COMMANDS, parseFlags } from "@/cli/commands";
import { getDb } from "@/server/db";
import { provideEnv } from "@/env";
import { openSecret } from "@/server/secret-box";
import { rotateSecrets } from "@/server/services/org/secrets";
import { createInvitation } from "@/server/services/identity/invitations";
import {
  addPerson,
  newOrganization,
  signInCookie,
  trpc,
  trpcErrorCode,
  uniqueSuffix,
  type ApiResponse,
  type Person,
  type Tenant,
} from "../helpers";

const STEP_MS = 30_000;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime((Math.floor(Date.now() / STEP_MS) + 1) * STEP_MS + 10_000);
});
afterEach(() => {
  vi.useRealTimers();
});

/** A code of the step `offset` steps from now (0 this step, -1 the one before…). */
function code(secret: string, offset = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + offset * 30 });
}

function headersFrom(address: string) {
  return { headers: { "x-forwarded-for": address } };
}

async function passwordStep(person: Person, address = "10.9.0.1"): Promise<ApiResponse> {
  return trpc("mutation", "auth.signIn", { email: person.email, password: person.password }, headersFrom(address));
}

async function challengeOf(person: Person, purpose: "verify" | "enroll", address = "10.9.0.1"): Promise<string> {
  const response = await passwordStep(person, address);
  expect(response.status).toBe(200);
  expect(response.headers.get("set-cookie")).toBeNull();
  expect(response.body.result.data.mfa.purpose).toBe(purpose);
  return response.body.result.data.mfa.challenge as string;
}

async function verify(challenge: string, typed: string, address = "10.9.0.1"): Promise<ApiResponse> {
  return trpc("mutation", "auth.verifyMfa", { challenge, code: typed }, headersFrom(address));
}

function cookieOf(response: ApiResponse): string {
  const setCookie = response.headers.get("set-cookie");
  expect(setCookie).toMatch(/^atrium_session=/);
  return setCookie!.split(";")[0]!;
}

function refused(response: ApiResponse, status: number, errorCode: string): void {
  expect({ status: response.status, code: trpcErrorCode(response) }).toEqual({ status, code: errorCode });
  expect(response.headers.get("set-cookie")).toBeNull();
}

/** Enrolls `person` from their account (signed in with the password alone); returns secret and recovery codes. */
async function enroll(person: Person): Promise<{ secret: string; recoveryCodes: string[] }> {
  const cookie = await signInCookie(person.email, person.password);
  const started = await trpc("mutation", "mfa.startEnrollment", undefined, { cookie });
  expect(started.status).toBe(200);
  const { secret } = started.body.result.data;
  // The step before now: the sign-ins of the tests then start with this step's code.
  const confirmed = await trpc("mutation", "mfa.confirmEnrollment", { code: await code(secret, -1) }, { cookie });
  expect(confirmed.status).toBe(200);
  return { secret, recoveryCodes: confirmed.body.result.data.recoveryCodes };
}

async function actions(tenant: Tenant, memberId: string): Promise<string[]> {
  const rows = await getDb().auditEvent.findMany({
    where: { organizationId: tenant.organization.id, targetId: memberId, action: { startsWith: "member." } },
    orderBy: { occurredAt: "asc" },
    select: { action: true, outcome: true },
  });
  return rows.map((row) => `${row.action}:${row.outcome}`);
}

describe("enrolling TOTP", () => {
  it("shows a QR code, seals the secret, confirms with a first code and shows ten recovery codes once", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const cookie = await signInCookie(person.email, person.password);

    const started = await trpc("mutation", "mfa.startEnrollment", undefined, { cookie });
    expect(started.status).toBe(200);
    const { secret, otpauthUri, qrCode } = started.body.result.data;
    expect(otpauthUri).toMatch(new RegExp(`^otpauth://totp/Atrium:${encodeURIComponent(person.email)}\\?`));
    expect(otpauthUri).toContain(`secret=${secret}`);
    expect(qrCode).toMatch(/^data:image\/png;base64,/);
    const stored = await getDb().memberTotp.findUniqueOrThrow({ where: { memberId: person.member.id } });
    expect(stored.secretCiphertext).not.toContain(secret);
    expect(openSecret(stored.secretCiphertext)).toBe(secret);
    expect(stored.confirmedAt).toBeNull();

    refused(await trpc("mutation", "mfa.confirmEnrollment", { code: "000000" }, { cookie }), 400, "invalid_code");
    expect((await trpc("query", "mfa.status", undefined, { cookie })).body.result.data.enrolled).toBe(false);

    const confirmed = await trpc("mutation", "mfa.confirmEnrollment", { code: await code(secret) }, { cookie });
    expect(confirmed.status).toBe(200);
    const recoveryCodes: string[] = confirmed.body.result.data.recoveryCodes;
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const recovery of recoveryCodes) expect(recovery).toMatch(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
    const hashes = await getDb().mfaRecoveryCode.findMany({ where: { memberId: person.member.id } });
    expect(hashes).toHaveLength(10);
    for (const row of hashes) expect(recoveryCodes.map((c) => c.replace(/-/g, ""))).not.toContain(row.codeHash);

    const status = (await trpc("query", "mfa.status", undefined, { cookie })).body.result.data;
    expect(status).toMatchObject({ enrolled: true, recoveryCodesLeft: 10, required: false });
    // Enrolled: a second enrollment is refused, the factor stays.
    refused(await trpc("mutation", "mfa.startEnrollment", undefined, { cookie }), 409, "conflict");
    expect(await actions(tenant, person.member.id)).toEqual([
      "member.add:success",
      "member.sign_in:success",
      "member.mfa_enroll:failure",
      "member.mfa_enroll:success",
    ]);
  });
});

describe("signing in with a second factor", () => {
  it("asks for a code after the password and signs in with a valid one", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const { secret } = await enroll(person);

    const challenge = await challengeOf(person, "verify");
    const done = await verify(challenge, await code(secret));
    expect(done.status).toBe(200);
    const me = await trpc("query", "auth.me", undefined, { cookie: cookieOf(done) });
    expect(me.body.result.data.member.email).toBe(person.email);
    // The challenge is used once.
    refused(await verify(challenge, await code(secret, 1)), 401, "unauthorized");
    const signIn = await getDb().auditEvent.findFirst({
      where: { organizationId: tenant.organization.id, targetId: person.member.id, action: "member.sign_in" },
      orderBy: { occurredAt: "desc" },
    });
    expect(signIn?.changes).toEqual({ mfa: [null, "totp"] });
  });

  it("refuses an expired code, and a code used already within its step", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const { secret } = await enroll(person);

    const challenge = await challengeOf(person, "verify");
    refused(await verify(challenge, await code(secret, -4)), 400, "invalid_code");
    const now = await code(secret);
    expect((await verify(challenge, now)).status).toBe(200);

    const again = await challengeOf(person, "verify");
    const replayed = await verify(again, now);
    refused(replayed, 400, "invalid_code");
    expect(replayed.body.error.message).toMatch(/used already/);
    // So is the step before, though its code would still be in the window.
    refused(await verify(again, await code(secret, -1)), 400, "invalid_code");
    expect((await verify(again, await code(secret, 1))).status).toBe(200);
    expect((await actions(tenant, person.member.id)).filter((a) => a.startsWith("member.mfa_verify"))).toEqual([
      "member.mfa_verify:failure",
      "member.mfa_verify:success",
      "member.mfa_verify:failure",
      "member.mfa_verify:failure",
      "member.mfa_verify:success",
    ]);
  });

  it("takes each recovery code once", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const { recoveryCodes } = await enroll(person);

    const first = await verify(await challengeOf(person, "verify"), recoveryCodes[3]!.toUpperCase());
    expect(first.status).toBe(200);
    const status = await trpc("query", "mfa.status", undefined, { cookie: cookieOf(first) });
    expect(status.body.result.data.recoveryCodesLeft).toBe(9);
    refused(await verify(await challengeOf(person, "verify"), recoveryCodes[3]!), 400, "invalid_code");
    expect((await verify(await challengeOf(person, "verify"), recoveryCodes[4]!)).status).toBe(200);
  });

  it("throttles wrong codes like passwords: five per challenge, then a growing wait even for the right code", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const { secret } = await enroll(person);
    const address = `10.8.${Math.floor(Math.random() * 250)}.1`;

    const first = await challengeOf(person, "verify", address);
    for (let i = 0; i < 5; i++) refused(await verify(first, "111111", address), 400, "invalid_code");
    refused(await verify(first, await code(secret), address), 401, "unauthorized");

    const second = await challengeOf(person, "verify", address);
    refused(await verify(second, "222222", address), 400, "invalid_code");
    // From another address too: the wait is the member's.
    const waiting = await verify(second, await code(secret), "10.7.0.1");
    refused(waiting, 429, "rate_limited");
    const wait = Number(waiting.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(2);

    vi.setSystemTime(Date.now() + wait * 1000);
    expect((await verify(second, await code(secret), address)).status).toBe(200);
  });

  it("does not ask members without a factor when the organization does not require one", async () => {
    const tenant = await newOrganization();
    const response = await passwordStep(tenant.owner);
    expect(response.status).toBe(200);
    expect(response.body.result.data).toEqual({ ok: true });
    cookieOf(response);
  });
});

describe("requireMfa", () => {
  it("is the owners' to set, and walks a member without a factor through enrollment at sign-in", async () => {
    const tenant = await newOrganization();
    const admin = await addPerson(tenant.operator, "admin");
    const person = await addPerson(tenant.operator, "member");
    const adminCookie = await signInCookie(admin.email, admin.password);
    refused(
      await trpc("mutation", "organization.update", { requireMfa: true }, { cookie: adminCookie }),
      403,
      "forbidden_role",
    );
    const ownerCookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const set = await trpc("mutation", "organization.update", { requireMfa: true }, { cookie: ownerCookie });
    expect(set.body.result.data.requireMfa).toBe(true);

    const challenge = await challengeOf(person, "enroll");
    // An enrollment challenge is no sign-in code's.
    refused(await verify(challenge, "123456"), 401, "unauthorized");
    const started = await trpc("mutation", "auth.startMfaEnrollment", { challenge });
    expect(started.status).toBe(200);
    const { secret, qrCode } = started.body.result.data;
    expect(qrCode).toMatch(/^data:image\/png;base64,/);
    refused(await trpc("mutation", "auth.finishMfaEnrollment", { challenge, code: "000000" }), 400, "invalid_code");
    const finished = await trpc("mutation", "auth.finishMfaEnrollment", { challenge, code: await code(secret) });
    expect(finished.status).toBe(200);
    expect(finished.body.result.data.recoveryCodes).toHaveLength(10);
    const me = await trpc("query", "auth.me", undefined, { cookie: cookieOf(finished) });
    expect(me.body.result.data.member.id).toBe(person.member.id);

    // From now on the member gives a code.
    const next = await challengeOf(person, "verify");
    expect((await verify(next, await code(secret, 1))).status).toBe(200);
    // And cannot turn it off while it is required.
    refused(await trpc("mutation", "mfa.remove", { code: "123456" }, { cookie: cookieOf(finished) }), 409, "conflict");
  });
});

/** The token of the newest link mailed to `email` (an invitation or a password reset). */
async function linkToken(tenant: Tenant, email: string): Promise<string> {
  const mail = await getDb().outboxMessage.findFirstOrThrow({
    where: { organizationId: tenant.organization.id, to: email },
    orderBy: { createdAt: "desc" },
  });
  const line = mail.text.split("\n").find((text) => text.includes("/invite/"))!;
  return decodeURIComponent(line.slice(line.indexOf("/invite/") + "/invite/".length).trim());
}

describe("links are no way around the second factor", () => {
  it("a password reset link of a member with a factor ends in the code step, not a session", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const { secret } = await enroll(person);
    const ownerCookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const sent = await trpc(
      "mutation",
      "members.resetPassword",
      { memberId: person.member.id },
      { cookie: ownerCookie },
    );
    expect(sent.status).toBe(200);

    const accepted = await trpc("mutation", "invitations.accept", {
      token: await linkToken(tenant, person.email),
      password: "a-new-long-passphrase",
    });
    expect(accepted.status).toBe(200);
    expect(accepted.headers.get("set-cookie")).toBeNull();
    const { challenge, purpose } = accepted.body.result.data.mfa;
    expect(purpose).toBe("verify");
    cookieOf(await verify(challenge, await code(secret)));
  });

  it("an invitation into an organization that requires a factor walks the newcomer through enrollment", async () => {
    const tenant = await newOrganization({ settings: { requireMfa: true } });
    // The owner has no factor either: their password sign-in asks them to enroll.
    await challengeOf(tenant.owner, "enroll");
    const email = `newcomer-${uniqueSuffix()}@example.test`;
    await createInvitation(getDb(), tenant.operator, { email, role: "member" });
    const accepted = await trpc("mutation", "invitations.accept", {
      token: await linkToken(tenant, email),
      password: "a-new-long-passphrase",
    });
    expect(accepted.headers.get("set-cookie")).toBeNull();
    expect(accepted.body.result.data.mfa.purpose).toBe("enroll");
  });
});

describe("resetting a member's factor", () => {
  it("is an owner's act, recorded; the member then signs in with the password alone", async () => {
    const tenant = await newOrganization();
    const admin = await addPerson(tenant.operator, "admin");
    const person = await addPerson(tenant.operator, "member");
    await enroll(person);

    const adminCookie = await signInCookie(admin.email, admin.password);
    refused(
      await trpc("mutation", "mfa.reset", { memberId: person.member.id }, { cookie: adminCookie }),
      403,
      "forbidden_role",
    );
    await challengeOf(person, "verify");

    const ownerCookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const reset = await trpc("mutation", "mfa.reset", { memberId: person.member.id }, { cookie: ownerCookie });
    expect(reset.body.result.data).toEqual({ member: { id: person.member.id, email: person.email }, removed: true });
    expect(await getDb().mfaRecoveryCode.count({ where: { memberId: person.member.id } })).toBe(0);
    // Another organization's owner cannot reach the member.
    const other = await newOrganization();
    const otherCookie = await signInCookie(other.owner.email, other.owner.password);
    refused(
      await trpc("mutation", "mfa.reset", { memberId: person.member.id }, { cookie: otherCookie }),
      404,
      "not_found",
    );

    const response = await passwordStep(person);
    expect(response.body.result.data).toEqual({ ok: true });
    expect(await actions(tenant, person.member.id)).toContain("member.mfa_reset:success");
  });

  it("is done by the admin CLI too", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "owner", `cli-${uniqueSuffix()}@example.test`);
    await enroll(person);
    const command = COMMANDS["member reset-mfa"]!;
    const printed = await command.run(getDb(), parseFlags(command.flags, ["--member", person.member.id]));
    expect(printed).toMatchObject({ removed: true });
    expect(await getDb().memberTotp.count({ where: { memberId: person.member.id } })).toBe(0);
    const event = await getDb().auditEvent.findFirst({
      where: { organizationId: tenant.organization.id, action: "member.mfa_reset" },
    });
    expect(event).toMatchObject({ door: "cli", actorType: "operator" });
  });
});

describe("the Security page", () => {
  it("shows owners who has a second factor, the sign-in settings and recent sign-ins; nobody else", async () => {
    const tenant = await newOrganization();
    const admin = await addPerson(tenant.operator, "admin");
    const person = await addPerson(tenant.operator, "member");
    const { secret } = await enroll(person);
    cookieOf(await verify(await challengeOf(person, "verify"), await code(secret)));
    refused(await verify(await challengeOf(person, "verify"), "999999"), 400, "invalid_code");

    const adminCookie = await signInCookie(admin.email, admin.password);
    refused(await trpc("query", "security.overview", undefined, { cookie: adminCookie }), 403, "forbidden_role");

    const ownerCookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const overview = (await trpc("query", "security.overview", undefined, { cookie: ownerCookie })).body.result.data;
    expect(overview).toMatchObject({
      requireMfa: false,
      passwordSignIn: true,
      conversationRetentionDays: null,
      sso: null,
    });
    const rows = Object.fromEntries(overview.members.map((m: { email: string }) => [m.email, m]));
    expect(rows[person.email]).toMatchObject({ role: "member", recoveryCodesLeft: 10 });
    expect(rows[person.email].mfaEnrolledAt).not.toBeNull();
    expect(rows[person.email].lastSignInAt).not.toBeNull();
    expect(rows[admin.email]).toMatchObject({ mfaEnrolledAt: null, recoveryCodesLeft: 0 });
    const mine = overview.recentSignIns.filter((e: { email: string }) => e.email === person.email);
    expect(mine.map((e: { method: string; outcome: string }) => `${e.method}:${e.outcome}`)).toEqual([
      "password + totp:success",
      "password:success",
    ]);
    // Another organization's members are not listed.
    expect(overview.members).toHaveLength(3);
  });
});

describe("the sealed secret", () => {
  it("is sealed again by a key rotation, and codes still sign in", async () => {
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "member");
    const { secret } = await enroll(person);
    const before = await getDb().memberTotp.findUniqueOrThrow({ where: { memberId: person.member.id } });
    const oldKey = process.env.ATRIUM_SECRET_KEY!;
    try {
      process.env.ATRIUM_SECRET_KEY_PREVIOUS = oldKey;
      provideEnv({ ATRIUM_SECRET_KEY: "rotated-secret-key-0123456789-abcdefghijklmnop" });
      await rotateSecrets(getDb());
      const after = await getDb().memberTotp.findUniqueOrThrow({ where: { memberId: person.member.id } });
      expect(after.secretCiphertext.split(":")[1]).not.toBe(before.secretCiphertext.split(":")[1]);
      delete process.env.ATRIUM_SECRET_KEY_PREVIOUS;
      provideEnv({});
      expect(openSecret(after.secretCiphertext)).toBe(secret);
      expect((await verify(await challengeOf(person, "verify"), await code(secret))).status).toBe(200);
    } finally {
      delete process.env.ATRIUM_SECRET_KEY_PREVIOUS;
      provideEnv({ ATRIUM_SECRET_KEY: oldKey });
    }
  });
});
