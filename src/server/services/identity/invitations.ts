// Invitations by email: an admin invites an address with a role; the mail (SMTP or the outbox)
// carries a single-use link, valid INVITATION_TTL_DAYS, where the invitee sets their own password
// and is signed in. A password reset is the same kind of link naming the member, valid a day. The link's token is `<invitation id>.<secret>`: the secret is stored as
// SHA-256 and compared in constant time, and accepting takes the invitation with one conditional
// UPDATE, so a double submit makes one member.
import { timingSafeEqual } from "node:crypto";
import { publicOrigin } from "@/env";
import type { Role } from "@/schemas/identity/auth";
import {
  INVITATION_TTL_DAYS,
  PASSWORD_RESET_TTL_HOURS,
  type Invitation,
  type InvitationPreview,
  type Member,
} from "@/schemas/identity/member";
import { may } from "@/schemas/permissions";
import type { Actor, MemberActor, RequestOrigin } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import { hashPassword } from "@/server/auth/passwords";
import { hashSecret, randomToken } from "@/server/auth/secrets";
import type { Db } from "@/server/db";
import type { Prisma } from "@/generated/prisma/client";
import { AppError, isUniqueViolation } from "@/server/errors";
import { recordEvent, SECRET_CHANGED } from "../org/events";
import { deliverMail } from "../org/mail";
import { capabilityToGrant, capabilityToReset, lockOutForReset, normalizeEmail, toMember } from "./members";
import { beforeCursor, NEWEST_FIRST, toPage } from "../support/pagination";
import { issueChallenge, secondStepFor, type MfaChallengeIssued } from "./mfa";
import { newSession, type NewSession } from "./sessions";

/** Open invitations an organization may have at once: each one sends mail to an outside address. */
export const MAX_OPEN_INVITATIONS = 200;

const DAY_MS = 86_400_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type InvitationRow = {
  id: string;
  memberId: string | null;
  organizationId: string;
  email: string;
  role: Role;
  invitedBy: string;
  tokenHash: string;
  createdAt: Date;
  sentAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
};

function toInvitation(row: InvitationRow, now = new Date()): Invitation {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    invitedBy: row.invitedBy,
    status: row.expiresAt > now ? "pending" : "expired",
    createdAt: row.createdAt.toISOString(),
    sentAt: row.sentAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
  };
}

function invitationTarget(row: { id: string; email: string }) {
  return { type: "invitation", id: row.id, label: row.email };
}

function actingRole(actor: Actor): Role {
  if (actor.kind === "operator") return "owner";
  return actor.member?.role ?? "viewer";
}

function assertMayInviteAs(actor: Actor, role: Role): void {
  if (!may(actingRole(actor), capabilityToGrant(role)))
    throw new AppError("forbidden_role", "Only an owner can invite owners.");
}

function invitedBy(actor: Actor): string {
  if (actor.kind === "operator") return "operator";
  return actor.member?.email ?? "an administrator";
}

/** A fresh secret: the link's token and what is stored of it. */
function newSecret(invitationId: string): { token: string; tokenHash: string } {
  const secret = randomToken();
  return { token: `${invitationId}.${secret}`, tokenHash: hashSecret(secret) };
}

export function invitationLink(token: string): string {
  return `${publicOrigin()}/invite/${encodeURIComponent(token)}`;
}

async function sendInvitationMail(db: Db, row: InvitationRow, token: string): Promise<void> {
  const organization = await db.organization.findUniqueOrThrow({
    where: { id: row.organizationId },
    select: { name: true },
  });
  await deliverMail(db, row.organizationId, {
    to: row.email,
    subject: `You are invited to ${organization.name} on Atrium`,
    text: [
      `${row.invitedBy} invited you to join ${organization.name} on Atrium as ${row.role === "admin" ? "an" : "a"} ${row.role}.`,
      "",
      "Open this link to choose your password and sign in:",
      invitationLink(token),
      "",
      `The link works once, until ${row.expiresAt.toUTCString()}. If you did not expect this invitation, ignore this mail.`,
    ].join("\n"),
    // The link makes its holder a member with this role: only those who may grant it read it.
    readableWith: capabilityToGrant(row.role),
  });
}

async function activeMemberWithEmail(db: Pick<Db, "member">, organizationId: string, email: string) {
  return db.member.findFirst({ where: { organizationId, removedAt: null, user: { email } }, select: { id: true } });
}

