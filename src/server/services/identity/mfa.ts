// Members' second factor (contract: "Data rights, retention and members' second factor"): a TOTP
// authenticator (RFC 6238, otplib) with ten single-use recovery codes. The shared secret is sealed
// like every stored credential (src/server/secret-box.ts); recovery codes are stored as SHA-256
// (80 random bits each) and each is spent by one conditional UPDATE. A code is accepted once: the
// step it belongs to is written with a conditional UPDATE, so the same code (or an older one)
// replayed within its 30 s, even in parallel, finds the row taken. Every code guessed, at sign-in
// or when enrolling, goes through the same kind of throttle as passwords (atomic counters in
// PostgreSQL, src/server/auth/sign-in-throttle.ts), per member. The step of a password sign-in
// that asks for it is mfa-sign-in.ts.
import { randomInt } from "node:crypto";
import { generateSecret, generateURI, verify } from "otplib";
import type { Actor, MemberActor, RequestOrigin } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import { hashSecret } from "@/server/auth/secrets";
import { createSignInThrottle } from "@/server/auth/sign-in-throttle";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { openSecret, sealSecret } from "@/server/secret-box";
import type { Role } from "@/schemas/identity/auth";
import type { MemberIdInput } from "@/schemas/identity/member";
import type { MfaCodeInput } from "@/schemas/identity/mfa";
import { recordEvent, type EventInput } from "../org/events";

export const RECOVERY_CODE_COUNT = 10;

/** One step either side of now, for a phone whose clock is a little off. */
const TOLERANCE_SECONDS = 30;
const ISSUER = "Atrium";
const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** Wrong codes a minute, and the member's delay, as for passwords (see sign-in-throttle.ts). */
const codeThrottle = createSignInThrottle("mfa", {
  perAccountAndAddress: 10,
  perAddress: 30,
  perAccount: 50,
  accountDelay: { free: 5, maxSeconds: 60, quietSeconds: 15 * 60 },
});

export interface TotpEnrollment {
  /** Base32, for typing into an authenticator that cannot scan. */
  secret: string;
  otpauthUri: string;
  /** The otpauth URI as a PNG data URL. */
  qrCode: string;
}

export interface MfaStatus {
  enrolled: boolean;
  enrolledAt: string | null;
  recoveryCodesLeft: number;
  /** The organization requires a second factor of every member who signs in with a password. */
  required: boolean;
}

export interface MemberRef {
  id: string;
  organizationId: string;
  role: Role;
  email: string;
}

function memberActor(member: MemberRef, origin: RequestOrigin | undefined): MemberActor {
  return {
    kind: "member",
    organizationId: member.organizationId,
    member: { id: member.id, role: member.role, email: member.email },
    origin,
  };
}

function mfaEvent(action: string, member: { id: string; email: string }, extra: Partial<EventInput> = {}): EventInput {
  return { action, target: { type: "member", id: member.id, label: member.email }, ...extra };
}

function invalidCode(message = "That code is not right. Check your authenticator and try again."): AppError {
  return new AppError("invalid_code", message);
}

/** A recovery code as shown: four groups of four base32 letters and digits. */
function newRecoveryCode(): string {
  const chars = Array.from({ length: 16 }, () => BASE32[randomInt(32)]).join("");
  return chars.match(/.{4}/g)!.join("-");
}

function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, "");
}

async function totpStepOf(secret: string, code: string): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const result = await verify({ secret, token: code, epochTolerance: TOLERANCE_SECONDS });
  // The TOTP strategy's answer names the step it matched.
  return result.valid && "timeStep" in result ? result.timeStep : null;
}

/** Ten fresh recovery codes replace the member's old ones; returns them as shown, once. */
async function replaceRecoveryCodes(
  tx: Pick<Db, "mfaRecoveryCode">,
  member: { id: string; organizationId: string },
): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await tx.mfaRecoveryCode.deleteMany({ where: { memberId: member.id, organizationId: member.organizationId } });
  await tx.mfaRecoveryCode.createMany({
    data: codes.map((code) => ({
      organizationId: member.organizationId,
      memberId: member.id,
      codeHash: hashSecret(normalizeRecoveryCode(code)),
    })),
  });
  return codes;
}

/**
 * Checks a code of the member's confirmed factor: a TOTP code of a step after the last one used,
 * or an unused recovery code (spent here). Throttled per member; a wrong code is recorded.
 */
