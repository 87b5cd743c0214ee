// Runs refused before they ran (402 and the like): recorded apart from executions, and listed.
import type { z } from "zod";
import type { Refusal, ListRefusalsInput } from "@/schemas/runs/usage";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import { NO_FLUSH, type Db } from "@/server/db";
import { logger } from "@/server/observability/log";
import { newestFirst } from "../support/pagination";
import { recordUsage, type UsageEvent } from "./usage-records";

/**
 * A refusal's own row, for the list of refused runs. The plan is the pool the end user's next
 * charge would have taken, as the rollup counts it.
 */
const RECORD_REFUSAL_SQL = `
  with no_flush as (${NO_FLUSH})
  insert into run_refusals (id, organization_id, code, app_id, end_user_id, portal_id, plan_id, created_at)
  select gen_random_uuid(), $1::uuid, $2, $3::uuid, $4::uuid, $5::uuid,
    (select s.tier_plan_id from subscriptions s join end_users u on u.id = s.end_user_id
      where s.end_user_id = $4::uuid and u.organization_id = $1::uuid and s.status = 'active'
      order by s.credits_reset_at, s.created_at, s.id limit 1),
    $6::timestamptz
  from no_flush`;

/**
 * A run refused before it ran (402 and the like): counted apart, never as a turn or a failure, and
 * kept as a row of its own (not an execution: nothing ran). Like recordUsage it never throws.
 */
export async function recordRefusal(
  db: Db,
  event: Omit<UsageEvent, "metrics" | "refusal">,
  code: string,
): Promise<void> {
  const at = event.at ?? new Date();
  await db.pool
    .query({
      name: "atrium_record_refusal",
      text: RECORD_REFUSAL_SQL,
      values: [
        event.organizationId,
        code,
        event.appId ?? null,
        event.endUserId ?? null,
        event.portalId ?? null,
        at.toISOString(),
      ],
    })
    .catch((error: unknown) =>
      logger().error({ err: error, organizationId: event.organizationId }, "A refusal could not be recorded"),
    );
  await recordUsage(db, { ...event, at, refusal: code });
}

/** The runs refused before they ran, newest first, with the names of what they were for. */
export const listRefusals = guarded(
  { scope: "end_users:read" },
  async function listRefusals(
    db: Db,
    actor: Actor,
    input: z.infer<typeof ListRefusalsInput>,
  ): Promise<{ refusals: Refusal[]; nextCursor: string | null }> {
    const { organizationId } = actor;
    const page = await newestFirst(input, (before, window) =>
      db.runRefusal.findMany({
        where: {
          organizationId,
          ...(input.code ? { code: input.code } : {}),
          ...(input.appId ? { appId: input.appId } : {}),
          ...(input.endUserId ? { endUserId: input.endUserId } : {}),
          ...(input.portalId ? { portalId: input.portalId } : {}),
          ...before,
        },
        ...window,
      }),
    );
    const ids = (key: "appId" | "endUserId" | "portalId" | "planId") => [
      ...new Set(page.items.flatMap((row) => (row[key] ? [row[key]] : []))),
    ];
    const [apps, endUsers, portals, plans] = await Promise.all([
      db.builderItem.findMany({
        where: { organizationId, id: { in: ids("appId") } },
        select: { id: true, kind: true, draft: true },
      }),
      db.endUser.findMany({
        where: { organizationId, id: { in: ids("endUserId") } },
        select: { id: true, email: true },
      }),
      db.portal.findMany({ where: { organizationId, id: { in: ids("portalId") } }, select: { id: true, name: true } }),
      db.tierPlan.findMany({ where: { organizationId, id: { in: ids("planId") } }, select: { id: true, name: true } }),
    ]);
    const appsById = new Map(apps.map((app) => [app.id, app]));
    const emails = new Map(endUsers.map((endUser) => [endUser.id, endUser.email]));
    const portalNames = new Map(portals.map((portal) => [portal.id, portal.name]));
    const planNames = new Map(plans.map((plan) => [plan.id, plan.name]));
    const refusals = page.items.map((row): Refusal => {
      const app = row.appId ? appsById.get(row.appId) : undefined;
      return {
        id: row.id,
        code: row.code,
        appId: row.appId,
        appKind: app?.kind ?? null,
        appName: app ? String((app.draft as { name?: unknown } | null)?.name ?? "") : null,
        endUserId: row.endUserId,
        endUserEmail: row.endUserId ? (emails.get(row.endUserId) ?? null) : null,
        portalId: row.portalId,
        portalName: row.portalId ? (portalNames.get(row.portalId) ?? null) : null,
        planId: row.planId,
        planName: row.planId ? (planNames.get(row.planId) ?? null) : null,
        createdAt: row.createdAt.toISOString(),
      };
    });
    return { refusals, nextCursor: page.nextCursor };
  },
);
