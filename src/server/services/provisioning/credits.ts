// Credits: one balance per organization, spent atomically (a single conditional UPDATE), so
// concurrent spenders in any number of processes can never take it below zero. Settling a priced
// run's charge is credit-settlement.ts; the threshold events the charges announce, credit-thresholds.ts.
import { NO_FLUSH, type Db } from "@/server/db";
import { AppError, isAppError } from "@/server/errors";
import { metrics } from "@/server/observability/metrics";
import {
  creditsLeft,
  POOL_BONUS_SQL,
  POOL_LEFT_SQL,
  POOL_NEXT_RESET_SQL,
  POOL_RESET_DUE_SQL,
  POOL_RESET_SET_SQL,
  POOL_USED_SQL,
} from "../support/credit-pool";
import { recordRefusal } from "../runs/run-refusals";
import { crossingParams, organizationCrossingSql, poolCrossingCte } from "./credit-thresholds";

/** A Prisma client or an interactive transaction over it. */
type Executor = Pick<Db, "$executeRaw" | "$executeRawUnsafe">;

/**
 * A charged run's lease (runtime/run-leases.ts), written by the charge's own statement: the charge
 * and the lease are both written or neither. `execution` is what the run's record says if it is lost.
 */
export interface RunLeaseInput {
  id: string;
  execution: object;
}

/** The lease's parameters come after the charge's and its crossing events' ($1, $2, then eventSqlParams). */
const LEASE_PARAM = 3 + crossingParams("").length;

function leaseParams(lease: RunLeaseInput | undefined): unknown[] {
  return [lease?.id ?? null, lease ? JSON.stringify(lease.execution) : null];
}

/** The lease row, with `charge` (a RunCharge as JSON) when the charge took `from`'s row; nothing without a lease. */
function leaseInsertSql(charge: string, from: string): string {
  return `insert into run_leases (id, organization_id, charge, execution, heartbeat_at, created_at)
    select $${LEASE_PARAM}::uuid, $1::uuid, ${charge}, $${LEASE_PARAM + 1}::jsonb, now(), now()
    from ${from} where $${LEASE_PARAM}::uuid is not null`;
}

/** The organization's row locked with its balance before the charge, when it can pay `$2` (`also`: more of the FROM list). */
function lockPayingOrganization(also = ""): string {
  return `select id, credits, credits_reference from organizations${also} where id = $1::uuid and credits >= $2 for update of organizations`;
}

const CHARGE_SQL = `with org as (${lockPayingOrganization()}),
  crossing as (${organizationCrossingSql(3, "org", "$2")})
  update organizations set credits = organizations.credits - $2 from org where organizations.id = org.id`;
/**
 * A run's charge: the organization's row stays locked until the charge commits, so every
 * run of an organization queues behind the one before; not waiting for a WAL flush there keeps
 * that queue short. The run's record, flushed, makes the charge durable (NO_FLUSH in src/server/db.ts).
 */
const RUN_CHARGE_SQL = `with no_flush as (${NO_FLUSH}),
  org as (${lockPayingOrganization(", no_flush")}),
  crossing as (${organizationCrossingSql(3, "org", "$2")}),
  lease as (${leaseInsertSql("jsonb_build_object('kind', 'organization', 'organizationId', org.id, 'amount', $2::int)", "org")})
  update organizations set credits = organizations.credits - $2 from org where organizations.id = org.id`;

/** Counts a charge that took its row; throws insufficient_credits when none did. */
function balanceRefusal(amount: number): AppError {
  return new AppError(
    "insufficient_credits",
    `This needs ${amount} credit${amount === 1 ? "" : "s"} and the organization's balance cannot cover it; nothing was charged.`,
  );
}

function confirmCharge(updated: number | null, amount: number): void {
  if (updated !== 1) throw balanceRefusal(amount);
  metrics().creditsSpent.inc(amount);
}

/** Takes `amount` credits, or throws insufficient_credits and takes nothing. */
export async function chargeCredits(db: Executor, organizationId: string, amount: number): Promise<void> {
  if (amount <= 0) return;
  confirmCharge(
    await db.$executeRawUnsafe(CHARGE_SQL, organizationId, amount, ...crossingParams(organizationId)),
    amount,
  );
}