export async function checkSecondFactor(
  db: Db,
  member: MemberRef,
  code: string,
  clientAddress: string,
  origin: RequestOrigin | undefined,
): Promise<"totp" | "recovery_code"> {
  const attempt = await codeThrottle.admit(db, member.id, clientAddress);
  const factor = await db.memberTotp.findFirst({
    where: { memberId: member.id, organizationId: member.organizationId, confirmedAt: { not: null } },
  });
  if (!factor) throw new AppError("conflict", "You have no second factor to check.");
  const typed = code.replace(/\s/g, "");
  let method: "totp" | "recovery_code" | null = null;
  let refusal = invalidCode();
  const step = await totpStepOf(openSecret(factor.secretCiphertext), typed);
  if (step !== null) {
    const { count } = await db.memberTotp.updateMany({
      where: {
        memberId: member.id,
        organizationId: member.organizationId,
        OR: [{ lastUsedStep: null }, { lastUsedStep: { lt: step } }],
      },
      data: { lastUsedStep: step },
    });
    if (count === 1) method = "totp";
    else refusal = invalidCode("That code was used already. Wait for the next one in your authenticator.");
  } else if (!/^\d{6}$/.test(typed)) {
    const { count } = await db.mfaRecoveryCode.updateMany({
      where: {
        memberId: member.id,
        organizationId: member.organizationId,
        codeHash: hashSecret(normalizeRecoveryCode(typed)),
        usedAt: null,
      },
      data: { usedAt: new Date() },
    });
    if (count === 1) method = "recovery_code";
  }
  const actor = memberActor(member, origin);
  if (!method) {
    await recordEvent(db, actor, mfaEvent("member.mfa_verify", member, { outcome: "failure" }));
    throw refusal;
  }
  await attempt.succeeded();
  await recordEvent(db, actor, mfaEvent("member.mfa_verify", member, { changes: { method: [null, method] } }));
  return method;
}

/** Starts (or restarts) a pending enrollment: a new secret, sealed; refused once one is confirmed. */
export async function beginEnrollment(db: Db, member: MemberRef): Promise<TotpEnrollment> {
  const secret = generateSecret();
  const secretCiphertext = sealSecret(secret, "secret");
  const where = { memberId: member.id, organizationId: member.organizationId };
  const existing = await db.memberTotp.findFirst({ where, select: { confirmedAt: true } });
  const alreadyEnrolled = () =>
    new AppError("conflict", "You have a second factor already; an owner can reset it if you lost it.");
  if (existing?.confirmedAt) throw alreadyEnrolled();
  if (existing) {
    const { count } = await db.memberTotp.updateMany({
      where: { ...where, confirmedAt: null },
      data: { secretCiphertext, lastUsedStep: null },
    });
    if (count === 0) throw alreadyEnrolled();
  } else {
    await db.memberTotp.create({ data: { ...where, secretCiphertext } }).catch((error: unknown) => {
      if ((error as { code?: string }).code === "P2002") throw alreadyEnrolled();
      throw error;
    });
  }
  const otpauthUri = generateURI({ issuer: ISSUER, label: member.email, secret });
  // Loaded here: the QR encoder and its PNG writer are only needed while someone enrols.
  const { default: QRCode } = await import("qrcode");
  return { secret, otpauthUri, qrCode: await QRCode.toDataURL(otpauthUri, { margin: 1, width: 240 }) };
}

/** Confirms the pending enrollment with a first code: the factor is on and ten recovery codes are made. */
export async function finishEnrollment(
  db: Db,
  member: MemberRef,
  code: string,
  clientAddress: string,
  origin: RequestOrigin | undefined,
): Promise<string[]> {
  const attempt = await codeThrottle.admit(db, member.id, clientAddress);
  const where = { memberId: member.id, organizationId: member.organizationId };
  const pending = await db.memberTotp.findFirst({ where: { ...where, confirmedAt: null } });
  if (!pending) throw new AppError("conflict", "Start the enrollment first: scan a new QR code.");
  const step = await totpStepOf(openSecret(pending.secretCiphertext), code.replace(/\s/g, ""));
  const actor = memberActor(member, origin);
  if (step === null) {
    await recordEvent(db, actor, mfaEvent("member.mfa_enroll", member, { outcome: "failure" }));
    throw invalidCode();
  }
  await attempt.succeeded();
  return db.$transaction(async (tx) => {
    const { count } = await tx.memberTotp.updateMany({
      where: { ...where, confirmedAt: null, secretCiphertext: pending.secretCiphertext },
      data: { confirmedAt: new Date(), lastUsedStep: step },
    });
    if (count === 0) throw new AppError("conflict", "This enrollment changed meanwhile; scan the newest QR code.");
    const codes = await replaceRecoveryCodes(tx, member);
    await recordEvent(tx, actor, mfaEvent("member.mfa_enroll", member, { changes: { totp: [null, "enrolled"] } }));
    return codes;
  });
}

