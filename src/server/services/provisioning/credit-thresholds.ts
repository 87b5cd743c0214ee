// Thresholds: credits.low and credits.exhausted, announced by the statements that charge
// (credits.ts, credit-settlement.ts) as SQL fragments of their own.
import { eventInsertSql, eventSqlParams } from "../org/events";

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
export function organizationCrossingSql(first: number, org: string, charged: string, condition = "true"): string {
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
export function poolCrossingCte(first: number, name: string, charged: string, condition: string): string {
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
export function crossingParams(organizationId: string): unknown[] {
  return eventSqlParams({ kind: "system", organizationId });
}
