import { randomBytes } from "node:crypto";
import type { Role } from "@/schemas/identity/auth";
import type { ChangePasswordInput, ChangeRoleInput, Member, MemberIdInput } from "@/schemas/identity/member";
import { may, type Capability } from "@/schemas/permissions";
import type { Actor, MemberActor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import { hashPassword, verifyPassword } from "@/server/auth/passwords";
import { hashSecret } from "@/server/auth/secrets";
import { createSignInThrottle } from "@/server/auth/sign-in-throttle";
import type { Db } from "@/server/db";
import type { Prisma } from "@/generated/prisma/client";
import { AppError, invalidRequest, sessionEnded } from "@/server/errors";
import { changesBetween, recordEvent, SECRET_CHANGED } from "../org/events";

type MemberRow = {
  id: string;
  organizationId: string;
  role: Role;
  createdAt: Date;
  removedAt: Date | null;
  user: { email: string };
};

export function toMember(row: MemberRow): Member {
  return {
    id: row.id,
    organizationId: row.organizationId,
    email: row.user.email,
    role: row.role,
    createdAt: row.createdAt.toISOString(),
    removedAt: row.removedAt?.toISOString() ?? null,
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A readable one-time password for a new member to sign in with. */
function temporaryPassword(): string {
  return randomBytes(12).toString("base64url");
}

function actingRole(actor: Actor): Role {
  if (actor.kind === "operator") return "owner";
  if (actor.kind === "member") return actor.member.role;
  return actor.member?.role ?? "viewer";
}

/** What a member must be allowed to do to give someone `role`: only owners make owners. */
export function capabilityToGrant(role: Role): Capability {
  return role === "owner" ? "owners" : "members";
}

/** What a member must be allowed to do to reset the password of a member with `role`: owners decide for admins and owners. */
export function capabilityToReset(role: Role): Capability {
  return role === "owner" || role === "admin" ? "owners" : "members";
}

function assertMayGrant(actor: Actor, role: Role): void {
  if (!may(actingRole(actor), capabilityToGrant(role))) {
    throw new AppError("forbidden_role", "Only an owner can make or change owners.");
  }
}

export const listMembers = guarded({ may: "read" }, async function listMembers(db: Db, actor: Actor): Promise<
  Member[]
> {
  const rows = await db.member.findMany({
    where: { organizationId: actor.organizationId, removedAt: null },
    include: { user: { select: { email: true } } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map(toMember);
});

/**
 * The membership of a person joining the organization: a former member's comes back with a clean
 * slate (their old personal keys stay revoked), else a new one.
 */
export async function admitMember(
  tx: Prisma.TransactionClient,
  organizationId: string,
  former: { id: string } | null,
  member: { userId: string; role: Role; passwordHash: string | null },
) {
  if (former)
    await tx.apiKey.updateMany({
      where: { organizationId, memberId: former.id, revokedAt: null },
      data: { revokedAt: new Date() },
    });
  return former
    ? tx.member.update({
        where: { id: former.id, organizationId },
        data: { role: member.role, removedAt: null, createdAt: new Date(), passwordHash: member.passwordHash },
        include: { user: { select: { email: true } } },
      })
    : tx.member.create({
        data: { organizationId, userId: member.userId, role: member.role, passwordHash: member.passwordHash },
        include: { user: { select: { email: true } } },
      });
}

/**
 * Adds a person to the organization. Without a given password they get a temporary one,
 * returned once for the admin to hand over, whether or not the email already signs in
 * elsewhere: the answer must not tell an admin who has an account. For someone who has, that
 * password is kept on the membership and opens this organization only; their own password is
 * left alone (the operator alone may reset it by giving one).
 * A former member comes back with a clean slate: their old personal keys stay revoked.
 */
export const addMember = guarded(
  { may: "members" },
  async function addMember(
    db: Db,
    actor: Actor,
    input: { email: string; role: Role; password?: string },
  ): Promise<{
    member: Member;
    temporaryPassword: string | null;
  }> {
    assertMayGrant(actor, input.role);
    const email = normalizeEmail(input.email);
    const generated = input.password === undefined ? temporaryPassword() : null;
    const passwordHash = await hashPassword(input.password ?? generated!);
    const existingUser = await db.user.findUnique({ where: { email } });
    const setsOwnPassword = !existingUser?.passwordHash || (input.password !== undefined && actor.kind === "operator");
    const memberPasswordHash = setsOwnPassword ? null : passwordHash;

    const member = await db.$transaction(async (tx) => {
      const user = existingUser
        ? setsOwnPassword
          ? await tx.user.update({ where: { id: existingUser.id }, data: { passwordHash } })
          : existingUser
        : await tx.user.create({ data: { email, passwordHash } });
      const existing = await tx.member.findUnique({
        where: { organizationId_userId: { organizationId: actor.organizationId, userId: user.id } },
      });
      if (existing && !existing.removedAt) {
        throw new AppError("conflict", `${email} is already a member of this organization.`);
      }
      const added = await admitMember(tx, actor.organizationId, existing, {
        userId: user.id,
        role: input.role,
        passwordHash: memberPasswordHash,
      });
      await recordEvent(tx, actor, {
        action: "member.add",
        target: memberTarget(added),
        changes: { role: [null, added.role], password: [null, SECRET_CHANGED] },
      });
      return added;
    });
    return { member: toMember(member), temporaryPassword: generated };
  },
);

function memberTarget(member: { id: string; user: { email: string } }) {
  return { type: "member", id: member.id, label: member.user.email };
}

async function findActiveMember(db: Db, actor: Actor, memberId: string) {
  const row = await db.member.findFirst({
    where: { id: memberId, organizationId: actor.organizationId, removedAt: null },
    include: { user: { select: { email: true } } },
  });
  if (!row) throw new AppError("not_found", "No member with that id in this organization.");
  return row;
}

async function assertNotLastOwner(db: Db, organizationId: string, memberId: string): Promise<void> {
  const owners = await db.member.count({
    where: { organizationId, role: "owner", removedAt: null, id: { not: memberId } },
  });
  if (owners === 0)
    throw new AppError("invalid_request", "An organization needs at least one owner; make someone else owner first.");
}

export const changeMemberRole = guarded(
  { may: "members" },
  async function changeMemberRole(db: Db, actor: Actor, input: ChangeRoleInput): Promise<Member> {
    const target = await findActiveMember(db, actor, input.memberId);
    assertMayGrant(actor, input.role);
    if (target.role === "owner") {
      assertMayGrant(actor, "owner");
      if (input.role !== "owner") await assertNotLastOwner(db, actor.organizationId, target.id);
    }
    const row = await db.$transaction(async (tx) => {
      await recordEvent(tx, actor, {
        action: "member.role_change",
        target: memberTarget(target),
        changes: changesBetween(target, input, ["role"]),
      });
      return tx.member.update({
        where: { id: target.id, organizationId: actor.organizationId },
        data: { role: input.role },
        include: { user: { select: { email: true } } },
      });
    });
    return toMember(row);
  },
);

/** The member's personal keys stop working at once (member_removed) and their sessions end. */
export const removeMember = guarded(
  { may: "members" },
  async function removeMember(db: Db, actor: Actor, input: MemberIdInput): Promise<Member> {
    const target = await findActiveMember(db, actor, input.memberId);
    if (target.role === "owner") {
      assertMayGrant(actor, "owner");
      await assertNotLastOwner(db, actor.organizationId, target.id);
    }
    const [row] = await db.$transaction([
      db.member.update({
        where: { id: target.id, organizationId: actor.organizationId },
        data: { removedAt: new Date() },
        include: { user: { select: { email: true } } },
      }),
      db.session.deleteMany({ where: { memberId: target.id } }),
      recordEvent(db, actor, { action: "member.remove", target: memberTarget(target) }),
    ]);
    return toMember(row);
  },
);

/** Wrong current passwords a minute: a stolen session must not become a password oracle. */
const passwordChangeThrottle = createSignInThrottle("password-change", {
  perAccountAndAddress: 5,
  perAddress: 30,
  perAccount: 20,
});

/**
 * A signed-in person changes the password that opens this organization for them: the one the
 * organization gave them (members.passwordHash) when it has one, else their own. The current
 * password is required, and every other session it opened ends; `keepSessionToken` (the
 * session making the change) stays signed in.
 */
export const changeOwnPassword = guarded(
  { may: "read" },
  async function changeOwnPassword(
    db: Db,
    actor: MemberActor,
    input: ChangePasswordInput,
    options: { keepSessionToken?: string; clientAddress: string },
  ): Promise<void> {
    const member = await db.member.findFirst({
      where: { id: actor.member.id, organizationId: actor.organizationId, removedAt: null },
      include: { user: { select: { id: true, email: true, passwordHash: true } } },
    });
    if (!member) throw sessionEnded();
    const attempt = await passwordChangeThrottle.admit(db, member.user.email, options.clientAddress);
    const currentHash = member.passwordHash ?? member.user.passwordHash;
    if (!currentHash || !(await verifyPassword(currentHash, input.currentPassword))) {
      throw invalidRequest([{ path: "currentPassword", message: "That is not your current password." }]);
    }
    await attempt.succeeded();
    if (input.newPassword === input.currentPassword) {
      throw invalidRequest([{ path: "newPassword", message: "Choose a password different from the current one." }]);
    }
    const passwordHash = await hashPassword(input.newPassword);
    const otherSessions = options.keepSessionToken ? { tokenHash: { not: hashSecret(options.keepSessionToken) } } : {};
    await db.$transaction(async (tx) => {
      if (member.passwordHash) {
        await tx.member.update({
          where: { id: member.id, organizationId: actor.organizationId },
          data: { passwordHash },
        });
        await tx.session.deleteMany({ where: { memberId: member.id, ...otherSessions } });
      } else {
        await tx.user.update({ where: { id: member.user.id }, data: { passwordHash } });
        // The person's own password may open other organizations too: their sessions there end as well.
        await tx.session.deleteMany({ where: { member: { userId: member.user.id }, ...otherSessions } });
      }
      await recordEvent(tx, actor, {
        action: "member.password_change",
        target: memberTarget(member),
        changes: { password: [SECRET_CHANGED, SECRET_CHANGED] },
      });
    });
  },
);

/**
 * The operator (the admin CLI) gives a member a new temporary password for this organization,
 * returned once to hand over, and ends the member's sessions here; the console mails a link
 * instead (sendPasswordResetLink in invitations.ts). It never touches the person's own password,
 * which may open other organizations; people change their own with changeOwnPassword.
 */
export const resetMemberPassword = guarded(
  { may: "members" },
  async function resetMemberPassword(
    db: Db,
    actor: Actor,
    input: MemberIdInput,
  ): Promise<{
    member: Member;
    temporaryPassword: string;
  }> {
    const temporary = temporaryPassword();
    const target = await lockOutForReset(db, actor, input.memberId, await hashPassword(temporary));
    return { member: toMember(target), temporaryPassword: temporary };
  },
);

/**
 * The first half of every password reset: the role rules (admins reset members up to their own
 * role, owners only by owners, nobody themselves), then the member's password for this organization
 * becomes `passwordHash` and their sessions here end, recorded as member.password_reset.
 */
export async function lockOutForReset(db: Db, actor: Actor, memberId: string, passwordHash: string) {
  const target = await findActiveMember(db, actor, memberId);
  if (actor.kind !== "operator" && actor.member?.id === target.id) {
    throw new AppError(
      "invalid_request",
      "Change your own password on your account page; it asks for the current one.",
    );
  }
  if (!may(actingRole(actor), capabilityToReset(target.role))) {
    // An admin may not take over a fellow admin's or an owner's access; an owner decides that.
    throw new AppError("forbidden_role", `Only an owner can reset an ${target.role}'s password.`);
  }
  await db.$transaction([
    db.member.update({ where: { id: target.id, organizationId: actor.organizationId }, data: { passwordHash } }),
    db.session.deleteMany({ where: { memberId: target.id } }),
    recordEvent(db, actor, {
      action: "member.password_reset",
      target: memberTarget(target),
      changes: { password: [SECRET_CHANGED, SECRET_CHANGED] },
    }),
  ]);
  return target;
}
