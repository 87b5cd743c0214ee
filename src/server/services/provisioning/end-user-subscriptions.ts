// End users' subscriptions to plans: the one statement that starts or renews them (provisioning,
// the directory and the payment processor's link all go through it), ending one, and linking one
// paid at the payment processor.
import type { RemoveSubscriptionInput, Subscription, SubscriptionDetail } from "@/schemas/provisioning/provisioning";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";
import { changesBetween, recordEvent } from "../org/events";
import { findEndUser } from "./end-users-shared";
import { liveTierPlan } from "./tier-plans";

type Tx = Prisma.TransactionClient;

type SubscriptionRow = {
  id: string;
  tierPlanId: string;
  status: "active" | "canceled";
  creditAllowance: number;
  creditsUsed: number;
  creditsResetAt: Date;
  provisionedBy: "api" | "console" | "processor";
  isComped: boolean;
  bonusCredits: number;
  tierPlan: { name: string };
};

function toSubscription(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    tierPlanId: row.tierPlanId,
    tierPlanName: row.tierPlan.name,
    status: row.status,
    creditAllowance: row.creditAllowance,
    creditsUsed: row.creditsUsed,
    creditsResetAt: row.creditsResetAt.toISOString(),
  };
}

export function toSubscriptionDetail(row: SubscriptionRow): SubscriptionDetail {
  return {
    ...toSubscription(row),
    provisionedBy: row.provisionedBy,
    isComped: row.isComped,
    bonusCredits: row.bonusCredits,
  };
}

export const subscriptionSelect = {
  id: true,
  tierPlanId: true,
  status: true,
  creditAllowance: true,
  creditsUsed: true,
  creditsResetAt: true,
  provisionedBy: true,
  isComped: true,
  bonusCredits: true,
  tierPlan: { select: { name: true } },
} as const;

/**
 * Subscribes end users to plans, the one statement for it: new subscriptions, or canceled ones
 * made active again with a fresh credit pool that renews a month later; active ones are left as
 * they are. `rows` is a SQL relation of (end_user_id, tier_plan_id, credit_allowance); `by` and
 * `comped` are SQL expressions for who provisioned it and whether it is free.
 */
export function subscriptionsUpsert(rows: string, by: string, comped: string): string {
  return `
    insert into subscriptions (id, end_user_id, tier_plan_id, status, credit_allowance, credits_used, credits_reset_at, provisioned_by, is_comped, created_at, updated_at)
    select gen_random_uuid(), r.end_user_id, r.tier_plan_id, 'active', r.credit_allowance, 0, now() + interval '1 month', ${by}, ${comped}, now(), now()
    from ${rows} r
    on conflict (end_user_id, tier_plan_id) do update
      set status = 'active', credit_allowance = excluded.credit_allowance, credits_used = 0, credits_reset_at = excluded.credits_reset_at,
          provisioned_by = excluded.provisioned_by, is_comped = excluded.is_comped, updated_at = now()
      where subscriptions.status = 'canceled'`;
}

/** Subscribes one end user to plans (subscriptionsUpsert); the plans' own groups follow. */
export async function subscribe(
  tx: Tx,
  endUserId: string,
  plans: readonly { id: string; creditAllowance: number; groupId: string | null }[],
  by: "api" | "console" | "processor",
): Promise<void> {
  if (plans.length === 0) return;
  await tx.$executeRawUnsafe(
    subscriptionsUpsert(
      "(select $1::uuid as end_user_id, unnest($2::uuid[]) as tier_plan_id, unnest($3::int[]) as credit_allowance)",
      '$4::"ProvisionedBy"',
      "$5",
    ),
    endUserId,
    plans.map((plan) => plan.id),
    plans.map((plan) => plan.creditAllowance),
    by,
    by !== "processor",
  );
  const planGroups = plans.flatMap((plan) => (plan.groupId ? [{ groupId: plan.groupId, endUserId }] : []));
  if (planGroups.length) await tx.groupMember.createMany({ data: planGroups, skipDuplicates: true });
}

/** Ends a subscription; a plan paid at the processor must be canceled there. */
export const removeSubscription = guarded(
  { scope: "end_users:write", may: "delete" },
  async function removeSubscription(db: Db, actor: Actor, input: RemoveSubscriptionInput): Promise<void> {
    const user = await findEndUser(db, actor.organizationId, input.endUserId);
    const subscription = await db.subscription.findFirst({
      where: { endUserId: user.id, tierPlanId: input.tierPlanId, status: "active" },
      include: { tierPlan: { select: { groupId: true } } },
    });
    if (!subscription) throw new AppError("not_found", "This end user holds no active subscription on that plan.");
    if (subscription.provisionedBy === "processor") {
      throw new AppError(
        "live_paid_subscription",
        "This plan is paid at the payment processor; cancel it there first.",
      );
    }
    await db.$transaction([
      db.subscription.update({ where: { id: subscription.id }, data: { status: "canceled" } }),
      recordEvent(db, actor, {
        action: "subscription.cancel",
        target: { type: "subscription", id: subscription.id, label: user.email },
        changes: { status: ["active", "canceled"] },
        data: { id: subscription.id, endUserId: user.id, tierPlanId: subscription.tierPlanId, status: "canceled" },
      }),
      ...(subscription.tierPlan.groupId
        ? [db.groupMember.deleteMany({ where: { groupId: subscription.tierPlan.groupId, endUserId: user.id } })]
        : []),
    ]);
  },
);

/** Records a live paid subscription at the payment processor (admin CLI `billing link`). */
export const linkProcessorSubscription = guarded(
  { scope: "end_users:write", may: "grant" },
  async function linkProcessorSubscription(
    db: Db,
    actor: Actor,
    input: { endUserId: string; tierPlanId: string },
  ): Promise<SubscriptionDetail> {
    const user = await findEndUser(db, actor.organizationId, input.endUserId);
    const plan = await liveTierPlan(db, actor.organizationId, input.tierPlanId);
    return db.$transaction(async (tx) => {
      const [was] = await tx.$queryRaw<{ status: string; provisionedBy: string; isComped: boolean }[]>`
        select status, provisioned_by::text as "provisionedBy", is_comped as "isComped" from subscriptions
        where end_user_id = ${user.id}::uuid and tier_plan_id = ${plan.id}::uuid
        for no key update`;
      await tx.subscription.updateMany({
        where: { endUserId: user.id, tierPlanId: plan.id, status: "active" },
        data: { provisionedBy: "processor", isComped: false },
      });
      await subscribe(tx, user.id, [plan], "processor");
      const row = await tx.subscription.findUniqueOrThrow({
        where: { endUserId_tierPlanId: { endUserId: user.id, tierPlanId: plan.id } },
        select: subscriptionSelect,
      });
      const before = was ?? { status: null, provisionedBy: null, isComped: null };
      const changes = changesBetween(before, row, ["status", "provisionedBy", "isComped"]);
      if (Object.keys(changes).length > 0) {
        await recordEvent(tx, actor, {
          action: "subscription.link",
          target: { type: "subscription", id: row.id, label: user.email },
          changes,
        });
      }
      return toSubscriptionDetail(row);
    });
  },
);
