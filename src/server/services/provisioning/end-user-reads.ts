// Reading end users: one end user's detail (their pools settled in the same statement) and the
// console's list with its filters and sorts.
import type {
  EndUserDetail,
  EndUserIdInput,
  EndUserListItem,
  EndUserSort,
  EndUserStatus,
} from "@/schemas/provisioning/provisioning";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { POOL_LEFT_SQL, POOL_RESET_DUE_SQL, POOL_RESET_SET_SQL } from "../support/credit-pool";
import { normalizeEmail } from "../identity/members";
import { likeEscaped } from "../org/name-search";
import { batchedReader } from "../support/batched-reads";
import { isoUtc } from "../support/sql-json";
import { toEndUser } from "./end-users-shared";

/** The end user's own columns as the API shows them. */
const END_USER_FIELDS = `
    'id', u.id, 'email', u.email, 'fullName', u.full_name, 'authMethod', u.auth_method,
    'emailVerifiedAt', ${isoUtc("u.email_verified_at")}, 'revokedAt', ${isoUtc("u.revoked_at")},
    'suspendedAt', ${isoUtc("u.suspended_at")}, 'lastSeenAt', ${isoUtc("u.last_seen_at")}, 'createdAt', ${isoUtc("u.created_at")}`;

/** The end user's grants as the API shows them, oldest first. */
const GRANTS = `coalesce((
      select json_agg(json_build_object(
        'id', g.id, 'targetKind', g.target_kind, 'targetId', g.target_id, 'effect', g.effect,
        'deploymentId', g.deployment_id, 'source', g.source, 'expiresAt', ${isoUtc("g.expires_at")}
      ) order by g.created_at, g.id)
      from grants g where g.end_user_id = u.id and g.organization_id = u.organization_id), '[]'::json)`;

/** A subscription as the API shows it (alias `s`, its plan `p`), its pool's columns as `pool` gives them. */
const subscriptionJson = (pool: (column: string) => string) => `json_build_object(
        'id', s.id, 'tierPlanId', s.tier_plan_id, 'tierPlanName', p.name, 'status', s.status,
        'creditAllowance', s.credit_allowance, 'creditsUsed', ${pool("credits_used")},
        'creditsResetAt', ${isoUtc(pool("credits_reset_at"))},
        'provisionedBy', s.provisioned_by, 'isComped', s.is_comped, 'bonusCredits', ${pool("bonus_credits")}
      )`;

/**
 * The end users asked for together (batched-reads.ts) with every subscription and grant, read
 * only, and whether a pool is due for its monthly reset (`due`): the usual answer of a hot read.
 * A statement that may write (the one below) costs PostgreSQL about half as much again, opening
 * the subscriptions and their indexes for the update even when nothing is due. Each end user is
 * read in a lateral subquery that `limit 1` keeps from being merged into a join: merged, the
 * planner guessed a thousand ids and hashed the whole table; kept, it probes the primary key once
 * for each id.
 */
const END_USER_DETAILS = `
  select a.i, d.detail, d.due
  from generate_subscripts($2::uuid[], 1) as a(i)
  cross join lateral (
    select json_build_object(${END_USER_FIELDS},
      'subscriptions', coalesce(subs.list, '[]'::json),
      'grants', ${GRANTS}
    ) as detail, coalesce(subs.due, false) as due
    from end_users u
    cross join lateral (
      select json_agg(${subscriptionJson((column) => `s.${column}`)} order by s.created_at, s.id) as list, bool_or(${POOL_RESET_DUE_SQL}) as due
      from subscriptions s join tier_plans p on p.id = s.tier_plan_id
      where s.end_user_id = u.id) subs
    where u.id = ($2::uuid[])[a.i] and u.organization_id = ($1::uuid[])[a.i] and u.deleted_at is null
    limit 1) d`;

const readEndUser = batchedReader<{ i: number; detail: EndUserDetail; due: boolean }>(
  "atrium_end_user_details",
  END_USER_DETAILS,
);

/**
 * The same detail once a pool is due: the pools due for their monthly reset are reset in the
 * same statement, and the answer shows them reset, as settleCreditResets() and three reads did before.
 */
