import { z } from "zod";
import { Role } from "./auth";
import { ListQuery, NextCursor, Timestamp, Uuid } from "../common";
import { MAX_EMAIL_CHARS, MAX_PASSWORD_CHARS } from "../limits";
import { Organization } from "../org/organization";
import { MfaChallenge } from "./mfa";

export const Member = z.object({
  id: Uuid,
  organizationId: Uuid,
  email: z.email(),
  role: Role,
  createdAt: Timestamp,
  removedAt: Timestamp.nullable(),
});
export type Member = z.infer<typeof Member>;

export const CreateInvitationInput = z.strictObject({
  email: z.email().max(MAX_EMAIL_CHARS),
  role: Role.default("member"),
});
export type CreateInvitationInput = z.infer<typeof CreateInvitationInput>;

/** How long an invitation link works after it was (last) sent. */
export const INVITATION_TTL_DAYS = 7;
/** How long a password reset link works. */
export const PASSWORD_RESET_TTL_HOURS = 24;
/** An invitation link's token: the invitation's id, a dot, and a 43-character secret. */
export const MAX_INVITATION_TOKEN_CHARS = 100;

export const Invitation = z.object({
  id: Uuid,
  email: z.email(),
  role: Role,
  invitedBy: z.string(),
  /** An open invitation past its expiry can still be resent or revoked. */
  status: z.enum(["pending", "expired"]),
  createdAt: Timestamp,
  sentAt: Timestamp,
  expiresAt: Timestamp,
});
export type Invitation = z.infer<typeof Invitation>;

export const InvitationIdInput = z.strictObject({ invitationId: Uuid });
export type InvitationIdInput = z.infer<typeof InvitationIdInput>;
export const ListInvitationsInput = ListQuery;
export type ListInvitationsInput = z.infer<typeof ListInvitationsInput>;
export const InvitationList = z.object({ invitations: z.array(Invitation), nextCursor: NextCursor });

export const InvitationTokenInput = z.strictObject({ token: z.string().min(1).max(MAX_INVITATION_TOKEN_CHARS) });
export type InvitationTokenInput = z.infer<typeof InvitationTokenInput>;

/** What the invitee sees before setting a password. */
export const InvitationPreview = z.object({
  organizationName: z.string(),
  email: z.email(),
  role: Role,
  /** Joining the organization, or choosing a new password after an admin's reset. */
  purpose: z.enum(["join", "reset"]),
  expiresAt: Timestamp,
});
export type InvitationPreview = z.infer<typeof InvitationPreview>;

export const ChangeRoleInput = z.strictObject({ memberId: Uuid, role: Role });
export type ChangeRoleInput = z.infer<typeof ChangeRoleInput>;
export const MemberIdInput = z.strictObject({ memberId: Uuid });
export type MemberIdInput = z.infer<typeof MemberIdInput>;

/** A password a person sets: long enough to resist guessing, bounded like sign-in's. */
export const NewPassword = z.string().min(10, "Use at least 10 characters.").max(MAX_PASSWORD_CHARS);

export const AcceptInvitationInput = z.strictObject({
  token: z.string().min(1).max(MAX_INVITATION_TOKEN_CHARS),
  password: NewPassword,
});
export type AcceptInvitationInput = z.infer<typeof AcceptInvitationInput>;

export const ChangePasswordInput = z.strictObject({
  currentPassword: z.string().min(1).max(MAX_PASSWORD_CHARS),
  newPassword: NewPassword,
});
export type ChangePasswordInput = z.infer<typeof ChangePasswordInput>;

export const MemberOutput = z.object({ member: Member });
/** The signed-in member and their organization (the console's `auth.me`). */
export const ConsoleMeOutput = z.object({
  member: Member.pick({ id: true, email: true, role: true }),
  organization: Organization,
});
export const AcceptInvitationOutput = z.object({ member: Member, mfa: MfaChallenge.optional() });
