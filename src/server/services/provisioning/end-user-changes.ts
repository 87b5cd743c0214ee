// Changes to an end user after provisioning: their name, revocation, deletion, and a grant removed.
import type {
  EndUser,
  EndUserIdInput,
  RemoveGrantInput,
  UpdateEndUserInput,
} from "@/schemas/provisioning/provisioning";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";
import { changesBetween, recorded, recordEvent } from "../org/events";
import { endUserTarget, findEndUser, lockedEndUser, toEndUser } from "./end-users-shared";

type Tx = Prisma.TransactionClient;

export const updateEndUser = guarded(
  { scope: "end_users:write" },
  async function updateEndUser(db: Db, actor: Actor, input: UpdateEndUserInput): Promise<EndUser> {
    const user = await findEndUser(db, actor.organizationId, input.endUserId);
    if (input.fullName === undefined || input.fullName === user.fullName) return toEndUser(user);
    return db.$transaction(async (tx) => {
      // The row as it is now, locked: the event's "before", and nothing recorded if it already reads so.
      const current = await lockedEndUser(tx, actor.organizationId, user.id);
      if (current.fullName === input.fullName) return toEndUser(current);
      const row = await tx.endUser.update({
        where: { id: user.id, organizationId: actor.organizationId },
        data: { fullName: input.fullName },
      });
      await recordEvent(tx, actor, {
        action: "end_user.update",
        target: endUserTarget(row),
        changes: changesBetween(current, row, ["fullName"]),
        data: toEndUser(row),
      });
      return toEndUser(row);
    });
  },
);

/** A revoked account loses access until it is provisioned again (POST /end-users restores it). */
export const revokeEndUser = guarded(
  { scope: "end_users:write" },
  async function revokeEndUser(db: Db, actor: Actor, input: EndUserIdInput): Promise<EndUser> {
    const user = await findEndUser(db, actor.organizationId, input.endUserId);
    if (user.revokedAt) return toEndUser(user);
    // Their portal sessions end with the revocation (and stay ended if they are provisioned again).
    const revokedAt = new Date();
    const [revoked] = await db.$transaction([
      db.endUser.update({ where: { id: user.id, organizationId: actor.organizationId }, data: { revokedAt } }),
      recordEvent(db, actor, {
        action: "end_user.revoke",
        target: endUserTarget(user),
        changes: { revokedAt: [null, revokedAt] },
        data: toEndUser({ ...user, revokedAt }),
      }),
      db.endUserSession.deleteMany({ where: { endUserId: user.id } }),
      db.endUserSignInCode.deleteMany({ where: { endUserId: user.id } }),
    ]);
    return toEndUser(revoked);
  },
);

/**
 * Marks the identity deleted: its subscriptions end, its grants and memberships go, its name is
 * forgotten, and the email can never be provisioned again (deleted_identity).
 */
export const deleteEndUser = guarded(
  { scope: "end_users:write", may: "delete" },
  async function deleteEndUser(db: Db, actor: Actor, input: EndUserIdInput): Promise<void> {
    const user = await findEndUser(db, actor.organizationId, input.endUserId);
    await db.$transaction([
      db.subscription.updateMany({ where: { endUserId: user.id }, data: { status: "canceled" } }),
      db.grant.deleteMany({ where: { endUserId: user.id } }),
      db.groupMember.deleteMany({ where: { endUserId: user.id } }),
      db.endUserSession.deleteMany({ where: { endUserId: user.id } }),
      db.endUserSignInCode.deleteMany({ where: { endUserId: user.id } }),
      // A deleted end user stays deleted: the directory users that stood for them now stand for none.
      db.directoryUser.updateMany({
        where: { endUserId: user.id, organizationId: actor.organizationId },
        data: { endUserId: null },
      }),
      db.endUser.update({
        where: { id: user.id, organizationId: actor.organizationId },
        data: { deletedAt: new Date(), revokedAt: user.revokedAt ?? new Date(), fullName: "" },
      }),
      recordEvent(db, actor, {
        action: "end_user.delete",
        target: endUserTarget(user),
        data: { id: user.id, email: user.email, deleted: true },
      }),
    ]);
  },
);

export const removeEndUserGrant = guarded(
  { scope: "end_users:write", may: "delete" },
  async function removeEndUserGrant(db: Db, actor: Actor, input: RemoveGrantInput): Promise<void> {
    const user = await findEndUser(db, actor.organizationId, input.endUserId);
    const remove = (tx: Tx) =>
      tx.grant.deleteMany({ where: { id: input.grantId, organizationId: actor.organizationId, endUserId: user.id } });
    const { count } = await recorded(db, actor, remove, ({ count }) =>
      count ? { action: "grant.delete", target: { type: "grant", id: input.grantId, label: user.email } } : null,
    );
    if (count === 0) throw new AppError("not_found", "No grant with that id on this end user.");
  },
);
