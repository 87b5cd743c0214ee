import { z } from "zod";
import { Role } from "./auth";
import { Timestamp, Uuid } from "./common";

export const Member = z.object({
  id: Uuid,
  organizationId: Uuid,
  email: z.email(),
  role: Role,
  createdAt: Timestamp,
  removedAt: Timestamp.nullable(),
});
export type Member = z.infer<typeof Member>;

export const InviteMemberInput = z.strictObject({
  email: z.email().max(320),
  role: Role.default("member"),
});

export const ChangeRoleInput = z.strictObject({ memberId: Uuid, role: Role });
export const MemberIdInput = z.strictObject({ memberId: Uuid });

/** A password a person sets: long enough to resist guessing, bounded like sign-in's. */
export const NewPassword = z.string().min(10, "Use at least 10 characters.").max(200);

export const ChangePasswordInput = z.strictObject({
  currentPassword: z.string().min(1).max(200),
  newPassword: NewPassword,
});

export const ResetPasswordOutput = z.object({ member: Member, temporaryPassword: z.string() });
