// What the end-user services share: an end user as the API shows it, and the lookups a change
// to one starts from.
import type { EndUser } from "@/schemas/provisioning/provisioning";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";

type Tx = Prisma.TransactionClient;

type EndUserRow = {
  id: string;
  email: string;
  fullName: string;
  authMethod: string;
  emailVerifiedAt: Date | null;
  revokedAt: Date | null;
  suspendedAt: Date | null;
  lastSeenAt: Date | null;
  createdAt: Date;
};

export function toEndUser(row: EndUserRow): EndUser {
  return {
    id: row.id,
    email: row.email,
    fullName: row.fullName,
    authMethod: row.authMethod,
    emailVerifiedAt: row.emailVerifiedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    suspendedAt: row.suspendedAt?.toISOString() ?? null,
    lastSeenAt: row.lastSeenAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

export function endUserTarget(user: { id: string; email: string }) {
  return { type: "end_user", id: user.id, label: user.email };
}

/** The end user's row as it is now, locked until the transaction ends (a write's true "before"). */
export async function lockedEndUser(tx: Tx, organizationId: string, endUserId: string) {
  await tx.$queryRaw`select 1 from end_users where id = ${endUserId}::uuid and organization_id = ${organizationId}::uuid
    for no key update`;
  return findEndUser(tx, organizationId, endUserId);
}

/** The organization's end user (not deleted); the guarded service calling it has checked the caller. */
export async function findEndUser(db: Db | Tx, organizationId: string, endUserId: string) {
  const user = await db.endUser.findFirst({ where: { id: endUserId, organizationId, deletedAt: null } });
  if (!user) throw new AppError("not_found", "No end user with that id.");
  return user;
}
