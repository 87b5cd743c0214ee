// Taking an invitation's link (invitations.ts sends it): the secret is compared in constant
// time, and accepting takes the invitation with one conditional UPDATE, so a double submit makes
// one member.
import { timingSafeEqual } from "node:crypto";
import type { AcceptInvitationInput, InvitationPreview, InvitationTokenInput, Member } from "@/schemas/identity/member";
import type { MemberActor, RequestOrigin } from "@/server/auth/actor";
import { hashPassword } from "@/server/auth/passwords";
import { hashSecret, randomToken } from "@/server/auth/secrets";
import type { Db } from "@/server/db";
import type { Prisma } from "@/generated/prisma/client";
import { AppError } from "@/server/errors";
import { recordEvent, SECRET_CHANGED } from "../org/events";
import { admitMember, toMember } from "./members";
import { issueChallenge, secondStepFor, type MfaChallengeIssued } from "./mfa-sign-in";
import { newSession, type NewSession } from "./sessions";
import { activeMemberWithEmail, invitationTarget, type InvitationRow } from "./invitations-shared";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const INVALID_LINK = "This link is not valid; ask for a new one.";

/** The invitation a token names, when its secret matches; the secret is compared in constant time. */
async function invitationOfToken(db: Db, token: string): Promise<InvitationRow> {
  const dot = token.indexOf(".");
  const id = token.slice(0, dot);
  const secret = token.slice(dot + 1);
  if (dot < 0 || !UUID.test(id) || !secret) throw new AppError("not_found", INVALID_LINK);
  // Unscoped: the link is its own credential; its row names the organization.
  const row = await db.invitation.findUnique({ where: { id } });
  const stored = Buffer.from(row?.tokenHash ?? hashSecret(randomToken()), "hex");
  const sent = Buffer.from(hashSecret(secret), "hex");
  if (!row || !timingSafeEqual(stored, sent)) throw new AppError("not_found", INVALID_LINK);
  return row;
}

function unavailable(row: InvitationRow, now: Date): AppError | null {
  if (row.acceptedAt)
    return new AppError("invitation_unavailable", "This link was already used. Sign in with the password you chose.", {
      reason: "used",
    });
  if (row.revokedAt)
    return new AppError("invitation_unavailable", "This link was withdrawn; ask for a new one.", { reason: "revoked" });
  if (row.expiresAt <= now)
    return new AppError("invitation_unavailable", "This link has expired; ask for a new one.", { reason: "expired" });
  return null;
}

/** What the invitation page shows before the invitee chooses a password. Anyone holding the link may read it. */
export async function previewInvitation(db: Db, input: InvitationTokenInput): Promise<InvitationPreview> {
  const row = await invitationOfToken(db, input.token);
  const refusal = unavailable(row, new Date());
  if (refusal) throw refusal;
  const organization = await db.organization.findUniqueOrThrow({
    where: { id: row.organizationId },
    select: { name: true },
  });
  return {
    organizationName: organization.name,
    email: row.email,
    role: row.role,
    purpose: row.memberId ? "reset" : "join",
    expiresAt: row.expiresAt.toISOString(),
  };
}

/** A reset link taken: the member's password for this organization becomes the chosen one. */
async function completeReset(
  tx: Prisma.TransactionClient,
  row: InvitationRow,
  memberId: string,
  passwordHash: string,
  origin: RequestOrigin | undefined,
) {
  const member = await tx.member.findFirst({
    where: { id: memberId, organizationId: row.organizationId, removedAt: null },
    include: { user: { select: { email: true } } },
  });
  if (!member)
    throw new AppError("invitation_unavailable", "This link's member has left the organization.", {
      reason: "revoked",
    });
  await tx.member.update({ where: { id: member.id, organizationId: row.organizationId }, data: { passwordHash } });
  await tx.session.deleteMany({ where: { memberId: member.id } });
  const self: MemberActor = {
    kind: "member",
    organizationId: row.organizationId,
    member: { id: member.id, role: member.role, email: member.user.email },
    origin,
  };
  await recordEvent(tx, self, {
    action: "member.password_change",
    target: { type: "member", id: member.id, label: member.user.email },
    changes: { password: [SECRET_CHANGED, SECRET_CHANGED] },
  });
  return member;
}

/**
 * The invitee sets their password and becomes a member, signed in. For someone who already has
 * an account (in another organization) the password opens this organization only, as for any
 * organization-given password (members.passwordHash); their own password is left alone. A link is
 * no way around the second factor: a member who has one (or must enroll one) gets the challenge of
 * a password sign-in instead of a session (services/identity/mfa-sign-in.ts).
 */
export async function acceptInvitation(
  db: Db,
  input: AcceptInvitationInput,
  origin?: RequestOrigin,
): Promise<{ member: Member } & ({ session: NewSession } | { mfa: MfaChallengeIssued })> {
  const row = await invitationOfToken(db, input.token);
  const early = unavailable(row, new Date());
  if (early) throw early;
  const passwordHash = await hashPassword(input.password);

  const member = await db.$transaction(async (tx) => {
    // Taken atomically: of two submits of the same link, only one finds it open.
    const taken = await tx.invitation.updateMany({
      where: {
        id: row.id,
        organizationId: row.organizationId,
        tokenHash: row.tokenHash,
        acceptedAt: null,
        revokedAt: null,
        expiresAt: { gt: new Date() },
      },
      data: { acceptedAt: new Date() },
    });
    if (taken.count === 0) {
      const now = await tx.invitation.findUniqueOrThrow({ where: { id: row.id, organizationId: row.organizationId } });
      throw unavailable(now, new Date()) ?? new AppError("not_found", INVALID_LINK);
    }
    if (row.memberId) return completeReset(tx, row, row.memberId, passwordHash, origin);
    if (await activeMemberWithEmail(tx, row.organizationId, row.email))
      throw new AppError("conflict", `${row.email} is already a member of this organization.`);
    const existingUser = await tx.user.findUnique({ where: { email: row.email } });
    const ownPassword = !existingUser?.passwordHash;
    const user = existingUser
      ? ownPassword
        ? await tx.user.update({ where: { id: existingUser.id }, data: { passwordHash } })
        : existingUser
      : await tx.user.create({ data: { email: row.email, passwordHash } });
    const memberPasswordHash = ownPassword ? null : passwordHash;
    const former = await tx.member.findUnique({
      where: { organizationId_userId: { organizationId: row.organizationId, userId: user.id } },
    });
    const joined = await admitMember(tx, row.organizationId, former, {
      userId: user.id,
      role: row.role,
      passwordHash: memberPasswordHash,
    });
    const invitee: MemberActor = {
      kind: "member",
      organizationId: row.organizationId,
      member: { id: joined.id, role: joined.role, email: row.email },
      origin,
    };
    await recordEvent(tx, invitee, {
      action: "invitation.accept",
      target: invitationTarget(row),
      changes: { role: [null, joined.role] },
    });
    return joined;
  });
  const secondStep = await secondStepFor(db, member);
  if (secondStep) return { member: toMember(member), mfa: await issueChallenge(db, member, secondStep) };
  const session = newSession(member.id);
  await db.session.create({ data: session.row });
  return { member: toMember(member), session: { token: session.token, expiresAt: session.expiresAt } };
}
