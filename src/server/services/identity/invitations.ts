// Invitations by email: an admin invites an address with a role; the mail (SMTP or the outbox)
// carries a single-use link, valid INVITATION_TTL_DAYS, where the invitee sets their own password
// and is signed in (invitation-acceptance.ts). A password reset is the same kind of link naming
// the member, valid a day. The link's token is `<invitation id>.<secret>`: the secret is stored as
// SHA-256.
import { publicOrigin } from "@/env";
import type { Role } from "@/schemas/identity/auth";
import {
  INVITATION_TTL_DAYS,
  PASSWORD_RESET_TTL_HOURS,
  type CreateInvitationInput,
  type Invitation,
  type InvitationIdInput,
  type ListInvitationsInput,
  type Member,
  type MemberIdInput,
} from "@/schemas/identity/member";
import { may } from "@/schemas/permissions";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import { hashPassword } from "@/server/auth/passwords";
import { hashSecret, randomToken } from "@/server/auth/secrets";
import type { Db } from "@/server/db";
import { AppError, isUniqueViolation } from "@/server/errors";
import { recordEvent } from "../org/events";
import { deliverMail } from "../org/mail";
import { capabilityToGrant, capabilityToReset, lockOutForReset, normalizeEmail, toMember } from "./members";
import { newestFirst } from "../support/pagination";
import { activeMemberWithEmail, invitationTarget, type InvitationRow } from "./invitations-shared";

/** Open invitations an organization may have at once: each one sends mail to an outside address. */
export const MAX_OPEN_INVITATIONS = 200;

const DAY_MS = 86_400_000;

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

/**
 * Invites `email` with `role`. An active member with that email → 409 conflict, as does an open
 * invitation still valid (resend it instead); one past its expiry is replaced. The answer is the
 * same whether or not the address already has an account elsewhere.
 */
export const createInvitation = guarded(
  { may: "members" },
  async function createInvitation(db: Db, actor: Actor, input: CreateInvitationInput): Promise<Invitation> {
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
    input: ListInvitationsInput,
  ): Promise<{
    invitations: Invitation[];
    nextCursor: string | null;
  }> {
    const page = await newestFirst(input, (before, window) =>
      db.invitation.findMany({
        where: {
          organizationId: actor.organizationId,
          memberId: null,
          acceptedAt: null,
          revokedAt: null,
          ...before,
        },
        ...window,
      }),
    );
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
  async function resendInvitation(db: Db, actor: Actor, input: InvitationIdInput): Promise<Invitation> {
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
  async function revokeInvitation(db: Db, actor: Actor, input: InvitationIdInput): Promise<Invitation> {
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
  async function sendPasswordResetLink(db: Db, actor: Actor, input: MemberIdInput): Promise<Member> {
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
