// The groups admitted to a portal (the organization's `groups` access mode): admitted, removed, listed.
import type { z } from "zod";
import type { AdmitGroupInput, GroupIdInput } from "@/schemas/provisioning/provisioning";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";
import { recorded } from "../org/events";
import { assertGroupsEnabled } from "../provisioning/user-groups";

/** Lets a group's members into a portal. Admitting again answers the existing admission. */
export const admitGroup = guarded(
  { scope: "end_users:write" },
  async function admitGroup(db: Db, actor: Actor, input: z.infer<typeof AdmitGroupInput>) {
    await assertGroupsEnabled(db, actor.organizationId);
    const portal = await db.portal.findFirst({
      where: { id: input.portalId, organizationId: actor.organizationId },
      select: { id: true },
    });
    if (!portal) throw new AppError("not_found", "No portal with that id.");
    const group = await db.userGroup.findFirst({
      where: { id: input.groupId, organizationId: actor.organizationId },
      select: { id: true },
    });
    if (!group) throw new AppError("group_not_found", `No user group ${input.groupId} in this organization.`);
    const admit = (tx: Prisma.TransactionClient) =>
      tx.portalAdmission.createManyAndReturn({
        data: [{ portalId: portal.id, groupId: group.id }],
        skipDuplicates: true,
      });
    const inserted = await recorded(db, actor, admit, (rows) =>
      rows.length
        ? {
            action: "portal.admission_add",
            target: { type: "portal", id: portal.id },
            changes: { groups: [null, group.id] },
          }
        : null,
    );
    const admission =
      inserted[0] ??
      (await db.portalAdmission.findUniqueOrThrow({
        where: { portalId_groupId: { portalId: portal.id, groupId: group.id } },
      }));
    return {
      created: inserted.length > 0,
      admission: {
        portalId: admission.portalId,
        groupId: admission.groupId,
        createdAt: admission.createdAt.toISOString(),
      },
    };
  },
);

/** Ends a group's admission: its members stop entering the portal through this group. */
export const removeAdmission = guarded(
  { scope: "end_users:write", may: "delete" },
  async function removeAdmission(db: Db, actor: Actor, input: z.infer<typeof AdmitGroupInput>): Promise<void> {
    await assertGroupsEnabled(db, actor.organizationId);
    const remove = (tx: Prisma.TransactionClient) =>
      tx.portalAdmission.deleteMany({
        where: { portalId: input.portalId, groupId: input.groupId, portal: { organizationId: actor.organizationId } },
      });
    const { count } = await recorded(db, actor, remove, ({ count }) =>
      count
        ? {
            action: "portal.admission_remove",
            target: { type: "portal", id: input.portalId },
            changes: { groups: [input.groupId, null] },
          }
        : null,
    );
    if (count === 0) throw new AppError("not_found", "That group is not admitted to this portal.");
  },
);

/** The groups admitted to a portal, for the console. */
export const listAdmissions = guarded(
  { scope: "end_users:read" },
  async function listAdmissions(db: Db, actor: Actor, input: { portalId: string }) {
    const rows = await db.portalAdmission.findMany({
      where: { portalId: input.portalId, portal: { organizationId: actor.organizationId } },
      include: { group: { select: { name: true } } },
      orderBy: { createdAt: "asc" },
    });
    return rows.map((row) => ({
      portalId: row.portalId,
      groupId: row.groupId,
      groupName: row.group.name,
      createdAt: row.createdAt.toISOString(),
    }));
  },
);

/** The portals a group is admitted to, for the group's page in the console. */
export const listGroupAdmissions = guarded(
  { scope: "end_users:read" },
  async function listGroupAdmissions(db: Db, actor: Actor, input: z.infer<typeof GroupIdInput>) {
    const group = await db.userGroup.findFirst({
      where: { id: input.groupId, organizationId: actor.organizationId },
      select: { id: true },
    });
    if (!group) throw new AppError("not_found", "No user group with that id.");
    const rows = await db.portalAdmission.findMany({
      where: { groupId: group.id, portal: { organizationId: actor.organizationId } },
      include: { portal: { select: { name: true } } },
      orderBy: [{ portal: { name: "asc" } }, { portalId: "asc" }],
    });
    return rows.map((row) => ({
      portalId: row.portalId,
      groupId: row.groupId,
      portalName: row.portal.name,
      createdAt: row.createdAt.toISOString(),
    }));
  },
);
