// The second step of a password sign-in (contract: "Data rights, retention and members' second
// factor"): a password sign-in of a member with a factor, or of a member without one in an
// organization that requires it, ends in a challenge instead of a session
// (services/identity/sessions.ts): a short-lived token (stored as SHA-256) that the second step
// presents with the code, or with which the member enrolls. Sign-ins through the organization's
// SSO are not asked. The factor itself is mfa.ts.
import type { MfaChallengeInput, MfaSignInInput } from "@/schemas/identity/mfa";
import type { RequestOrigin } from "@/server/auth/actor";
import { hashSecret, randomToken } from "@/server/auth/secrets";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { beginEnrollment, checkSecondFactor, finishEnrollment, type MemberRef, type TotpEnrollment } from "./mfa";

const CHALLENGE_TTL_MS = 10 * 60_000;
/** Wrong codes one challenge takes before the password must be given again. */
const WRONG_CODES_PER_CHALLENGE = 5;

export type ChallengePurpose = "verify" | "enroll";

export interface MfaChallengeIssued {
  challenge: string;
  purpose: ChallengePurpose;
  expiresAt: Date;
}

/** What a password sign-in of this member needs next, if anything: see services/identity/sessions.ts. */
export async function secondStepFor(
  db: Db,
  member: { id: string; organizationId: string },
): Promise<ChallengePurpose | null> {
  const [factor, organization] = await Promise.all([
    db.memberTotp.findFirst({
      where: { memberId: member.id, organizationId: member.organizationId, confirmedAt: { not: null } },
      select: { memberId: true },
    }),
    db.organization.findUniqueOrThrow({ where: { id: member.organizationId }, select: { requireMfa: true } }),
  ]);
  if (factor) return "verify";
  return organization.requireMfa ? "enroll" : null;
}

export async function issueChallenge(
  db: Db,
  member: { id: string; organizationId: string },
  purpose: ChallengePurpose,
): Promise<MfaChallengeIssued> {
  const challenge = randomToken();
  const expiresAt = new Date(Date.now() + CHALLENGE_TTL_MS);
  // Expired challenges of anyone go with each new one.
  await db.mfaChallenge.deleteMany({ where: { expiresAt: { lte: new Date() } } });
  await db.mfaChallenge.create({
    data: {
      tokenHash: hashSecret(challenge),
      organizationId: member.organizationId,
      memberId: member.id,
      purpose,
      expiresAt,
    },
  });
  return { challenge, purpose, expiresAt };
}

function challengeOver(): AppError {
  return new AppError("unauthorized", "This sign-in has expired. Enter your email and password again.");
}

/**
 * The challenge's member, after taking one of its tries (`claimTry`) in one conditional UPDATE, so
 * parallel guesses on one challenge cannot pass its limit.
 */
async function memberOfChallenge(
  db: Db,
  challenge: string,
  purpose: ChallengePurpose,
  claimTry: boolean,
): Promise<MemberRef> {
  const tokenHash = hashSecret(challenge);
  const live = { tokenHash, purpose, expiresAt: { gt: new Date() } };
  if (claimTry) {
    const { count } = await db.mfaChallenge.updateMany({
      // Unscoped: a challenge is found by its secret, before anyone is signed in.
      where: { ...live, wrongCodes: { lt: WRONG_CODES_PER_CHALLENGE } },
      data: { wrongCodes: { increment: 1 } },
    });
    if (count === 0) throw challengeOver();
  }
  // Unscoped: a challenge is found by its secret, before anyone is signed in.
  const row = await db.mfaChallenge.findFirst({
    where: live,
    include: { member: { include: { user: { select: { email: true } } } } },
  });
  if (!row || row.member.removedAt) throw challengeOver();
  return { id: row.member.id, organizationId: row.organizationId, role: row.member.role, email: row.member.user.email };
}

/** The challenge is used once: only the request that deletes it gets the session. */
async function spendChallenge(db: Db, challenge: string): Promise<void> {
  // Unscoped: a challenge is found by its secret, before anyone is signed in.
  const { count } = await db.mfaChallenge.deleteMany({ where: { tokenHash: hashSecret(challenge) } });
  if (count === 0) throw challengeOver();
}

/** The second step of a password sign-in: a code of the member's authenticator or a recovery code. */
export async function verifySignInCode(
  db: Db,
  input: MfaSignInInput,
  clientAddress: string,
  origin?: RequestOrigin,
): Promise<{ member: MemberRef; method: "totp" | "recovery_code" }> {
  const member = await memberOfChallenge(db, input.challenge, "verify", true);
  const method = await checkSecondFactor(db, member, input.code, clientAddress, origin);
  await spendChallenge(db, input.challenge);
  return { member, method };
}

/** A member the organization requires a second factor of, enrolling during sign-in: the QR code. */
export async function startSignInEnrollment(db: Db, input: MfaChallengeInput): Promise<TotpEnrollment> {
  return beginEnrollment(db, await memberOfChallenge(db, input.challenge, "enroll", false));
}

/** …and the first code, which enrolls them: their recovery codes, shown once; the caller starts the session. */
export async function finishSignInEnrollment(
  db: Db,
  input: MfaSignInInput,
  clientAddress: string,
  origin?: RequestOrigin,
): Promise<{ member: MemberRef; recoveryCodes: string[] }> {
  const member = await memberOfChallenge(db, input.challenge, "enroll", true);
  const recoveryCodes = await finishEnrollment(db, member, input.code, clientAddress, origin);
  await spendChallenge(db, input.challenge);
  return { member, recoveryCodes };
}
