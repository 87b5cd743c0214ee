// Console sign-in: email and password, an opaque session token in an httpOnly cookie,
// stored hashed with an expiry.
import { env } from "@/env";
import type { MemberActor, RequestOrigin } from "@/server/auth/actor";
import { hashPassword, verifyPassword } from "@/server/auth/passwords";
import { createSignInThrottle } from "@/server/auth/sign-in-throttle";
import { hashSecret, randomToken } from "@/server/auth/secrets";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { recordEvent, type EventInput } from "../org/events";
import { normalizeEmail } from "./members";
import {
  finishSignInEnrollment,
  issueChallenge,
  secondStepFor,
  verifySignInCode,
  type MfaChallengeIssued,
} from "./mfa-sign-in";
import type { Role, SignInInput } from "@/schemas/identity/auth";
import type { MfaSignInInput } from "@/schemas/identity/mfa";
import { lookupEpochSql } from "@/server/lookup-epoch";

/** Failed sign-ins a minute, and the account's delay: see sign-in-throttle.ts for what each holds off. */
const signInThrottle = createSignInThrottle("sign-in", {
  perAccountAndAddress: 10,
  perAddress: 30,
  perAccount: 50,
  accountDelay: { free: 10, maxSeconds: 60, quietSeconds: 15 * 60 },
});
let dummyHash: Promise<string> | undefined;

export interface NewSession {
  token: string;
  expiresAt: Date;
}

/**
 * A session, or, when the member has a second factor or must enroll one, the challenge the next
 * step presents (services/identity/mfa-sign-in.ts) and no session yet.
 */
export type SignInResult = { session: NewSession } | { mfa: MfaChallengeIssued };

/** `clientAddress` is where the attempt came from (src/server/auth/client-address.ts). */
export async function signIn(
  db: Db,
  input: SignInInput,
  clientAddress: string,
  origin?: RequestOrigin,
): Promise<SignInResult> {
  const email = normalizeEmail(input.email);
  const attempt = await signInThrottle.admit(db, email, clientAddress);
  const user = await db.user.findUnique({
    where: { email },
    include: { memberships: { where: { removedAt: null }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] } },
  });
  // Verify against a throwaway hash for unknown emails so timing does not reveal who has an account.
  dummyHash ??= hashPassword(randomToken());
  const memberships = user?.memberships ?? [];
  // The person's own password opens their first organization, unless that organization holds a
  // password of its own for them (members.passwordHash: chosen through an invitation or after a
  // reset), which then alone opens it, as it opens any other organization.
  const ownPassword = await verifyPassword(user?.passwordHash ?? (await dummyHash), input.password);
  const first = memberships[0];
  const membership =
    ownPassword && first && !first.passwordHash ? first : await membershipOpenedBy(memberships, input.password);
  if (!membership) {
    // A failed sign-in of a known person is logged in each of their organizations; an unknown email belongs to none.
    for (const member of memberships)
      await recordEvent(db, signInActor(member, email, origin), { ...signInEvent(member, email), outcome: "failure" });
    throw new AppError("unauthorized", "Wrong email or password.");
  }
  const organization = await db.organization.findUniqueOrThrow({
    where: { id: membership.organizationId },
    select: { passwordSignIn: true },
  });
  // Only after the password matched, so this answer tells nothing to someone guessing.
  if (!organization.passwordSignIn)
    throw new AppError(
      "unauthorized",
      "Your organization signs in with single sign-on: use “Continue with single sign-on”.",
    );
  await attempt.succeeded();

  const secondStep = await secondStepFor(db, membership);
  if (secondStep) return { mfa: await issueChallenge(db, membership, secondStep) };
  return { session: await startSession(db, signInActor(membership, email, origin)) };
}