/** Gives back credits taken for a run that did not happen (an upstream failure, a cancel before anything ran). */
export async function refundCredits(db: Executor, organizationId: string, amount: number): Promise<void> {
  if (amount <= 0) return;
  await db.$executeRaw`update organizations set credits = credits + ${amount} where id = ${organizationId}::uuid`;
  metrics().creditsRefunded.inc(amount);
}

// ---- End users' credit pools ----

// An end user's turn or transaction takes 1 credit from one of their active subscriptions with
// room (allowance + bonus − used; the pool that resets soonest first, then the oldest) AND 1 from
// the organization's balance, in one statement. The organization's row is locked first, so
// every end-user charge in an organization is serialized and neither side can be overdrawn;
// a pool whose reset time has passed is reset (creditsUsed 0, reset time moved on by whole
// calendar months) in the same statement, so no scheduled job is needed. Like RUN_CHARGE_SQL it
// does not wait for a WAL flush: it is taken only for a run, whose flushed record follows.

/** The end-user charge's amount comes after its lease's parameters, then the models the run may call. */
const AMOUNT = `$${LEASE_PARAM + 2}::int`;
const MODELS = `$${LEASE_PARAM + 3}::text[]`;
const CHARGE_END_USER_SQL = `
  with no_flush as (${NO_FLUSH}),
  org as (
    select id, credits, credits_reference from organizations, no_flush where id = $1 and credits >= greatest(${AMOUNT}, 1) for update of organizations
  ),
  pool as (
    select s.id, s.end_user_id, s.tier_plan_id, u.email, s.credit_allowance, ${POOL_BONUS_SQL} as bonus, ${POOL_USED_SQL} as used
    from subscriptions s join end_users u on u.id = s.end_user_id
    where s.end_user_id = $2 and u.organization_id = $1 and s.status = 'active'
      and ${POOL_LEFT_SQL} >= greatest(${AMOUNT}, 1)
      and exists (select 1 from org)
      -- A pool whose plan limits models pays only for a run on models it allows.
      and not exists (select 1 from tier_plans p where p.id = s.tier_plan_id and p.allowed_models is not null
        and not p.allowed_models @> to_jsonb(${MODELS}))
    order by ${POOL_NEXT_RESET_SQL}, s.created_at, s.id
    limit 1
    for update of s
  ),
  charged_pool as (
    update subscriptions s set
      credits_used = ${POOL_USED_SQL} + ${AMOUNT},
      bonus_credits = ${POOL_BONUS_SQL},
      credits_reset_at = ${POOL_NEXT_RESET_SQL},
      updated_at = now()
    from pool
    where s.id = pool.id and ${POOL_LEFT_SQL} >= greatest(${AMOUNT}, 1)
    returning s.id
  ),
  charged_org as (
    update organizations set credits = credits - ${AMOUNT} where id in (select id from org) and exists (select 1 from charged_pool) returning id
  ),
  ${poolCrossingCte(3, "pool_crossing", AMOUNT, "exists (select 1 from charged_pool)")},
  org_crossing as (${organizationCrossingSql(3, "org", AMOUNT, `${AMOUNT} > 0 and exists (select 1 from charged_org)`)}),
  lease as (${leaseInsertSql(`jsonb_build_object('kind', 'end_user', 'organizationId', $1::uuid, 'subscriptionId', charged_pool.id, 'amount', ${AMOUNT})`, "charged_pool")})
  select (select id from charged_pool) as subscription_id, exists (select 1 from org) as organization_has_credits`;

/** The pool a charge came from, and how much it took, so a refund gives back exactly that to it. */
export interface EndUserCharge {
  organizationId: string;
  subscriptionId: string;
  amount: number;
}

