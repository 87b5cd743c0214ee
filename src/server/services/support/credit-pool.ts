// The credit-pool rules as SQL fragments and one function, read by every statement that charges,
// settles, grants to or shows an end user's pool (credits.ts, credit-settlement.ts,
// end-user-reads.ts, credit-requests.ts, usage-records.ts, effective-access.ts), so the rules are
// written once. A pool whose reset time has passed counts as reset (nothing used, bonus credits
// gone) until a statement writes the reset, which moves its reset time on by whole calendar months.

/** A pool's credits used, as of now (alias `s` is the subscription). */
export const POOL_USED_SQL = "(case when s.credits_reset_at <= now() then 0 else s.credits_used end)";
/** A pool's bonus credits, as of now: they stay until the pool resets. */
export const POOL_BONUS_SQL = "(case when s.credits_reset_at <= now() then 0 else s.bonus_credits end)";
/** A pool's reset time, as of now (alias `s`): moved on by whole calendar months once it has passed. */
export const POOL_NEXT_RESET_SQL = "credits_reset_after(s.credits_reset_at, now())";
/** A pool's credits left, as of now (alias `s`): creditsLeft() in SQL, before it is clamped at 0. */
export const POOL_LEFT_SQL = `(s.credit_allowance + ${POOL_BONUS_SQL} - ${POOL_USED_SQL})`;
/** The SET list that resets a pool (alias `s`). */
export const POOL_RESET_SET_SQL = `credits_used = 0, bonus_credits = 0, credits_reset_at = ${POOL_NEXT_RESET_SQL}, updated_at = now()`;
/** Whether a pool's reset is due (alias `s`). */
export const POOL_RESET_DUE_SQL = "s.credits_reset_at <= now()";

/** Credits left in a pool that has been settled (read after its reset was written). */
export function creditsLeft(pool: { creditAllowance: number; bonusCredits: number; creditsUsed: number }): number {
  return Math.max(0, pool.creditAllowance + pool.bonusCredits - pool.creditsUsed);
}
