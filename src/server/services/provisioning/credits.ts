// Credits: one balance per organization, spent atomically (a single conditional UPDATE), so
// concurrent spenders in any number of processes can never take it below zero.
import { NO_FLUSH, type Db } from "@/server/db";
import { AppError, isAppError } from "@/server/errors";
import { logger } from "@/server/observability/log";
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
import { eventInsertSql, eventSqlParams } from "../org/events";
import { recordRefusal } from "../runs/run-refusals";

/** A Prisma client or an interactive transaction over it. */
type Executor = Pick<Db, "$executeRaw" | "$executeRawUnsafe">;

// ---- Thresholds: credits.low and credits.exhausted ----

// A charge that takes a balance across a threshold announces it, in the charge's own statement
// (a CTE inserting the event, src/server/services/org/events.ts), so it is announced once per
// crossing whatever the number of processes charging: the charge that crosses is the one that
// sees the balance on both sides. `credits.low`: under 10% of the organization's reference (the
// balance as the operator last set it) or of a pool's allowance and bonus; `credits.exhausted`: 0.

/** The columns eventInsertSql() selects, for a balance `left` after a charge of `charged` out of `whole`. */
function crossingColumns(
  left: string,
  targetType: string,
  targetId: string,
  targetLabel: string,
  data: string,
): string {
  const action = `case when ${left} = 0 then 'credits.exhausted' else 'credits.low' end`;
  return `${action}, '${targetType}', ${targetId}, ${targetLabel}, ${action}, ${data}`;
}

// In bigint: ten times a balance above 214,748,364 credits does not fit an integer column's type.
function crossed(left: string, charged: string, whole: string): string {
  return `(${left} = 0 or ((${left})::bigint * 10 < ${whole} and ((${left})::bigint + ${charged}) * 10 >= ${whole}))`;
}

/**
 * Events for an organization's balance (`org`: id, credits before the charge, credits_reference)
 * charged `charged`, when `condition` holds (the charge happened).
 */
function organizationCrossingSql(first: number, org: string, charged: string, condition = "true"): string {
  const left = `(${org}.credits - ${charged})`;
  const data = `jsonb_build_object('object', 'organization_credits', 'organizationId', ${org}.id, 'credits', ${left}, 'reference', ${org}.credits_reference)`;
  return eventInsertSql(
    first,
    crossingColumns(left, "organization", `${org}.id::text`, "'credits'", data),
    `${org} where ${condition} and ${crossed(left, charged, `${org}.credits_reference`)}`,
  );
}

/**
 * The CTE `name` announcing a pool's crossing: `p` is the pool's row before the charge (id,
 * end_user_id, tier_plan_id, email, credit_allowance, bonus, used), charged `charged` when
 * `condition` holds.
 */
function poolCrossingCte(first: number, name: string, charged: string, condition: string): string {
  const left = `(p.credit_allowance + p.bonus - p.used - ${charged})`;
  const data = `jsonb_build_object('object', 'credit_pool', 'subscriptionId', p.id, 'endUserId', p.end_user_id, 'tierPlanId', p.tier_plan_id,
        'creditAllowance', p.credit_allowance, 'bonusCredits', p.bonus, 'creditsUsed', p.used + ${charged}, 'creditsLeft', ${left})`;
  return `${name} as (${eventInsertSql(
    first,
    crossingColumns(left, "subscription", "p.id::text", "p.email", data),
    `pool p where ${condition} and ${charged} > 0 and ${crossed(left, charged, "(p.credit_allowance + p.bonus)")}`,
  )})`;
}

/** Params of the threshold events: the installation itself acts. */
function crossingParams(organizationId: string): unknown[] {
  return eventSqlParams({ kind: "system", organizationId });
}

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

// ---- Settling a priced run ----

// A leased run's settlement changes its charge and the amount its lease records in one
// statement, so a run lost after it (runtime/run-leases.ts) is given back exactly what it was
// charged. The lease's row is locked before the organization's (as a lost run's settlement
// does), and a run settled as lost meanwhile (its lease gone) is not settled again: nothing
// is taken or given back. Without a lease `held` is true. Like RUN_CHARGE_SQL, these statements
// hold the organization's row and do not wait for a WAL flush: the run's record, flushed, follows
// its settlement, and a reservation lost with PostgreSQL loses its lease's raise with it.

