// End users: provisioning (idempotent on email, all-or-nothing). Reading them, changing them and
// their subscriptions are in the end-user-*.ts files beside this one.
import type {
  GrantInput,
  ProvisionEndUserInput,
  ProvisionEndUserOutput,
  Subscription,
} from "@/schemas/provisioning/provisioning";
import { channelOf, type Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type pg from "pg";
import { refuseMissingGrantTargets } from "../support/grants";
import { normalizeEmail } from "../identity/members";
import { eventInsertSql, eventSqlActorParams } from "../org/events";
import { isoUtc } from "../support/sql-json";
import { subscriptionsUpsert } from "./end-user-subscriptions";
import { noLivePlan } from "./tier-plans";
import { groupsDisabled } from "./user-groups";

function provisionedBy(actor: Actor): "api" | "console" {
  return actor.kind === "key" ? "api" : "console";
}

function grantKey(grant: Pick<GrantInput, "targetKind" | "targetId" | "deploymentId">): string {
  return `${grant.targetKind}:${grant.targetId}:${grant.deploymentId ?? ""}`;
}

/** A grant as the audit log shows it, from a row `g` of grants (or of the rows just inserted). */
const GRANT_JSON = `jsonb_build_object('targetKind', g.target_kind, 'targetId', g.target_id, 'effect', g.effect,
  'deploymentId', g.deployment_id, 'expiresAt', ${isoUtc("g.expires_at")})`;

/**
 * The CTE `account_changes` of PROVISION_SQL: what the call changed on the account, as
 * `{field: [before, after]}` (before is null for a new account), or `{}` when it changed nothing.
 * The statement's snapshot still holds the account's subscriptions, groups and grants as they
 * were, so "before" is read from the tables and "after" adds what this statement wrote. Each set
 * is read only when the call added to it.
 */
const ACCOUNT_CHANGES_SQL = `account_changes as (
    select coalesce((
      select jsonb_object_agg(f.field, f.change) from (values
        ('fullName', case
          when u.created then case when $3::text is not null then jsonb_build_array(null, u.full_name) end
          when u.full_name is distinct from u.full_name_before then jsonb_build_array(u.full_name_before, u.full_name) end),
        ('revokedAt', case when u.revoked_at_before is not null then jsonb_build_array(${isoUtc("u.revoked_at_before")}, null) end),
        ('tierPlanIds', case when exists (select 1 from subs) then (
          select jsonb_build_array(case when u.created then null else to_jsonb(b.ids) end,
            to_jsonb(array(select distinct x from unnest(b.ids || array(select tier_plan_id::text from subs)) x order by 1)))
          from (select array(select s.tier_plan_id::text from subscriptions s
                             where s.end_user_id = u.id and s.status = 'active' order by 1) as ids) b) end),
        ('groupIds', case when exists (select 1 from memberships) then (
          select jsonb_build_array(case when u.created then null else to_jsonb(b.ids) end,
            to_jsonb(array(select distinct x from unnest(b.ids || array(select group_id::text from memberships)) x order by 1)))
          from (select array(select m.group_id::text from group_members m where m.end_user_id = u.id order by 1) as ids) b) end),
        ('grants', case when exists (select 1 from granted) then (
          select jsonb_build_array(case when u.created then null else b.list end,
            b.list || (select jsonb_agg(${GRANT_JSON} order by g.created_at, g.id) from granted g))
          from (select coalesce((select jsonb_agg(${GRANT_JSON} order by g.created_at, g.id) from grants g where g.end_user_id = u.id), '[]') as list) b) end)
      ) as f(field, change)
      where f.change is not null), '{}'::jsonb) as changes
    from u
  )`;

/**
 * Provisioning as one statement, so that it applies entirely or not at all and costs one round
 * trip whatever the request holds. `existing` locks the account the email names (if any), so what
 * it reads is what the call changes: the true "before" of the audit event. `checked` is
 * everything the checks read: the organization's access settings, the existing account (deleted?
 * paid plans?), and which of the named plans, groups, apps and portals exist in the organization.
 * `allowed` holds a row only when no check refuses (the same checks, in SQL, as
 * refuseProvisioning() below, which names the refusal), and everything else writes from it: the
 * account (inserted; or updated in place, restored if revoked, only when the call changes it; a
 * deleted one matches nothing and so nothing else is written), its subscriptions (new, or
 * canceled ones renewed with a fresh pool; active ones untouched), plan groups and groups, grants
 * (duplicates skipped) and the audit events: one for the account when anything changed, with the
 * fields that did and their before and after, and one per subscription started. A new email
 * another call created after this statement's snapshot inserts nothing (`raced`): the caller runs
 * the statement again, which then finds it. Ids arrive as text and are compared as text, as the
 * API gives them out.
 */
const PROVISION_SQL = `
  with existing as (
    select e.id, e.email, e.full_name, e.auth_method, e.email_verified_at, e.revoked_at, e.last_seen_at, e.created_at, e.deleted_at
    from end_users e where e.organization_id = $1 and e.email = $2
    for no key update
  ),
  checked as (
    select o.access_mode::text as access_mode, o.groups_enabled,
      e.deleted_at is not null as deleted,
      array(select s.tier_plan_id::text from subscriptions s
            where s.end_user_id = e.id and s.provisioned_by = 'processor' and s.status = 'active' and s.tier_plan_id = any($4::text[]::uuid[])) as paid_plans,
      array(select p.id::text from tier_plans p where p.organization_id = o.id and p.id = any($4::text[]::uuid[]) and p.archived_at is null) as plans,
      array(select g.id::text from user_groups g where g.organization_id = o.id and g.id = any($6::text[]::uuid[])) as groups,
      array(select p.group_id::text from tier_plans p where p.organization_id = o.id and p.group_id = any($6::text[]::uuid[])) as plan_groups,
      array(select g.id::text from user_groups g where g.organization_id = o.id and g.directory_managed and g.id = any($6::text[]::uuid[])) as directory_groups,
      array(select b.id::text from builder_items b where b.organization_id = o.id and b.kind = 'app' and b.id = any($9::text[]::uuid[])) as apps,
      array(select t.id::text from portals t where t.organization_id = o.id and t.id = any($11::text[]::uuid[])) as portals
    from organizations o
    left join existing e on true
    where o.id = $1
  ),
  allowed as (
    select from checked c
    where not coalesce(c.deleted, false)
      and (cardinality($8::text[]) = 0 or c.access_mode <> 'groups')
      and $4::text[] <@ c.plans
      and (cardinality($6::text[]) = 0 or c.groups_enabled)
      and $6::text[] <@ c.groups
      and cardinality(c.plan_groups) = 0
      and cardinality(c.directory_groups) = 0
      and $9::text[] <@ c.apps
      and array_remove($11::text[], null) <@ c.portals
      and cardinality(c.paid_plans) = 0
  ),
  kept as (
    select e.*, (e.revoked_at is not null or e.full_name is distinct from coalesce($3, e.full_name)) as changed
    from existing e, allowed where e.deleted_at is null
  ),
  inserted as (
    insert into end_users (id, organization_id, email, full_name, created_at, updated_at)
    select gen_random_uuid(), $1, $2, coalesce($3, ''), now(), now() from allowed
    where not exists (select 1 from existing)
    on conflict (organization_id, email) do nothing
    returning id, email, full_name, auth_method, email_verified_at, revoked_at, last_seen_at, created_at
  ),
  updated as (
    update end_users set revoked_at = null, full_name = coalesce($3, end_users.full_name), updated_at = now()
    from kept k where end_users.id = k.id and k.changed
    returning end_users.id, end_users.full_name
  ),
  u as (
    select i.id, i.email, i.full_name, i.auth_method, i.email_verified_at, i.revoked_at, i.last_seen_at, i.created_at,
      true as created, null::text as full_name_before, null::timestamptz as revoked_at_before
    from inserted i
    union all
    select k.id, k.email, coalesce(d.full_name, k.full_name), k.auth_method, k.email_verified_at, null, k.last_seen_at, k.created_at,
      false, k.full_name, k.revoked_at
    from kept k left join updated d on d.id = k.id
  ),
  plans as (
    select p.id, p.name, p.credit_allowance, p.group_id from tier_plans p
    where p.organization_id = $1 and p.id = any($4::text[]::uuid[]) and p.archived_at is null
  ),
  subs as (${subscriptionsUpsert("(select u.id as end_user_id, plans.id as tier_plan_id, plans.credit_allowance from u, plans)", '$5::"ProvisionedBy"', "true")}
    returning id, tier_plan_id, credit_allowance, credits_used, credits_reset_at, created_at, (xmax = 0) as created
  ),
  memberships as (
    insert into group_members (group_id, end_user_id, added_at)
    select g.id, u.id, now() from u, (select unnest($6::text[]::uuid[]) as id union select group_id from plans where group_id is not null) g
    on conflict do nothing
    returning group_id
  ),
  granted as (
    insert into grants (id, organization_id, end_user_id, target_kind, target_id, effect, deployment_id, source, expires_at, created_at)
    select gen_random_uuid(), $1, u.id, x.kind, x.target, x.effect, x.deployment, $7, x.expires, now()
    from u, unnest($8::text[], $9::text[]::uuid[], $10::text[], $11::text[]::uuid[], $12::timestamptz[]) as x(kind, target, effect, deployment, expires)
    on conflict do nothing
    returning target_kind, target_id, effect, deployment_id, expires_at, created_at, id
  ),
  ${ACCOUNT_CHANGES_SQL},
  recorded as (${eventInsertSql(
    13,
    `case when u.created then 'end_user.create' else 'end_user.update' end, 'end_user', u.id::text, u.email,
      case when u.created then 'end_user.created' else 'end_user.updated' end,
      json_build_object('id', u.id, 'email', u.email, 'fullName', u.full_name, 'authMethod', u.auth_method, 'emailVerifiedAt', ${isoUtc("u.email_verified_at")},
        'revokedAt', ${isoUtc("u.revoked_at")}, 'lastSeenAt', ${isoUtc("u.last_seen_at")}, 'createdAt', ${isoUtc("u.created_at")})::jsonb`,
    "u, account_changes c where u.created or c.changes <> '{}'::jsonb",
    "c.changes",
  )}
  ),
  recorded_subscriptions as (${eventInsertSql(
    13,
    `'subscription.create', 'subscription', s.id::text, u.email, 'subscription.created',
      json_build_object('id', s.id, 'endUserId', u.id, 'tierPlanId', s.tier_plan_id, 'status', 'active', 'creditAllowance', s.credit_allowance,
        'creditsUsed', s.credits_used, 'creditsResetAt', ${isoUtc("s.credits_reset_at")})::jsonb`,
    "u, subs s left join subscriptions was on was.id = s.id",
    // A subscription renewed: its row as it was before this statement (the statement's snapshot).
    `case when s.created then jsonb_build_object('tierPlanId', jsonb_build_array(null, s.tier_plan_id), 'status', jsonb_build_array(null, 'active'),
        'creditAllowance', jsonb_build_array(null, s.credit_allowance))
      else jsonb_build_object('status', jsonb_build_array(was.status, 'active'))
        || case when was.credit_allowance <> s.credit_allowance then jsonb_build_object('creditAllowance', jsonb_build_array(was.credit_allowance, s.credit_allowance)) else '{}' end
        || case when was.credits_used <> 0 then jsonb_build_object('creditsUsed', jsonb_build_array(was.credits_used, 0)) else '{}' end
      end`,
  )}
  ),
  -- The account's subscriptions looked up by its id (u has one row at most): as a join with u,
  -- a plan made while the table was small read the whole table on every call (BENCHMARKS.md, 2026-12-07).
  active as (
    select s.id, s.tier_plan_id, s.credit_allowance, s.credits_used, s.credits_reset_at, s.created_at from subs s
    union all
    select s.id, s.tier_plan_id, s.credit_allowance, s.credits_used, s.credits_reset_at, s.created_at from subscriptions s
    where s.end_user_id = (select id from u) and s.status = 'active' and s.tier_plan_id not in (select tier_plan_id from subs)
  ),
  written as (
    select u.id, u.email, u.full_name, u.created_at, u.created,
      (select count(*) from granted)::int as grants_created,
      coalesce((
        select json_agg(json_build_object(
          'id', a.id, 'tierPlanId', a.tier_plan_id,
          'tierPlanName', (select t.name from tier_plans t where t.id = a.tier_plan_id and t.organization_id = $1),
          'status', 'active',
          'creditAllowance', a.credit_allowance, 'creditsUsed', a.credits_used,
          'creditsResetAt', ${isoUtc("a.credits_reset_at")}
        ) order by a.created_at, a.id)
        from active a
      ), '[]') as subscriptions,
      (select c.changes from account_changes c) as changes
    from u
  )
  select c.*, w.*, exists (select 1 from allowed) as allowed from checked c left join written w on true`;

/** What the checks read (all of it), and what was written (all null when nothing was). */
interface ProvisionRow {
  access_mode: "grants" | "groups";
  groups_enabled: boolean;
  deleted: boolean | null;
  paid_plans: string[];
  plans: string[];
  groups: string[];
  plan_groups: string[];
  directory_groups: string[];
  apps: string[];
  portals: string[];
  id: string | null;
  email: string;
  full_name: string;
  created_at: Date;
  created: boolean;
  grants_created: number;
  subscriptions: Subscription[];
  /** What the call changed on the account ({} when nothing), as its audit event records it. */
  changes: Record<string, unknown>;
  /** No check refused the call. */
  allowed: boolean;
}

/**
 * Throws the first refusal of a provisioning call, in the order the API documents; the
 * statement's `allowed` makes the same checks, so that it writes only when this throws nothing.
 */
function refuseProvisioning(
  check: ProvisionRow,
  asked: { email: string; tierPlanIds: string[]; groupIds: string[]; grants: GrantInput[] },
): void {
  const { email, tierPlanIds, groupIds, grants } = asked;
  if (check.deleted)
    throw new AppError("deleted_identity", `${email} belongs to a deleted account; it cannot be provisioned again.`);
  if (grants.length && check.access_mode === "groups") {
    throw new AppError(
      "grants_unsupported",
      "This organization manages access with groups: pass groupIds instead of grants.",
    );
  }
  const missingPlan = tierPlanIds.find((id) => !check.plans.includes(id));
  if (missingPlan) throw noLivePlan(missingPlan);
  if (groupIds.length && !check.groups_enabled) throw groupsDisabled();
  const missingGroup = groupIds.find((id) => !check.groups.includes(id));
  if (missingGroup) throw new AppError("group_not_found", `No user group ${missingGroup} in this organization.`);
  if (check.plan_groups[0]) {
    throw new AppError(
      "plan_group",
      `Group ${check.plan_groups[0]} belongs to a plan and follows it: pass the plan in tierPlanIds instead.`,
    );
  }
  if (check.directory_groups[0]) {
    throw new AppError(
      "directory_managed",
      `Group ${check.directory_groups[0]} comes from the organization's directory: change its members there.`,
    );
  }
  refuseMissingGrantTargets(grants, check.apps, check.portals);
  if (check.paid_plans[0]) {
    throw new AppError(
      "live_paid_subscription",
      `${email} holds a live paid subscription on plan ${check.paid_plans[0]}; cancel it at the payment processor first.`,
    );
  }
}

/**
 * Creates or updates an end user by email with plans, groups and grants in one call. Every
 * refusal is decided before anything is written, and the checks and the write are a single
 * statement (PROVISION_SQL), so a call applies entirely or not at all; concurrent calls for one
 * new email make one account (the unique email decides who creates it). One round trip,
 * whatever the request holds: this is the call external systems make for every customer they sync.
 */
export const provisionEndUser = guarded(
  { scope: "end_users:write" },
  async function provisionEndUser(db: Db, actor: Actor, input: ProvisionEndUserInput): Promise<ProvisionEndUserOutput> {
    return (await provisionOn(db.pool, actor, input)).result;
  },
);

/** Where the provisioning statement runs: the pool, or one connection holding a transaction (an import). */
export type ProvisionQueryable = Pick<pg.Pool | pg.PoolClient, "query">;

/**
 * provisionEndUser's statement on `on`, answering also what it changed on the account (`{}`
 * when nothing): an import (services/provisioning/end-user-batches.ts) runs it inside a
 * transaction it commits, or rolls back for a dry run, so its rows follow the rules of
 * POST /end-users exactly.
 */
export async function provisionOn(
  on: ProvisionQueryable,
  actor: Actor,
  input: ProvisionEndUserInput,
): Promise<{ result: ProvisionEndUserOutput; changes: Record<string, unknown> }> {
  const email = normalizeEmail(input.email);
  const tierPlanIds = [...new Set(input.tierPlanIds ?? [])];
  const groupIds = [...new Set(input.groupIds ?? [])];
  const grants = [...new Map((input.grants ?? []).map((grant) => [grantKey(grant), grant])).values()];

  // A named statement is parsed and planned once per connection, not on every call.
  const provision = () =>
    on.query<ProvisionRow>({
      name: "atrium_provision",
      text: PROVISION_SQL,
      values: [
        actor.organizationId,
        email,
        input.fullName ?? null,
        tierPlanIds,
        provisionedBy(actor),
        groupIds,
        channelOf(actor),
        grants.map((grant) => grant.targetKind),
        grants.map((grant) => grant.targetId),
        grants.map((grant) => grant.effect ?? "allow"),
        grants.map((grant) => grant.deploymentId ?? null),
        grants.map((grant) => grant.expiresAt ?? null),
        ...eventSqlActorParams(actor),
      ],
    });
  let row = (await provision()).rows[0];
  // Allowed, yet nothing written: another call created this email after the statement began.
  // Run once more, now that the account is there to update.
  if (row?.id === null && row.allowed) row = (await provision()).rows[0];
  if (!row) throw new AppError("not_found", "No organization with that id.");
  if (row.id === null) {
    refuseProvisioning(row, { email, tierPlanIds, groupIds, grants });
    // Allowed, yet the write matched nothing: the account was deleted meanwhile.
    throw new AppError("deleted_identity", `${email} belongs to a deleted account; it cannot be provisioned again.`);
  }
  return {
    result: {
      endUser: { id: row.id, email: row.email, fullName: row.full_name, createdAt: row.created_at.toISOString() },
      created: row.created,
      subscriptions: row.subscriptions,
      grantsCreated: row.grants_created,
    },
    changes: row.changes ?? {},
  };
}