const SETTLED_END_USER_DETAIL = `
  with settled as (
    update subscriptions s set ${POOL_RESET_SET_SQL}
    from end_users u
    where u.id = s.end_user_id and u.organization_id = $1 and s.end_user_id = $2 and ${POOL_RESET_DUE_SQL}
    returning s.id, s.credits_used, s.bonus_credits, s.credits_reset_at
  )
  select json_build_object(${END_USER_FIELDS},
    'subscriptions', coalesce((
      select json_agg(${subscriptionJson((column) => `coalesce(r.${column}, s.${column})`)} order by s.created_at, s.id)
      from subscriptions s join tier_plans p on p.id = s.tier_plan_id left join settled r on r.id = s.id
      where s.end_user_id = u.id), '[]'::json),
    'grants', ${GRANTS}
  ) as detail
  from end_users u
  where u.id = $2 and u.organization_id = $1 and u.deleted_at is null`;

export const getEndUser = guarded(
  { scope: "end_users:read" },
  async function getEndUser(db: Db, actor: Actor, input: EndUserIdInput): Promise<EndUserDetail> {
    const read = await readEndUser(db, actor.organizationId, input.endUserId);
    if (!read) throw new AppError("not_found", "No end user with that id.");
    if (!read.due) return read.detail;
    const settled = await db.pool.query<{ detail: EndUserDetail }>({
      name: "atrium_settled_end_user_detail",
      text: SETTLED_END_USER_DETAIL,
      values: [actor.organizationId, input.endUserId],
    });
    if (!settled.rows[0]) throw new AppError("not_found", "No end user with that id.");
    return settled.rows[0].detail;
  },
);

/** A sort of the end-user list: its ORDER BY, and the keyset condition after a row of it (`$k` the key, `$i` the id). */
const LIST_SORTS: Record<
  EndUserSort,
  { order: string; after: (k: string, i: string) => string; key: (row: ListRow) => unknown }
> = {
  created: {
    order: "u.created_at, u.id",
    after: (k, i) => `(u.created_at, u.id) > (${k}::timestamptz, ${i}::uuid)`,
    key: (row) => row.created_at.toISOString(),
  },
  newest: {
    order: "u.created_at desc, u.id desc",
    after: (k, i) => `(u.created_at, u.id) < (${k}::timestamptz, ${i}::uuid)`,
    key: (row) => row.created_at.toISOString(),
  },
  email: {
    order: "u.email, u.id",
    after: (k, i) => `(u.email, u.id) > (${k}::text, ${i}::uuid)`,
    key: (row) => row.email,
  },
  // Latest visit first, those never seen last.
  lastSeen: {
    order: "u.last_seen_at desc nulls last, u.id",
    after: (k, i) =>
      `(case when ${k}::timestamptz is null then u.last_seen_at is null and u.id > ${i}::uuid
        else u.last_seen_at < ${k}::timestamptz or (u.last_seen_at = ${k}::timestamptz and u.id > ${i}::uuid) or u.last_seen_at is null end)`,
    key: (row) => row.last_seen_at?.toISOString() ?? null,
  },
  // Credits left as of the read (`c`, the lateral sum below): a pool that changes between two
  // pages can move its end user past the cursor, as any keyset over a live value.
  creditsLeft: {
    order: "c.credits_left, u.id",
    after: (k, i) => `(c.credits_left, u.id) > (${k}::bigint, ${i}::uuid)`,
    key: (row) => Number(row.credits_left),
  },
  creditsLeftDesc: {
    order: "c.credits_left desc, u.id desc",
    after: (k, i) => `(c.credits_left, u.id) < (${k}::bigint, ${i}::uuid)`,
    key: (row) => Number(row.credits_left),
  },
};

const COUNT_SORTS: readonly EndUserSort[] = ["creditsLeft", "creditsLeftDesc"];

type ListRow = {
  id: string;
  email: string;
  full_name: string;
  auth_method: string;
  email_verified_at: Date | null;
  revoked_at: Date | null;
  suspended_at: Date | null;
  last_seen_at: Date | null;
  created_at: Date;
  plans: { id: string; name: string }[];
  groups: { id: string; name: string }[];
  credits_left: string;
};

function listCursor(sort: EndUserSort, row: ListRow): string {
  return Buffer.from(JSON.stringify([sort, LIST_SORTS[sort].key(row), row.id])).toString("base64url");
}