/** The second step of a password sign-in: the challenge and a code (authenticator or recovery) give the session. */
export async function signInWithCode(
  db: Db,
  input: MfaSignInInput,
  clientAddress: string,
  origin?: RequestOrigin,
): Promise<NewSession> {
  const { member, method } = await verifySignInCode(db, input, clientAddress, origin);
  return startSession(db, signInActor(member, member.email, origin), { mfa: [null, method] });
}

/** The second step when the organization requires a factor the member lacks: enrolled, then signed in. */
export async function signInEnrolling(
  db: Db,
  input: MfaSignInInput,
  clientAddress: string,
  origin?: RequestOrigin,
): Promise<{ session: NewSession; recoveryCodes: string[] }> {
  const { member, recoveryCodes } = await finishSignInEnrollment(db, input, clientAddress, origin);
  const session = await startSession(db, signInActor(member, member.email, origin), { mfa: [null, "totp"] });
  return { session, recoveryCodes };
}

/** A console session for a member whose sign-in is complete, recorded as member.sign_in. */
async function startSession(db: Db, actor: MemberActor, changes?: EventInput["changes"]): Promise<NewSession> {
  const session = newSession(actor.member.id);
  await db.$transaction([
    db.session.create({ data: session.row }),
    recordEvent(db, actor, { ...signInEvent(actor.member, actor.member.email), changes }),
  ]);
  return { token: session.token, expiresAt: session.expiresAt };
}

/** A new console session for a member: the token for the cookie, and the row to store (the token hashed). */
export function newSession(
  memberId: string,
): NewSession & { row: { tokenHash: string; memberId: string; expiresAt: Date } } {
  const token = randomToken();
  const expiresAt = new Date(Date.now() + env().SESSION_TTL_HOURS * 3_600_000);
  return { token, expiresAt, row: { tokenHash: hashSecret(token), memberId, expiresAt } };
}

function signInActor(
  member: { id: string; organizationId: string; role: Role },
  email: string,
  origin: RequestOrigin | undefined,
): MemberActor {
  return {
    kind: "member",
    organizationId: member.organizationId,
    member: { id: member.id, role: member.role, email },
    origin,
  };
}

function signInEvent(member: { id: string }, email: string): EventInput {
  return { action: "member.sign_in", target: { type: "member", id: member.id, label: email } };
}

async function membershipOpenedBy<T extends { passwordHash: string | null }>(
  memberships: T[],
  password: string,
): Promise<T | undefined> {
  for (const membership of memberships) {
    if (membership.passwordHash && (await verifyPassword(membership.passwordHash, password))) return membership;
  }
  return undefined;
}

/**
 * A console session's member in one prepared statement (every console request starts with it,
 * where Prisma's include took three), with the organization's lookup epoch: what the process keeps
 * at that epoch (an app as published, runtime/load.ts) serves the member's runs too.
 */
const MEMBER_SESSION_SQL = `
  select m.id, m.organization_id, m.role, m.removed_at, u.email, s.expires_at,
    ${lookupEpochSql("m.organization_id")} as epoch
  from sessions s join members m on m.id = s.member_id join users u on u.id = m.user_id
  where s.token_hash = $1`;

export async function actorForSession(
  db: Db,
  token: string | undefined,
  origin?: RequestOrigin,
): Promise<MemberActor | null> {
  if (!token) return null;
  const { rows } = await db.pool.query<{
    id: string;
    organization_id: string;
    role: Role;
    removed_at: Date | null;
    email: string;
    expires_at: Date;
    epoch: string;
  }>({ name: "atrium_member_session", text: MEMBER_SESSION_SQL, values: [hashSecret(token)] });
  const session = rows[0];
  if (!session || session.expires_at <= new Date() || session.removed_at) return null;
  return {
    kind: "member",
    organizationId: session.organization_id,
    member: { id: session.id, role: session.role, email: session.email },
    origin,
    lookupEpoch: session.epoch,
  };
}

export async function signOut(db: Db, token: string | undefined): Promise<void> {
  if (token) await db.session.deleteMany({ where: { tokenHash: hashSecret(token) } });
}
