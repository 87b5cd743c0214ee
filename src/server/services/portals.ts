import type { Portal } from "@/schemas/provisioning";
import type { Actor } from "@/server/auth/actor";
import { authorize } from "@/server/auth/authorize";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { afterCursor, CURSOR_ORDER, toPage } from "./pagination";
import { assertGroupsEnabled } from "./user-groups";

function toPortal(row: { id: string; name: string; createdAt: Date }): Portal {
  return { id: row.id, name: row.name, createdAt: row.createdAt.toISOString() };
}

export async function createPortal(db: Db, actor: Actor, input: { name: string }): Promise<Portal> {
  authorize(actor, { scope: "end_users:write", role: "admin" });
  return toPortal(await db.portal.create({ data: { organizationId: actor.organizationId, name: input.name } }));
}

export async function listPortals(db: Db, actor: Actor, input: { limit: number; cursor?: string }) {
  authorize(actor, { scope: "end_users:read" });
  const rows = await db.portal.findMany({
    where: { organizationId: actor.organizationId, ...afterCursor(input.cursor) },
    orderBy: CURSOR_ORDER,
    take: input.limit + 1,
  });
  const page = toPage(rows, input.limit);
  return { portals: page.items.map(toPortal), nextCursor: page.nextCursor };
}

/** Lets a group's members into a portal. Admitting again answers the existing admission. */
export async function admitGroup(db: Db, actor: Actor, input: { portalId: string; groupId: string }) {
  authorize(actor, { scope: "end_users:write" });
  await assertGroupsEnabled(db, actor.organizationId);
  const portal = await db.portal.findFirst({ where: { id: input.portalId, organizationId: actor.organizationId }, select: { id: true } });
  if (!portal) throw new AppError("not_found", "No portal with that id.");
  const group = await db.userGroup.findFirst({ where: { id: input.groupId, organizationId: actor.organizationId }, select: { id: true } });
  if (!group) throw new AppError("group_not_found", `No user group ${input.groupId} in this organization.`);
  const inserted = await db.portalAdmission.createManyAndReturn({ data: [{ portalId: portal.id, groupId: group.id }], skipDuplicates: true });
  const admission = inserted[0] ?? (await db.portalAdmission.findUniqueOrThrow({ where: { portalId_groupId: { portalId: portal.id, groupId: group.id } } }));
  return {
    created: inserted.length > 0,
    admission: { portalId: admission.portalId, groupId: admission.groupId, createdAt: admission.createdAt.toISOString() },
  };
}

/** The groups admitted to a portal, for the console. */
export async function listAdmissions(db: Db, actor: Actor, input: { portalId: string }) {
  authorize(actor, { scope: "end_users:read" });
  const rows = await db.portalAdmission.findMany({
    where: { portalId: input.portalId, portal: { organizationId: actor.organizationId } },
    include: { group: { select: { name: true } } },
    orderBy: { createdAt: "asc" },
  });
  return rows.map((row) => ({ portalId: row.portalId, groupId: row.groupId, groupName: row.group.name, createdAt: row.createdAt.toISOString() }));
}