/**
 * Takes `amount` credits (1 unless the run is priced) from one of the end user's pools and as
 * many from the organization, or throws insufficient_credits and takes nothing. A pool and a
 * balance need at least 1 credit even for a charge of 0 (a priced run whose minimum is 0).
 * With `lease`, the same statement writes the run's lease, recording the amount taken. `models`:
 * those the run may call (but the built-in one); only a pool whose plan allows them all pays.
 */
export async function chargeEndUserCredit(
  db: Db,
  organizationId: string,
  endUserId: string,
  amount = 1,
  lease?: RunLeaseInput,
  models: string[] = [],
): Promise<EndUserCharge> {
  const { rows } = await db.pool.query<{ subscription_id: string | null; organization_has_credits: boolean }>({
    name: "atrium_charge_end_user",
    text: CHARGE_END_USER_SQL,
    values: [organizationId, endUserId, ...crossingParams(organizationId), ...leaseParams(lease), amount, models],
  });
  const row = rows[0];
  if (!row?.subscription_id) {
    throw new AppError(
      "insufficient_credits",
      row?.organization_has_credits
        ? "You have used all your credits. They renew with your plan; until then ask the organization for more. Nothing was charged."
        : "This service has run out of credits for now. Please try again later or contact the organization. Nothing was charged.",
    );
  }
  return { organizationId, subscriptionId: row.subscription_id, amount };
}

/** Gives back a charge for a run that did not happen, to the same pool and the organization. */
// The organization's row first, as in a charge, so a refund and a charge never deadlock.
// `$3`: the amount the charge took (a lease written before charges had amounts took 1).
const REFUND_END_USER_SQL = `with org as (update organizations set credits = credits + coalesce($3::int, 1) where id = $1::uuid returning id)
  update subscriptions s set credits_used = greatest(0, s.credits_used - coalesce($3::int, 1)), updated_at = now()
  from end_users u where s.id = $2::uuid and u.id = s.end_user_id and u.organization_id = $1::uuid and exists (select 1 from org)`;

export async function refundEndUserCredit(db: Db, charge: EndUserCharge): Promise<void> {
  await db.pool.query({
    name: "atrium_refund_end_user",
    text: REFUND_END_USER_SQL,
    values: [charge.organizationId, charge.subscriptionId, charge.amount],
  });
}

/** Resets the pools of these end users whose reset time has passed, so reads show what a charge would see. */
export async function settleCreditResets(db: Db, organizationId: string, endUserIds: string[]): Promise<void> {
  if (endUserIds.length === 0) return;
  await db.pool.query({
    name: "atrium_settle_credit_resets",
    text: `update subscriptions s set ${POOL_RESET_SET_SQL}
           from end_users u
           where u.id = s.end_user_id and u.organization_id = $1 and s.end_user_id = any($2::uuid[]) and ${POOL_RESET_DUE_SQL}`,
    values: [organizationId, endUserIds],
  });
}

/** The end user's active pools, as the portal shows them. */
export async function creditPools(db: Db, organizationId: string, endUserId: string) {
  await settleCreditResets(db, organizationId, [endUserId]);
  const rows = await db.subscription.findMany({
    where: { endUserId, status: "active", endUser: { organizationId } },
    include: {
      tierPlan: {
        select: {
          name: true,
          description: true,
          features: true,
          priceAmount: true,
          priceCurrency: true,
          priceInterval: true,
        },
      },
    },
    orderBy: [{ creditsResetAt: "asc" }, { createdAt: "asc" }, { id: "asc" }],
  });
  const plans = rows.map((row) => ({
    subscriptionId: row.id,
    planName: row.tierPlan.name,
    planDescription: row.tierPlan.description,
    planFeatures: Array.isArray(row.tierPlan.features) ? (row.tierPlan.features as string[]) : [],
    priceAmount: row.tierPlan.priceAmount,
    priceCurrency: row.tierPlan.priceCurrency,
    priceInterval: row.tierPlan.priceInterval === "year" ? ("year" as const) : ("month" as const),
    creditAllowance: row.creditAllowance,
    bonusCredits: row.bonusCredits,
    creditsUsed: row.creditsUsed,
    creditsLeft: creditsLeft(row),
    creditsResetAt: row.creditsResetAt.toISOString(),
  }));
  return { left: plans.reduce((sum, plan) => sum + plan.creditsLeft, 0), plans };
}

