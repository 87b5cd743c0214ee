import type { TierPlan, UpdateTierPlanInput } from "@/schemas/provisioning";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";
import { changesBetween, recordEvent } from "./events";
import { afterCursor, CURSOR_ORDER, toPage } from "./support/pagination";
import { toUserGroup } from "./user-groups";

type PlanRow = { id: string; name: string; creditAllowance: number; archivedAt: Date | null; groupId: string | null };

export function toTierPlan(row: PlanRow): TierPlan {
  return {
    id: row.id,
    name: row.name,
    creditAllowance: row.creditAllowance,
    archived: row.archivedAt !== null,
    groupId: row.groupId,
  };
}

/** The plan as it is now, locked until the transaction ends (a write's true "before"). */
async function lockedPlan(tx: Prisma.TransactionClient, actor: Actor, tierPlanId: string) {
  await tx.$queryRaw`select 1 from tier_plans where id = ${tierPlanId}::uuid and organization_id = ${actor.organizationId}::uuid
    for no key update`;
  return tx.tierPlan.findFirstOrThrow({ where: { id: tierPlanId, organizationId: actor.organizationId } });
}

function planTarget(plan: { id: string; name: string }) {
  return { type: "tier_plan", id: plan.id, label: plan.name };
}

export const listTierPlans = guarded(
  { scope: "end_users:read" },
  async function listTierPlans(db: Db, actor: Actor, input: { limit: number; cursor?: string }) {
    const rows = await db.tierPlan.findMany({
      where: { organizationId: actor.organizationId, ...afterCursor(input.cursor) },
      orderBy: CURSOR_ORDER,
      take: input.limit + 1,
    });
    const page = toPage(rows, input.limit);
    return { tierPlans: page.items.map(toTierPlan), nextCursor: page.nextCursor };
  },
);

/** A plan, optionally with its own group whose membership follows the plan's subscriptions. */
export const createTierPlan = guarded(
  { scope: "end_users:write", may: "grant" },
  async function createTierPlan(
    db: Db,
    actor: Actor,
    input: { name: string; creditAllowance: number; withGroup: boolean },
  ) {
    return db.$transaction(async (tx) => {
      const group = input.withGroup
        ? await tx.userGroup.create({
            data: {
              organizationId: actor.organizationId,
              name: input.name,
              description: `Everyone on the ${input.name} plan`,
            },
          })
        : null;
      const plan = await tx.tierPlan.create({
        data: {
          organizationId: actor.organizationId,
          name: input.name,
          creditAllowance: input.creditAllowance,
          groupId: group?.id ?? null,
        },
      });
      await recordEvent(tx, actor, {
        action: "tier_plan.create",
        target: planTarget(plan),
        changes: { name: [null, plan.name], creditAllowance: [null, plan.creditAllowance] },
      });
      return {
        tierPlan: toTierPlan(plan),
        ...(group ? { group: toUserGroup({ ...group, plan: { id: plan.id }, _count: { members: 0 } }) } : {}),
      };
    });
  },
);

/** An archived plan keeps its subscriptions but can no longer be assigned (tier_not_found). */
export const archiveTierPlan = guarded(
  { scope: "end_users:write", may: "grant" },
  async function archiveTierPlan(db: Db, actor: Actor, input: { tierPlanId: string }): Promise<TierPlan> {
    const plan = await db.tierPlan.findFirst({ where: { id: input.tierPlanId, organizationId: actor.organizationId } });
    if (!plan) throw new AppError("not_found", "No tier plan with that id.");
    if (plan.archivedAt) return toTierPlan(plan);
    return db.$transaction(async (tx) => {
      const current = await lockedPlan(tx, actor, plan.id);
      if (current.archivedAt) return toTierPlan(current);
      const row = await tx.tierPlan.update({
        where: { id: plan.id, organizationId: actor.organizationId },
        data: { archivedAt: new Date() },
      });
      await recordEvent(tx, actor, {
        action: "tier_plan.archive",
        target: planTarget(row),
        changes: changesBetween(current, row, ["archivedAt"]),
      });
      return toTierPlan(row);
    });
  },
);

/**
 * Renames a plan (its own group follows, as that group cannot be renamed by itself) or changes
 * its monthly credits, which apply at once to every active subscription's pool.
 */
export const updateTierPlan = guarded(
  { scope: "end_users:write", may: "grant" },
  async function updateTierPlan(db: Db, actor: Actor, input: UpdateTierPlanInput): Promise<TierPlan> {
    const plan = await db.tierPlan.findFirst({ where: { id: input.tierPlanId, organizationId: actor.organizationId } });
    if (!plan) throw new AppError("not_found", "No tier plan with that id.");
    return db.$transaction(async (tx) => {
      const current = await lockedPlan(tx, actor, plan.id);
      const changes = changesBetween(current, input, ["name", "creditAllowance"]);
      // Nothing differs: nothing written, nothing recorded.
      if (Object.keys(changes).length === 0) return toTierPlan(current);
      const row = await tx.tierPlan.update({
        where: { id: plan.id, organizationId: actor.organizationId },
        data: { name: input.name, creditAllowance: input.creditAllowance },
      });
      await recordEvent(tx, actor, { action: "tier_plan.update", target: planTarget(row), changes });
      if (input.name !== undefined && plan.groupId) {
        await tx.userGroup.update({
          where: { id: plan.groupId, organizationId: actor.organizationId },
          data: { name: input.name, description: `Everyone on the ${input.name} plan` },
        });
      }
      if (input.creditAllowance !== undefined) {
        await tx.subscription.updateMany({
          where: { tierPlanId: plan.id, status: "active" },
          data: { creditAllowance: input.creditAllowance },
        });
      }
      return toTierPlan(row);
    });
  },
);

/** Above this many active subscribers a plan's count reads "10,000+": counting stops there. */
export const SUBSCRIBER_COUNT_CAP = 10_000;

/**
 * Active subscribers of each of the organization's plans, each count stopping at `cap` (then
 * `atLeast`), so a request reads at most `cap` + 1 subscriptions per plan, through the
 * subscriptions (tier_plan_id, end_user_id) index, however large the organization is.
 */
export async function countPlanSubscribers(db: Db, organizationId: string, cap: number) {
  const rows = await db.$queryRaw<{ tierPlanId: string; subscribers: number }[]>`
    select p.id as "tierPlanId", counted.subscribers
    from tier_plans p
    cross join lateral (
      select count(*)::int as subscribers
      from (
        select 1
        from subscriptions s
        join end_users e on e.id = s.end_user_id and e.deleted_at is null
        where s.tier_plan_id = p.id and s.status = 'active'
        limit ${cap + 1}
      ) capped
    ) counted
    where p.organization_id = ${organizationId}::uuid and counted.subscribers > 0
    order by p.created_at, p.id`;
  return rows.map((row) => ({
    tierPlanId: row.tierPlanId,
    subscribers: Math.min(row.subscribers, cap),
    atLeast: row.subscribers > cap,
  }));
}

/** How many active subscribers each of the organization's plans has, up to SUBSCRIBER_COUNT_CAP. */
export const tierPlanSubscribers = guarded(
  { scope: "end_users:read" },
  async function tierPlanSubscribers(db: Db, actor: Actor) {
    return { counts: await countPlanSubscribers(db, actor.organizationId, SUBSCRIBER_COUNT_CAP) };
  },
);