// ---------------------------------------------------------------------------------------------
// A signed-in member's own factor, and an owner's reset

function selfOf(actor: MemberActor): MemberRef {
  return {
    id: actor.member.id,
    organizationId: actor.organizationId,
    role: actor.member.role,
    email: actor.member.email,
  };
}

export const getMfaStatus = guarded(
  { may: "read" },
  async function getMfaStatus(db: Db, actor: MemberActor): Promise<MfaStatus> {
    const where = { memberId: actor.member.id, organizationId: actor.organizationId };
    const [factor, left, organization] = await Promise.all([
      db.memberTotp.findFirst({ where: { ...where, confirmedAt: { not: null } }, select: { confirmedAt: true } }),
      db.mfaRecoveryCode.count({ where: { ...where, usedAt: null } }),
      db.organization.findUniqueOrThrow({ where: { id: actor.organizationId }, select: { requireMfa: true } }),
    ]);
    return {
      enrolled: Boolean(factor),
      enrolledAt: factor?.confirmedAt?.toISOString() ?? null,
      recoveryCodesLeft: factor ? left : 0,
      required: organization.requireMfa,
    };
  },
);

export const startMfaEnrollment = guarded(
  { may: "read" },
  async function startMfaEnrollment(db: Db, actor: MemberActor): Promise<TotpEnrollment> {
    return beginEnrollment(db, selfOf(actor));
  },
);

export const confirmMfaEnrollment = guarded(
  { may: "read" },
  async function confirmMfaEnrollment(
    db: Db,
    actor: MemberActor,
    input: MfaCodeInput,
    options: { clientAddress: string },
  ): Promise<{ recoveryCodes: string[] }> {
    return {
      recoveryCodes: await finishEnrollment(db, selfOf(actor), input.code, options.clientAddress, actor.origin),
    };
  },
);

/** A member turns their own factor off with a current code; not while the organization requires one. */
export const removeOwnMfa = guarded(
  { may: "read" },
  async function removeOwnMfa(
    db: Db,
    actor: MemberActor,
    input: MfaCodeInput,
    options: { clientAddress: string },
  ): Promise<void> {
    const organization = await db.organization.findUniqueOrThrow({
      where: { id: actor.organizationId },
      select: { requireMfa: true },
    });
    if (organization.requireMfa)
      throw new AppError("conflict", "Your organization requires a second factor; an owner can reset yours.");
    const member = selfOf(actor);
    await checkSecondFactor(db, member, input.code, options.clientAddress, actor.origin);
    await db.$transaction([
      ...removeFactor(db, member),
      recordEvent(db, actor, mfaEvent("member.mfa_remove", member, { changes: { totp: ["enrolled", null] } })),
    ]);
  },
);

function removeFactor(db: Db, member: { id: string; organizationId: string }) {
  const where = { memberId: member.id, organizationId: member.organizationId };
  return [
    db.memberTotp.deleteMany({ where }),
    db.mfaRecoveryCode.deleteMany({ where }),
    db.mfaChallenge.deleteMany({ where }),
  ];
}

/**
 * An owner (or the operator, admin CLI) removes a member's second factor, for a lost phone: the
 * member signs in with their password alone, or enrolls again if the organization requires it.
 */
export const resetMemberMfa = guarded(
  { may: "owners" },
  async function resetMemberMfa(
    db: Db,
    actor: Actor,
    input: MemberIdInput,
  ): Promise<{ member: { id: string; email: string }; removed: boolean }> {
    const target = await db.member.findFirst({
      where: { id: input.memberId, organizationId: actor.organizationId, removedAt: null },
      select: { id: true, organizationId: true, user: { select: { email: true } } },
    });
    if (!target) throw new AppError("not_found", "No member with that id in this organization.");
    const member = { id: target.id, email: target.user.email };
    const had = await db.memberTotp.findFirst({
      where: { memberId: target.id, organizationId: actor.organizationId },
      select: { confirmedAt: true },
    });
    await db.$transaction([
      ...removeFactor(db, target),
      recordEvent(
        db,
        actor,
        mfaEvent("member.mfa_reset", member, { changes: { totp: [had?.confirmedAt ? "enrolled" : null, null] } }),
      ),
    ]);
    return { member, removed: Boolean(had?.confirmedAt) };
  },
);
