// An end user's credit ledger, read from what is already stored: each charge is a run of theirs
// (executions: its credits, status and what ran), each bonus the audit event that gave it, and
// each reset a boundary of the pool's monthly schedule since the subscription last started
// (credits_reset_at, moved by whole calendar months, credit-pool.ts), up to now or its cancellation.
import type { CreditLedgerEntry, CreditLedgerInput } from "@/schemas/provisioning/credits";
import type { BonusNotice } from "@/schemas/portal/portal";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { builderItemNames } from "../support/item-names";

interface LedgerRow {
  kind: "charge" | "bonus" | "reset";
  at: Date;
  credits: number | null;
  plan_name: string | null;
  execution_id: string | null;
  item_id: string | null;
  status: string | null;
  reason: string | null;
  by: string | null;
}

/**
 * Newest first, the last `$3` of each kind merged. `$1` organization, `$2` end user. A subscription
 * "starts" at its last `subscription.create` or `subscription.link` event (a renewal starts a new
 * schedule), else when it was made; a canceled one's resets end at its last cancellation.
 */
const LEDGER_SQL = `
  with owner as (select id from end_users where id = $2::uuid and organization_id = $1::uuid),
  subs as (
    select s.id, s.status, s.credits_reset_at, s.created_at, s.updated_at, p.name as plan_name
    from subscriptions s join tier_plans p on p.id = s.tier_plan_id
    where s.end_user_id in (select id from owner) and p.organization_id = $1::uuid
  ),
  charges as (
    select 'charge' as kind, e.created_at as at, -e.credits as credits, null::text as plan_name, e.id as execution_id,
      e.item_id, e.status, null::text as reason, null::text as by
    from executions e
    where e.organization_id = $1::uuid and e.end_user_id in (select id from owner) and e.credits > 0
    order by e.created_at desc, e.id desc limit $3
  ),
  bonuses as (
    select 'bonus', a.occurred_at, nullif(regexp_replace(a.changes->'bonusCredits'->>1, '[^0-9]', '', 'g'), '')::int,
      s.plan_name, null::uuid, null::uuid, null::text, a.changes->'reason'->>1, a.actor_label
    from audit_events a join subs s on a.target_id = s.id::text
    where a.organization_id = $1::uuid and a.target_type = 'subscription' and a.action = 'subscription.bonus_credits'
      and a.outcome = 'success'
    order by a.occurred_at desc limit $3
  ),
  spans as (
    select s.*,
      coalesce((select max(a.occurred_at) from audit_events a where a.organization_id = $1::uuid and a.target_type = 'subscription'
        and a.target_id = s.id::text and a.action in ('subscription.create', 'subscription.link')), s.created_at) as started,
      case when s.status = 'active' then now() else coalesce((select max(a.occurred_at) from audit_events a
        where a.organization_id = $1::uuid and a.target_type = 'subscription' and a.target_id = s.id::text
          and a.action = 'subscription.cancel'), s.updated_at) end as until
    from subs s
  ),
  resets as (
    select 'reset', b.at, null::int, s.plan_name, null::uuid, null::uuid, null::text, null::text, null::text
    from spans s
    cross join lateral generate_series(-120, 120) k
    cross join lateral (select ((s.credits_reset_at at time zone 'UTC') + make_interval(months => k)) at time zone 'UTC' as at) b
    where b.at > s.started + interval '1 minute' and b.at <= s.until
    order by b.at desc limit $3
  )
  select l.* from (
    select * from charges union all select * from bonuses union all select * from resets
  ) l order by l.at desc limit $3`;

/** Every charge, bonus and reset of an end user's credits, newest first (the last `limit`). */
export const creditLedger = guarded(
  { scope: "end_users:read" },
  async function creditLedger(
    db: Db,
    actor: Actor,
    input: CreditLedgerInput,
  ): Promise<{ entries: CreditLedgerEntry[] }> {
    const found = await db.endUser.count({
      where: { id: input.endUserId, organizationId: actor.organizationId, deletedAt: null },
    });
    if (!found) throw new AppError("not_found", "No end user with that id.");
    const rows = await db.$queryRawUnsafe<LedgerRow[]>(LEDGER_SQL, actor.organizationId, input.endUserId, input.limit);
    const names = await builderItemNames(
      db,
      actor.organizationId,
      rows.flatMap((row) => (row.item_id ? [row.item_id] : [])),
    );
    return {
      entries: rows.map((row) => ({
        kind: row.kind,
        at: row.at.toISOString(),
        credits: row.credits,
        planName: row.plan_name,
        executionId: row.execution_id,
        itemName: row.item_id ? (names.get(row.item_id) ?? null) : null,
        status: row.status,
        reason: row.reason,
        by: row.by,
      })),
    };
  },
);

/**
 * Bonus credits given to an end user since they last dismissed the notice (the last 5), read
 * from the same audit events as the ledger: the portal tells them on their next visit.
 */
export async function unseenBonuses(db: Db, endUser: { organizationId: string; id: string }): Promise<BonusNotice[]> {
  const rows = await db.$queryRaw<{ credits: number | null; plan_name: string; reason: string | null; at: Date }[]>`
    select nullif(regexp_replace(a.changes->'bonusCredits'->>1, '[^0-9]', '', 'g'), '')::int as credits,
      p.name as plan_name, a.changes->'reason'->>1 as reason, a.occurred_at as at
    from end_users u
    join subscriptions s on s.end_user_id = u.id
    join tier_plans p on p.id = s.tier_plan_id
    join audit_events a on a.organization_id = u.organization_id and a.target_type = 'subscription'
      and a.target_id = s.id::text and a.action = 'subscription.bonus_credits' and a.outcome = 'success'
    where u.id = ${endUser.id}::uuid and u.organization_id = ${endUser.organizationId}::uuid
      and a.occurred_at > coalesce(u.bonus_seen_at, '-infinity'::timestamptz)
    order by a.occurred_at desc
    limit 5`;
  return rows.flatMap((row) =>
    row.credits === null
      ? []
      : [{ credits: row.credits, planName: row.plan_name, reason: row.reason, at: row.at.toISOString() }],
  );
}

/** The end user read the notice: bonuses given until now are not announced again. */
export async function dismissBonusNotices(db: Db, endUser: { organizationId: string; id: string }): Promise<void> {
  await db.$executeRaw`update end_users set bonus_seen_at = now()
    where id = ${endUser.id}::uuid and organization_id = ${endUser.organizationId}::uuid`;
}