/** The lease's row locked, when the run has one (`$n`: its id, or null); `held`: whether the run may be settled. */
function heldLeaseSql(n: number): string {
  return `lease as (select id from run_leases where id = $${n}::uuid for update),
  held as (select $${n}::uuid is null or exists (select 1 from lease) as held)`;
}

/** The lease's recorded amount moved by `delta` (an expression over `from`). */
function leasedAmountSql(n: number, delta: string, from: string): string {
  return `update run_leases l set charge = jsonb_set(l.charge, '{amount}', to_jsonb(coalesce((l.charge->>'amount')::int, 1) + ${delta}))
    from ${from} where l.id = $${n}::uuid`;
}

/**
 * A priced run's extra credits, taken after it ran from the organization and the pool that paid
 * its upfront charge: as much of `extra` as both can give (the run has happened; reservations,
 * which take a call's ceiling before it runs, come next). Organization row first, as in a charge.
 * Parameters: organization, extra, pool (or null), the crossing events' ($4–$12), lease (or null).
 */
const TAKE_EXTRA_LEASE = 4 + crossingParams("").length;
const TAKE_EXTRA_SQL = `
  with no_flush as (${NO_FLUSH}), ${heldLeaseSql(TAKE_EXTRA_LEASE)},
  org as (select id, credits, credits_reference from organizations, no_flush where id = $1::uuid and (select held from held) for update of organizations),
  pool as (
    select s.id, greatest(0, ${POOL_LEFT_SQL}) as room from subscriptions s join end_users u on u.id = s.end_user_id
    where s.id = $3::uuid and u.organization_id = $1::uuid and (select held from held) for update of s
  ),
  taken as (
    select least($2::int, greatest(0, org.credits), coalesce((select room from pool), case when $3::uuid is null then $2::int else 0 end)) as n
    from org
  ),
  charged_pool as (
    update subscriptions s set credits_used = ${POOL_USED_SQL} + taken.n, bonus_credits = ${POOL_BONUS_SQL},
      credits_reset_at = ${POOL_NEXT_RESET_SQL}, updated_at = now()
    from taken where s.id = $3::uuid and taken.n > 0
  ),
  crossing as (${organizationCrossingSql(4, "org", "(select n from taken)", "(select n from taken) > 0")}),
  charged_org as (
    update organizations o set credits = o.credits - taken.n from taken where o.id = $1::uuid and taken.n > 0
  ),
  leased as (${leasedAmountSql(TAKE_EXTRA_LEASE, "taken.n", "taken")} and taken.n > 0)
  select coalesce((select n from taken), 0) as n, (select held from held) as held`;

/**
 * A priced run's reservation raised before a model call (runtime/billed-run.ts): `$2` more credits
 * taken from the organization and the pool that paid its upfront charge, all or nothing (each
 * row is taken only when it holds them, under its lock, so concurrent runs in any process never
 * overdraw), and the lease's recorded amount raised in the same statement. Parameters:
 * organization, extra, pool (or null), the crossing events' ($4–$12), lease (or null).
 */
const RESERVE_SQL = `
  with no_flush as (${NO_FLUSH}), ${heldLeaseSql(TAKE_EXTRA_LEASE)},
  org as (select id, credits, credits_reference from organizations, no_flush where id = $1::uuid and credits >= $2::int and (select held from held) for update of organizations),
  pool as (
    select s.id, s.end_user_id, s.tier_plan_id, u.email, s.credit_allowance, ${POOL_BONUS_SQL} as bonus, ${POOL_USED_SQL} as used
    from subscriptions s join end_users u on u.id = s.end_user_id
    where s.id = $3::uuid and u.organization_id = $1::uuid and ${POOL_LEFT_SQL} >= $2::int and exists (select 1 from org)
    for update of s
  ),
  ok as (select exists (select 1 from org) and ($3::uuid is null or exists (select 1 from pool)) as ok),
  charged_pool as (
    update subscriptions s set credits_used = ${POOL_USED_SQL} + $2::int, bonus_credits = ${POOL_BONUS_SQL},
      credits_reset_at = ${POOL_NEXT_RESET_SQL}, updated_at = now()
    from pool where s.id = pool.id and (select ok from ok)
  ),
  ${poolCrossingCte(4, "pool_crossing", "$2::int", "(select ok from ok)")},
  crossing as (${organizationCrossingSql(4, "org", "$2::int", "(select ok from ok)")}),
  charged_org as (update organizations o set credits = o.credits - $2::int from org where o.id = org.id and (select ok from ok)),
  leased as (${leasedAmountSql(TAKE_EXTRA_LEASE, "$2::int", "ok")} and ok.ok)
  select (select ok from ok) as ok, (select held from held) as held`;