/**
 * Invites `email` with `role`. An active member with that email → 409 conflict, as does an open
 * invitation still valid (resend it instead); one past its expiry is replaced. The answer is the
 * same whether or not the address already has an account elsewhere.
 */
export const createInvitation = guarded(
  { may: "members" },
  async function createInvitation(db: Db, actor: Actor, input: { email: string; role: Role }): Promise<Invitation> {
    assertMayInviteAs(actor, input.role);
    const email = normalizeEmail(input.email);
    const { organizationId } = actor;
    const now = new Date();
    let token = "";
    const row = await db
      .$transaction(async (tx) => {
        if (await activeMemberWithEmail(tx, organizationId, email))
          throw new AppError("conflict", `${email} is already a member of this organization.`);
        const open = await tx.invitation.findFirst({
          where: { organizationId, email, memberId: null, acceptedAt: null, revokedAt: null },
        });
        if (open && open.expiresAt > now)
          throw new AppError("conflict", `${email} already has a pending invitation; resend it or revoke it.`);
        if (open) await tx.invitation.update({ where: { id: open.id, organizationId }, data: { revokedAt: now } });
        const openCount = await tx.invitation.count({
          where: { organizationId, memberId: null, acceptedAt: null, revokedAt: null },
        });
        if (openCount >= MAX_OPEN_INVITATIONS) {
          throw new AppError(
            "invalid_request",
            `This organization already has ${MAX_OPEN_INVITATIONS} open invitations; revoke some first.`,
          );
        }
        const id = crypto.randomUUID();
        const secret = newSecret(id);
        token = secret.token;
        const created = await tx.invitation.create({
          data: {
            id,
            organizationId,
            email,
            role: input.role,
            tokenHash: secret.tokenHash,
            invitedBy: invitedBy(actor),
            createdAt: now,
            sentAt: now,
            expiresAt: new Date(now.getTime() + INVITATION_TTL_DAYS * DAY_MS),
          },
        });
        await recordEvent(tx, actor, {
          action: "invitation.create",
          target: invitationTarget(created),
          changes: { role: [null, created.role] },
        });
        return created;
      })
      .catch((error: unknown) => {
        // Two admins inviting the same address at once: the open-email index lets one through.
        if (isUniqueViolation(error))
          throw new AppError("conflict", `${email} already has a pending invitation; resend it or revoke it.`);
        throw error;
      });
    await sendInvitationMail(db, row, token);
    return toInvitation(row, now);
  },
);

/** Open invitations (pending or expired), newest first. */
export const listInvitations = guarded(
  { may: "members" },
  async function listInvitations(
    db: Db,
    actor: Actor,
    input: { limit: number; cursor?: string },
  ): Promise<{
    invitations: Invitation[];
    nextCursor: string | null;
  }> {
    const rows = await db.invitation.findMany({
      where: {
        organizationId: actor.organizationId,
        memberId: null,
        acceptedAt: null,
        revokedAt: null,
        ...beforeCursor(input.cursor),
      },
      orderBy: NEWEST_FIRST,
      take: input.limit + 1,
    });
    const page = toPage(rows, input.limit);
    const now = new Date();
    return { invitations: page.items.map((row) => toInvitation(row, now)), nextCursor: page.nextCursor };
  },
);

async function findOpenInvitation(db: Db, actor: Actor, invitationId: string): Promise<InvitationRow> {
  const row = await db.invitation.findFirst({
    where: {
      id: invitationId,
      organizationId: actor.organizationId,
      memberId: null,
      acceptedAt: null,
      revokedAt: null,
    },
  });
  if (!row) throw new AppError("not_found", "No open invitation with that id in this organization.");
  return row;
}

/** Sends the invitation again with a new link, valid INVITATION_TTL_DAYS from now; the old link stops working. */
export const resendInvitation = guarded(
  { may: "members" },
  async function resendInvitation(db: Db, actor: Actor, input: { invitationId: string }): Promise<Invitation> {
    const open = await findOpenInvitation(db, actor, input.invitationId);
    assertMayInviteAs(actor, open.role);
    const now = new Date();
    const secret = newSecret(open.id);
    const row = await db.$transaction(async (tx) => {
      const { count } = await tx.invitation.updateMany({
        where: { id: open.id, organizationId: actor.organizationId, acceptedAt: null, revokedAt: null },
        data: {
          tokenHash: secret.tokenHash,
          sentAt: now,
          expiresAt: new Date(now.getTime() + INVITATION_TTL_DAYS * DAY_MS),
        },
      });
      if (count === 0) throw new AppError("not_found", "No open invitation with that id in this organization.");
      await recordEvent(tx, actor, { action: "invitation.resend", target: invitationTarget(open) });
      return tx.invitation.findUniqueOrThrow({ where: { id: open.id, organizationId: actor.organizationId } });
    });
    await sendInvitationMail(db, row, secret.token);
    return toInvitation(row, now);
  },
);

