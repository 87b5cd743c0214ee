// Settling a priced run's charge: its reservation raised before a model call, the cost of its
// calls recorded on its lease, and the charge brought to what the run cost when it ends.
import { NO_FLUSH, type Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { logger } from "@/server/observability/log";
import { metrics } from "@/server/observability/metrics";
import { POOL_BONUS_SQL, POOL_LEFT_SQL, POOL_NEXT_RESET_SQL, POOL_USED_SQL } from "../support/credit-pool";
import { crossingParams, organizationCrossingSql, poolCrossingCte } from "./credit-thresholds";
import { chargedPool, type RunCharge } from "./credits";

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

/**
 * The lease's recorded amount moved by `delta` (an expression over `from`), and with `$cost` (not
 * null) what the run's recorded calls cost, which the billed run writes with its next statement
 * instead of one of its own (runtime/billed-run.ts).
 */
function leasedChargeSql(n: number, delta: string, from: string, cost: number): string {
  const moved = `jsonb_set(l.charge, '{amount}', to_jsonb(coalesce((l.charge->>'amount')::int, 1) + ${delta}))`;
  return `update run_leases l set charge = case when $${cost}::int is null then ${moved} else jsonb_set(${moved}, '{cost}', to_jsonb($${cost}::int)) end
    from ${from} where l.id = $${n}::uuid`;
}

/**
 * A priced run's extra credits, taken after it ran from the organization and the pool that paid
 * its upfront charge: as much of `extra` as both can give (the run has happened; reservations,
 * which take a call's ceiling before it runs, come next). Organization row first, as in a charge.
 * Parameters: organization, extra, pool (or null), the crossing events' ($4–$12), lease (or null),
 * the recorded calls' cost (or null).
 */
const TAKE_EXTRA_LEASE = 4 + crossingParams("").length;
const LEASED_COST = TAKE_EXTRA_LEASE + 1;
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
  leased as (${leasedChargeSql(TAKE_EXTRA_LEASE, "taken.n", "taken", LEASED_COST)} and (taken.n > 0 or $${LEASED_COST}::int is not null))
  select coalesce((select n from taken), 0) as n, (select held from held) as held`;

/**
 * A priced run's reservation raised before a model call (runtime/billed-run.ts): `$2` more credits
 * taken from the organization and the pool that paid its upfront charge, all or nothing (each
 * row is taken only when it holds them, under its lock, so concurrent runs in any process never
 * overdraw), and the lease's recorded amount raised in the same statement (with the recorded
 * calls' cost, given or not). Parameters: organization, extra, pool (or null), the crossing
 * events' ($4–$12), lease (or null), the recorded calls' cost (or null).
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
  leased as (
    ${leasedChargeSql(TAKE_EXTRA_LEASE, "case when ok.ok then $2::int else 0 end", "ok", LEASED_COST)}
    and (ok.ok or $${LEASED_COST}::int is not null)
  )
  select (select ok from ok) as ok, (select held from held) as held`;

/**
 * Raises a leased run's charge to `credits` before a priced model call (its reservation), or
 * throws insufficient_credits and takes nothing. `cost`, when given, is written on the lease as
 * what the run's recorded calls cost, refused or not. Answers the charge as it now stands, or null
 * when the lease is gone (the run was settled as lost meanwhile) and nothing was taken.
 */
export async function reserveRunCredits(
  db: Db,
  charge: RunCharge,
  credits: number,
  leaseId: string | null,
  cost: number | null = null,
): Promise<RunCharge | null> {
  const extra = credits - charge.amount;
  if (extra <= 0) return charge;
  const { rows } = await db.pool.query<{ ok: boolean; held: boolean }>({
    name: "atrium_reserve_run_credits",
    text: RESERVE_SQL,
    values: [
      charge.organizationId,
      extra,
      chargedPool(charge),
      ...crossingParams(charge.organizationId),
      leaseId,
      cost,
    ],
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
 * that paid it and the organization. Parameters: organization, amount, pool (or null), lease (or
 * null), the recorded calls' cost (or null).
 */
const GIVE_BACK_SQL = `
  with no_flush as (${NO_FLUSH}), ${heldLeaseSql(4)},
  org as (update organizations set credits = credits + $2::int from no_flush where id = $1::uuid and (select held from held) returning id),
  pool as (
    update subscriptions s set credits_used = greatest(0, s.credits_used - $2::int), updated_at = now()
    from end_users u where s.id = $3::uuid and u.id = s.end_user_id and u.organization_id = $1::uuid and exists (select 1 from org)
  ),
  leased as (${leasedChargeSql(4, "(-$2::int)", "lease", 5)})
  select (select held from held) as held`;

/**
 * Brings a run's charge from what it took to `credits`: gives back the difference, or takes the
 * extra (as much as is left), and with `leaseId` updates what the run's lease records in the same
 * statement, with `cost` (when given) as what its recorded calls cost. Answers the charge as it
 * now stands, or null when the lease is gone: the run was settled as lost (given back what it
 * took, recorded failed), and nothing more was taken or given.
 */
export async function settleRunCharge(
  db: Db,
  charge: RunCharge,
  credits: number,
  leaseId: string | null = null,
  cost: number | null = null,
): Promise<RunCharge | null> {
  const difference = credits - charge.amount;
  if (difference === 0) {
    if (leaseId && cost !== null) await recordLeasedCost(db, leaseId, cost);
    return charge;
  }
  if (difference < 0) {
    const { rows } = await db.pool.query<{ held: boolean }>({
      name: "atrium_give_back_credits",
      text: GIVE_BACK_SQL,
      values: [charge.organizationId, -difference, chargedPool(charge), leaseId, cost],
    });
    if (!rows[0]?.held) return null;
    if (charge.kind === "organization") metrics().creditsRefunded.inc(-difference);
    return { ...charge, amount: credits };
  }
  const { rows } = await db.pool.query<{ n: number; held: boolean }>({
    name: "atrium_take_extra_credits",
    text: TAKE_EXTRA_SQL,
    values: [
      charge.organizationId,
      difference,
      chargedPool(charge),
      ...crossingParams(charge.organizationId),
      leaseId,
      cost,
    ],
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
