// More credits for an end user: the end user asks from a portal (at most 3 open requests; the
// organization's admins are told by their notifications, and mailed unless they opted out:
// src/server/jobs/notification-emails.ts), and an admin answers by granting bonus credits to one of the
// end user's subscriptions, which closes their open requests, or by dismissing a request.
import type {
  CreditRequest,
  DismissCreditRequestInput,
  GrantBonusCreditsInput,
  ListCreditRequestsInput,
} from "@/schemas/provisioning/credits";
import { MAX_BONUS_CREDITS_PER_POOL } from "@/schemas/provisioning/credits";
import type { SubscriptionDetail } from "@/schemas/provisioning/provisioning";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { logger } from "@/server/observability/log";
import { POOL_BONUS_SQL, POOL_NEXT_RESET_SQL, POOL_USED_SQL } from "../support/credit-pool";
import { subscriptionSelect, toSubscriptionDetail } from "./end-user-subscriptions";
import { recorded, recordEvent } from "../org/events";
import { deliverMail } from "../org/mail";
import { pick } from "@/lib/pick";
import { groupedDigits } from "@/lib/digits";

/** Open requests one end user may have at once. */
export const MAX_OPEN_CREDIT_REQUESTS = 3;

type CreditRequestRow = {
  id: string;
  endUserId: string;
  message: string;
  status: CreditRequest["status"];
  createdAt: Date;
  resolvedAt: Date | null;
};

function toCreditRequest(row: CreditRequestRow): CreditRequest {
  return {
    ...pick(row, ["id", "endUserId", "message", "status"]),
    createdAt: row.createdAt.toISOString(),
    resolvedAt: row.resolvedAt?.toISOString() ?? null,
  };
}

/** An end user asks for more credits; refused with `conflict` when three requests are already open. */
export async function requestMoreCredits(
  db: Db,
  actor: EndUserActor,
  input: { message?: string },
): Promise<CreditRequest> {
  const created = await db.$transaction(async (tx) => {
    // The end user's row is the lock: two requests at once cannot both see room for a third.
    await tx.$queryRaw`select id from end_users where id = ${actor.endUser.id}::uuid and organization_id = ${actor.organizationId}::uuid for update`;
    const open = await tx.creditRequest.count({
      where: { organizationId: actor.organizationId, endUserId: actor.endUser.id, status: "open" },
    });
    if (open >= MAX_OPEN_CREDIT_REQUESTS) {
      throw new AppError(
        "conflict",
        `You already have ${MAX_OPEN_CREDIT_REQUESTS} requests waiting for an answer; the organization will get back to you.`,
      );
    }
    return tx.creditRequest.create({
      data: { organizationId: actor.organizationId, endUserId: actor.endUser.id, message: input.message ?? "" },
    });
  });
  return toCreditRequest(created);
}

/** An end user's credit requests, open ones first, then newest first. */
export const listCreditRequests = guarded(
  { scope: "end_users:read" },
  async function listCreditRequests(db: Db, actor: Actor, input: ListCreditRequestsInput): Promise<CreditRequest[]> {
    const endUser = await db.endUser.findFirst({
      where: { id: input.endUserId, organizationId: actor.organizationId, deletedAt: null },
      select: { id: true },
    });
    if (!endUser) throw new AppError("not_found", "No end user with that id.");
    const rows = await db.creditRequest.findMany({
      where: { organizationId: actor.organizationId, endUserId: input.endUserId },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: 100,
    });
    return rows.map(toCreditRequest).sort((a, b) => Number(a.status !== "open") - Number(b.status !== "open"));
  },
);

/** Open credit requests per end user of the organization, for lists and notifications. */
export async function openCreditRequestCount(db: Db, organizationId: string): Promise<number> {
  return db.creditRequest.count({ where: { organizationId, status: "open" } });
}

/**
 * Adds bonus credits to one of the end user's active subscriptions, atomically: a pool due for its
 * reset is reset in the same statement (bonus credits last until the reset), and the total a pool
 * holds stays under MAX_BONUS_CREDITS_PER_POOL. The end user's open requests are granted with it.
 */