/** What a run took, so a refund gives back exactly that. */
export type RunCharge =
  { kind: "organization"; organizationId: string; amount: number } | ({ kind: "end_user" } & EndUserCharge);

/** The pool a run's credit came from, when an end user's did. */
export function chargedPool(charge: RunCharge): string | null {
  return charge.kind === "end_user" ? charge.subscriptionId : null;
}

/**
 * A run's credit: from the organization, or for an end user from one of their pools and the
 * organization. A refusal is counted in usage (src/server/services/runs/usage-records.ts) for the app and portal given.
 */
export async function chargeRunCredit(
  db: Db,
  organizationId: string,
  endUserId: string | null,
  amount: number,
  usage?: { appId: string; portalId: string | null },
  lease?: RunLeaseInput,
  models: string[] = [],
): Promise<RunCharge> {
  try {
    return await takeRunCredit(db, organizationId, endUserId, amount, lease, models);
  } catch (error) {
    if (usage && isAppError(error)) await recordRefusal(db, { organizationId, endUserId, ...usage }, error.code);
    throw error;
  }
}

async function takeRunCredit(
  db: Db,
  organizationId: string,
  endUserId: string | null,
  amount: number,
  lease: RunLeaseInput | undefined,
  models: string[],
): Promise<RunCharge> {
  if (endUserId)
    return { kind: "end_user", ...(await chargeEndUserCredit(db, organizationId, endUserId, amount, lease, models)) };
  // Every run takes it: a prepared statement on the pool.
  if (amount > 0) {
    const charged = await db.pool.query({
      name: "atrium_charge_run_credits",
      text: RUN_CHARGE_SQL,
      values: [organizationId, amount, ...crossingParams(organizationId), ...leaseParams(lease)],
    });
    confirmCharge(charged.rowCount, amount);
  } else if (lease) {
    // Nothing to take before the run (a priced run whose minimum is 0), but it is in flight: its
    // lease lets its settlement know it was not settled as lost meanwhile.
    await db.pool.query({
      name: "atrium_lease_free_run",
      text: `insert into run_leases (id, organization_id, charge, execution, heartbeat_at, created_at)
        values ($1::uuid, $2::uuid, jsonb_build_object('kind', 'organization', 'organizationId', $2::uuid, 'amount', 0), $3::jsonb, now(), now())`,
      values: [lease.id, organizationId, JSON.stringify(lease.execution)],
    });
  }
  return { kind: "organization", organizationId, amount };
}

/**
 * Refuses (insufficient_credits, counted in usage like a refused charge) a run of several cases
 * the organization's balance cannot cover as a whole, before any case runs; takes nothing: each
 * case is then charged as it runs (runtime/graded-case.ts).
 */
export async function assertBalanceCovers(
  db: Db,
  organizationId: string,
  amount: number,
  usage: { appId: string; portalId: string | null },
): Promise<void> {
  const { rows } = await db.pool.query<{ credits: number }>(`select credits from organizations where id = $1::uuid`, [
    organizationId,
  ]);
  if ((rows[0]?.credits ?? 0) >= amount) return;
  const refusal = balanceRefusal(amount);
  await recordRefusal(db, { organizationId, endUserId: null, ...usage }, refusal.code);
  throw refusal;
}

export async function refundRunCredit(db: Db, charge: RunCharge): Promise<void> {
  if (charge.kind === "end_user") await refundEndUserCredit(db, charge);
  else await refundCredits(db, charge.organizationId, charge.amount);
}

/** refundRunCredit within a transaction (settling a lost run, runtime/run-leases.ts): exactly what it took. */
export async function refundRunCreditIn(tx: Executor, charge: RunCharge): Promise<void> {
  if (charge.kind === "end_user")
    await tx.$executeRawUnsafe(REFUND_END_USER_SQL, charge.organizationId, charge.subscriptionId, charge.amount);
  else await refundCredits(tx, charge.organizationId, charge.amount);
}