function readListCursor(sort: EndUserSort, cursor: string): [unknown, string] {
  try {
    const [of, key, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [unknown, unknown, unknown];
    const keyOk = COUNT_SORTS.includes(sort)
      ? Number.isSafeInteger(key) && (key as number) >= 0
      : key === null
        ? sort === "lastSeen"
        : typeof key === "string";
    if (of === sort && keyOk && typeof id === "string" && /^[0-9a-f-]{36}$/i.test(id)) {
      if (sort === "email" || typeof key !== "string" || !Number.isNaN(Date.parse(key))) return [key, id];
    }
  } catch {
    // answered below
  }
  throw new AppError("invalid_request", "Invalid request: cursor is not a cursor this list handed out.", {
    problems: [{ path: "cursor", message: "Unknown or malformed cursor, or one of another sort" }],
  });
}

const STATUS_SQL: Record<EndUserStatus, string> = {
  active: "u.revoked_at is null and u.suspended_at is null",
  revoked: "u.revoked_at is not null",
  suspended: "u.suspended_at is not null and u.revoked_at is null",
};

/**
 * A page of end users with what the console shows at a glance: plans held, groups (plans' own
 * left out, the plan says it), credits left in every active pool as of now, last seen and status.
 * The filters are semi-joins probed per end user while the organization's index of the sort is
 * walked in page order, so a page costs about (page size ÷ the filter's share) rows. Sorted by
 * credits left, no index holds the order: each page sums the pools of every end user the
 * filters keep (a subscription index probe each), so its cost grows with the organization.
 */
export const listEndUsers = guarded(
  { scope: "end_users:read" },
  async function listEndUsers(
    db: Db,
    actor: Actor,
    input: {
      limit: number;
      cursor?: string;
      email?: string;
      query?: string;
      tierPlanId?: string;
      groupId?: string;
      status?: EndUserStatus;
      sort?: EndUserSort;
    },
  ): Promise<{ endUsers: EndUserListItem[]; nextCursor: string | null }> {
    const sort = input.sort ?? "created";
    const values: unknown[] = [actor.organizationId];
    const param = (value: unknown) => `$${values.push(value)}`;
    const where = ["u.organization_id = $1", "u.deleted_at is null"];
    if (input.tierPlanId)
      where.push(
        `exists (select 1 from subscriptions s where s.end_user_id = u.id and s.tier_plan_id = ${param(input.tierPlanId)}::uuid and s.status = 'active')`,
      );
    if (input.groupId)
      where.push(
        `exists (select 1 from group_members m where m.end_user_id = u.id and m.group_id = ${param(input.groupId)}::uuid)`,
      );
    if (input.email) where.push(`u.email = ${param(normalizeEmail(input.email))}`);
    if (input.query?.trim()) {
      const pattern = param(`%${likeEscaped(input.query.trim())}%`);
      where.push(`(u.email ilike ${pattern} or u.full_name ilike ${pattern})`);
    }
    if (input.status) where.push(STATUS_SQL[input.status]);
    if (input.cursor) {
      const [key, id] = readListCursor(sort, input.cursor);
      where.push(LIST_SORTS[sort].after(param(key), param(id)));
    }
    const rows = await db.$queryRawUnsafe<ListRow[]>(
      `select u.id, u.email, u.full_name, u.auth_method, u.email_verified_at, u.revoked_at, u.suspended_at, u.last_seen_at, u.created_at,
        coalesce((select json_agg(json_build_object('id', p.id, 'name', p.name) order by s.created_at, s.id)
          from subscriptions s join tier_plans p on p.id = s.tier_plan_id where s.end_user_id = u.id and s.status = 'active'), '[]') as plans,
        coalesce((select json_agg(json_build_object('id', g.id, 'name', g.name) order by g.name, g.id)
          from group_members m join user_groups g on g.id = m.group_id
          where m.end_user_id = u.id and g.organization_id = u.organization_id
            and not exists (select 1 from tier_plans t where t.group_id = g.id)), '[]') as groups,
        c.credits_left::text as credits_left
      from end_users u
      cross join lateral (select coalesce(sum(greatest(0, ${POOL_LEFT_SQL})), 0)::bigint as credits_left
        from subscriptions s where s.end_user_id = u.id and s.status = 'active') c
      where ${where.join(" and ")}
      order by ${LIST_SORTS[sort].order}
      limit ${param(input.limit + 1)}`,
      ...values,
    );
    const page = rows.slice(0, input.limit);
    const last = page[page.length - 1];
    return {
      endUsers: page.map((row) => ({
        ...toEndUser({
          id: row.id,
          email: row.email,
          fullName: row.full_name,
          authMethod: row.auth_method,
          emailVerifiedAt: row.email_verified_at,
          revokedAt: row.revoked_at,
          suspendedAt: row.suspended_at,
          lastSeenAt: row.last_seen_at,
          createdAt: row.created_at,
        }),
        plans: row.plans,
        groups: row.groups,
        creditsLeft: Number(row.credits_left),
      })),
      nextCursor: rows.length > input.limit && last ? listCursor(sort, last) : null,
    };
  },
);