/**
 * Raises a leased run's charge to `credits` before a priced model call (its reservation), or
 * throws insufficient_credits and takes nothing. Answers the charge as it now stands, or null when
 * the lease is gone (the run was settled as lost meanwhile) and nothing was taken.
 */
export async function reserveRunCredits(
  db: Db,
  charge: RunCharge,
  credits: number,
  leaseId: string | null,
): Promise<RunCharge | null> {
  const extra = credits - charge.amount;
  if (extra <= 0) return charge;
  const { rows } = await db.pool.query<{ ok: boolean; held: boolean }>({
    name: "atrium_reserve_run_credits",
    text: RESERVE_SQL,
    values: [charge.organizationId, extra, chargedPool(charge), ...crossingParams(charge.organizationId), leaseId],
  });
  if (!rows[0]?.held) return null;
  if (!rows[0].ok)
    throw new AppError(
      "insufficient_credits",
      `The next model call needs ${extra} more credit${extra === 1 ? "" : "s"} reserved than ${charge.kind === "end_user" ? "your credits or the organization's balance" : "the organization's balance"} can hold; it was not made.`,
    );
  metrics().creditsSpent.inc(extra);
  return { ...charge, amount: credits };
}

/**
 * What a leased run's recorded model calls cost so far (at most what it reserved): what it is
 * charged if it is lost (runtime/run-leases.ts), the rest of its reservation given back.
 */
export async function recordLeasedCost(db: Db, leaseId: string, cost: number): Promise<void> {
  await db.pool.query({
    name: "atrium_record_leased_cost",
    text: `update run_leases set charge = jsonb_set(charge, '{cost}', to_jsonb($2::int)) where id = $1::uuid`,
    values: [leaseId, cost],
  });
}

/**
 * Part of a priced run's charge given back (it cost less than its upfront charge), to the pool
 * that paid it and the organization. Parameters: organization, amount, pool (or null), lease (or null).
 */
const GIVE_BACK_SQL = `
  with no_flush as (${NO_FLUSH}), ${heldLeaseSql(4)},
  org as (update organizations set credits = credits + $2::int from no_flush where id = $1::uuid and (select held from held) returning id),
  pool as (
    update subscriptions s set credits_used = greatest(0, s.credits_used - $2::int), updated_at = now()
    from end_users u where s.id = $3::uuid and u.id = s.end_user_id and u.organization_id = $1::uuid and exists (select 1 from org)
  ),
  leased as (${leasedAmountSql(4, "(-$2::int)", "lease")})
  select (select held from held) as held`;

/**
 * Brings a run's charge from what it took to `credits`: gives back the difference, or takes the
 * extra (as much as is left), and with `leaseId` updates what the run's lease records in the same
 * statement. Answers the charge as it now stands, or null when the lease is gone: the run was
 * settled as lost (given back what it took, recorded failed), and nothing more was taken or given.
 */
export async function settleRunCharge(
  db: Db,
  charge: RunCharge,
  credits: number,
  leaseId: string | null = null,
): Promise<RunCharge | null> {
  const difference = credits - charge.amount;
  if (difference === 0) return charge;
  if (difference < 0) {
    const { rows } = await db.pool.query<{ held: boolean }>({
      name: "atrium_give_back_credits",
      text: GIVE_BACK_SQL,
      values: [charge.organizationId, -difference, chargedPool(charge), leaseId],
    });
    if (!rows[0]?.held) return null;
    if (charge.kind === "organization") metrics().creditsRefunded.inc(-difference);
    return { ...charge, amount: credits };
  }
  const { rows } = await db.pool.query<{ n: number; held: boolean }>({
    name: "atrium_take_extra_credits",
    text: TAKE_EXTRA_SQL,
    values: [charge.organizationId, difference, chargedPool(charge), ...crossingParams(charge.organizationId), leaseId],
  });
  if (!rows[0]?.held) return null;
  const taken = rows[0].n;
  if (taken > 0) metrics().creditsSpent.inc(taken);
  if (taken < difference)
    logger().warn(
      { organizationId: charge.organizationId, owed: difference, taken },
      "A priced run cost more than the balance or pool had left; the rest was not charged",
    );
  return { ...charge, amount: charge.amount + taken };
}
