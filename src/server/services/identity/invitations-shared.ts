// What inviting and accepting share: an invitation's row, its audit target, and the check that
// an address is not already a member.
import type { Role } from "@/schemas/identity/auth";
import type { Db } from "@/server/db";

export type InvitationRow = {
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

export function invitationTarget(row: { id: string; email: string }) {
  return { type: "invitation", id: row.id, label: row.email };
}

export async function activeMemberWithEmail(db: Pick<Db, "member">, organizationId: string, email: string) {
  return db.member.findFirst({ where: { organizationId, removedAt: null, user: { email } }, select: { id: true } });
}