export const grantBonusCredits = guarded(
  { scope: "end_users:write", may: "grant" },
  async function grantBonusCredits(db: Db, actor: Actor, input: GrantBonusCreditsInput): Promise<SubscriptionDetail> {
    const subscriptionId = await db.$transaction(async (tx) => {
      const rows = await tx.$queryRawUnsafe<{ id: string; status: string; room: boolean }[]>(
        `select s.id, s.status, ${POOL_BONUS_SQL} + $4 <= $5 as room
         from subscriptions s join end_users u on u.id = s.end_user_id
         where s.end_user_id = $1::uuid and s.tier_plan_id = $2::uuid and u.organization_id = $3::uuid and u.deleted_at is null
         for update of s`,
        input.endUserId,
        input.tierPlanId,
        actor.organizationId,
        input.credits,
        MAX_BONUS_CREDITS_PER_POOL,
      );
      const subscription = rows[0];
      if (!subscription) throw new AppError("not_found", "This end user has no subscription on that plan.");
      if (subscription.status !== "active")
        throw new AppError("conflict", "That subscription is canceled; bonus credits go to an active one.");
      if (!subscription.room)
        throw new AppError(
          "conflict",
          `A pool holds at most ${groupedDigits(MAX_BONUS_CREDITS_PER_POOL)} bonus credits.`,
        );
      await tx.$executeRawUnsafe(
        `update subscriptions s set
           credits_used = ${POOL_USED_SQL},
           bonus_credits = ${POOL_BONUS_SQL} + $2,
           credits_reset_at = ${POOL_NEXT_RESET_SQL},
           updated_at = now()
         where s.id = $1::uuid`,
        subscription.id,
        input.credits,
      );
      await tx.creditRequest.updateMany({
        where: { organizationId: actor.organizationId, endUserId: input.endUserId, status: "open" },
        data: { status: "granted", resolvedAt: new Date() },
      });
      await recordEvent(tx, actor, {
        action: "subscription.bonus_credits",
        target: { type: "subscription", id: subscription.id },
        changes: { bonusCredits: [null, `+${input.credits}`], reason: [null, input.reason ?? null] },
      });
      return subscription.id;
    });
    const row = await db.subscription.findUniqueOrThrow({
      where: { id: subscriptionId },
      select: { ...subscriptionSelect, endUser: { select: { email: true, organization: { select: { name: true } } } } },
    });
    await mailBonus(db, actor.organizationId, {
      to: row.endUser.email,
      organization: row.endUser.organization.name,
      plan: row.tierPlan.name,
      credits: input.credits,
      reason: input.reason ?? null,
    });
    return toSubscriptionDetail(row);
  },
);

/**
 * Tells the end user of their bonus by mail (SMTP, or the organization's outbox as invitations
 * are); the portal tells them too, on their next visit (credit-ledger.ts unseenBonuses). The
 * bonus is granted whatever happens to the mail: a failure to send is logged, not answered.
 */
async function mailBonus(
  db: Db,
  organizationId: string,
  bonus: { to: string; organization: string; plan: string; credits: number; reason: string | null },
): Promise<void> {
  const credits = `${groupedDigits(bonus.credits)} bonus credit${bonus.credits === 1 ? "" : "s"}`;
  try {
    await deliverMail(db, organizationId, {
      to: bonus.to,
      subject: `${bonus.organization} gave you ${credits}`,
      text: [
        `${bonus.organization} gave you ${credits} on your ${bonus.plan} plan.`,
        ...(bonus.reason ? ["", `Why: ${bonus.reason}`] : []),
        "",
        "They are yours to use in your portal until your credits next renew.",
      ].join("\n"),
    });
  } catch (error) {
    logger().warn({ organizationId, reason: (error as Error).message }, "The bonus credits mail could not be sent");
  }
}

/** Closes one open request without granting anything. */
export const dismissCreditRequest = guarded(
  { scope: "end_users:write", may: "grant" },
  async function dismissCreditRequest(db: Db, actor: Actor, input: DismissCreditRequestInput): Promise<CreditRequest> {
    const dismiss = (tx: Pick<Db, "creditRequest">) =>
      tx.creditRequest.updateMany({
        where: {
          id: input.creditRequestId,
          organizationId: actor.organizationId,
          endUserId: input.endUserId,
          status: "open",
        },
        data: { status: "dismissed", resolvedAt: new Date() },
      });
    const { count } = await recorded(db, actor, dismiss, ({ count }) =>
      count
        ? {
            action: "credit_request.dismiss",
            target: { type: "credit_request", id: input.creditRequestId },
            changes: { status: ["open", "dismissed"] },
          }
        : null,
    );
    const row = await db.creditRequest.findFirst({
      where: { id: input.creditRequestId, organizationId: actor.organizationId, endUserId: input.endUserId },
    });
    if (!row) throw new AppError("not_found", "No credit request with that id on this end user.");
    if (count === 0 && row.status === "open")
      throw new AppError("conflict", "That request could not be dismissed; try again.");
    return toCreditRequest(row);
  },
);