/** The invitation's link stops working at once. */
export const revokeInvitation = guarded(
  { may: "members" },
  async function revokeInvitation(db: Db, actor: Actor, input: { invitationId: string }): Promise<Invitation> {
    const open = await findOpenInvitation(db, actor, input.invitationId);
    const row = await db.$transaction(async (tx) => {
      const { count } = await tx.invitation.updateMany({
        where: { id: open.id, organizationId: actor.organizationId, acceptedAt: null, revokedAt: null },
        data: { revokedAt: new Date() },
      });
      if (count === 0) throw new AppError("not_found", "No open invitation with that id in this organization.");
      await recordEvent(tx, actor, { action: "invitation.revoke", target: invitationTarget(open) });
      return tx.invitation.findUniqueOrThrow({ where: { id: open.id, organizationId: actor.organizationId } });
    });
    return toInvitation(row);
  },
);

/**
 * An admin resets a member's password by mail: the member's password for this organization stops
 * working and their sessions here end at once (the rules of lockOutForReset in members.ts), and
 * they get a link, valid PASSWORD_RESET_TTL_HOURS, to choose a new one. Nobody sees a password.
 */
export const sendPasswordResetLink = guarded(
  { may: "members" },
  async function sendPasswordResetLink(db: Db, actor: Actor, input: { memberId: string }): Promise<Member> {
    const target = await lockOutForReset(db, actor, input.memberId, await hashPassword(randomToken()));
    const now = new Date();
    const id = crypto.randomUUID();
    const secret = newSecret(id);
    const row = await db.$transaction(async (tx) => {
      // An earlier reset link for this member stops working.
      await tx.invitation.updateMany({
        where: { organizationId: actor.organizationId, memberId: target.id, acceptedAt: null, revokedAt: null },
        data: { revokedAt: now },
      });
      return tx.invitation.create({
        data: {
          id,
          organizationId: actor.organizationId,
          memberId: target.id,
          email: target.user.email,
          role: target.role,
          tokenHash: secret.tokenHash,
          invitedBy: invitedBy(actor),
          createdAt: now,
          sentAt: now,
          expiresAt: new Date(now.getTime() + PASSWORD_RESET_TTL_HOURS * 3_600_000),
        },
      });
    });
    const organization = await db.organization.findUniqueOrThrow({
      where: { id: actor.organizationId },
      select: { name: true },
    });
    await deliverMail(db, actor.organizationId, {
      to: row.email,
      subject: `Choose a new password for ${organization.name} on Atrium`,
      text: [
        `${row.invitedBy} reset your password for ${organization.name} on Atrium; the old one no longer opens it.`,
        "",
        "Open this link to choose a new password and sign in:",
        invitationLink(secret.token),
        "",
        `The link works once, until ${row.expiresAt.toUTCString()}. If you did not expect this, tell your administrator.`,
      ].join("\n"),
      // The link sets the member's password: only those who may reset it read it.
      readableWith: capabilityToReset(target.role),
    });
    return toMember(target);
  },
);

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
export async function previewInvitation(db: Db, input: { token: string }): Promise<InvitationPreview> {
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
 * a password sign-in instead of a session (services/identity/mfa.ts).
 */
export async function acceptInvitation(
  db: Db,
  input: { token: string; password: string },
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
    // A former member comes back with a clean slate: their old personal keys stay revoked.
    if (former)
      await tx.apiKey.updateMany({ where: { memberId: former.id, revokedAt: null }, data: { revokedAt: new Date() } });
    const joined = former
      ? await tx.member.update({
          where: { id: former.id, organizationId: row.organizationId },
          data: { role: row.role, removedAt: null, createdAt: new Date(), passwordHash: memberPasswordHash },
          include: { user: { select: { email: true } } },
        })
      : await tx.member.create({
          data: {
            organizationId: row.organizationId,
            userId: user.id,
            role: row.role,
            passwordHash: memberPasswordHash,
          },
          include: { user: { select: { email: true } } },
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
