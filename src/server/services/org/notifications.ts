// Notifications: what waits for a console member, read from the items' own state (pending
// reviews, open credit requests, failed sources, endpoints the delivery worker turned off) and
// from the recorded changes (directory.sync_failed events of the last week), never pushed by the
// services that change them. An item stops waiting when it is handled (a decided review, a granted
// or dismissed request, a retried or deleted source, a re-enabled endpoint). Read marks are per
// member; the emails a member opts into are sent by src/server/jobs/notification-emails.ts.
import {
  NOTIFICATION_EMAIL_DEFAULT,
  NOTIFICATION_KIND_LABEL,
  NOTIFICATION_KINDS,
  notificationRole,
  type ListNotificationsInput,
  type ListNotificationsOutput,
  type MarkNotificationsReadInput,
  type Notification,
  type NotificationEmailSettings,
  type NotificationKind,
  type SetNotificationEmailsInput,
} from "@/schemas/org/notifications";
import type { Actor, MemberActor } from "@/server/auth/actor";
import { roleAtLeast, type Role } from "@/schemas/identity/auth";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { recordEvent } from "./events";

/** Directory sync failures are listed for this long; nothing else marks them handled. */
export const DIRECTORY_FAILURE_DAYS = 7;

/** Rows of every kind: kind, item_id, organization_id, occurred_at, title, detail, link_id. */
export interface NotificationItemRow {
  kind: NotificationKind;
  item_id: string;
  organization_id: string;
  occurred_at: Date;
  title: string;
  detail: string;
  link_id: string | null;
}

/**
 * The SQL of the items that wait, one select per kind. `organization` is the SQL of the
 * organization they belong to (a parameter for one member's list; a column for the email worker,
 * which joins each item to its organization's members).
 */
export function notificationItemsSql(organization: (column: string) => string): string {
  return `
    select 'review' as kind, r.id as item_id, r.organization_id, r.created_at as occurred_at,
      coalesce(p.title, s.name, r.payload->>'title', r.payload->>'name', '') as title,
      replace(r.kind, '_', ' ') || ' in ' || k.name as detail, null::text as link_id
    from reviews r
    join knowledgebases k on k.id = r.knowledgebase_id and k.organization_id = r.organization_id
    left join pages p on p.id = r.page_id and p.organization_id = r.organization_id
    left join sources s on s.id = r.source_id and s.organization_id = r.organization_id
    where ${organization("r.organization_id")} and r.status = 'pending'
    union all
    select 'credit_request', c.id, c.organization_id, c.created_at,
      case when u.full_name = '' then u.email else u.full_name || ' (' || u.email || ')' end, c.message, u.id::text
    from credit_requests c
    join end_users u on u.id = c.end_user_id and u.organization_id = c.organization_id and u.deleted_at is null
    where ${organization("c.organization_id")} and c.status = 'open'
    union all
    select 'source_failed', s.id, s.organization_id, s.updated_at, s.name, coalesce(s.error_message, ''), s.knowledgebase_id::text
    from sources s
    join knowledgebases k on k.id = s.knowledgebase_id and k.organization_id = s.organization_id and k.end_user_id is null
    where ${organization("s.organization_id")} and s.status = 'failed'
    union all
    select 'webhook_disabled', w.id, w.organization_id, w.updated_at, w.url, w.disabled_reason, null
    from webhook_endpoints w
    where ${organization("w.organization_id")} and not w.enabled and w.disabled_reason is not null
    union all
    select 'directory_sync_failed', a.id, a.organization_id, a.occurred_at, a.target_label, coalesce(a.changes->'error'->>1, a.changes->'reason'->>1, ''), null
    from audit_events a
    where ${organization("a.organization_id")} and a.action = 'directory.sync_failed' and a.occurred_at > now() - interval '${DIRECTORY_FAILURE_DAYS} days'
    union all
    select 'approval', x.id, x.organization_id, x.created_at, coalesce(nullif(i.draft->>'name', ''), 'A run'), x.message, null
    from execution_approvals x
    left join builder_items i on i.id = x.app_id and i.organization_id = x.organization_id
    where ${organization("x.organization_id")} and x.status = 'pending'`;
}

/** Where each kind is handled in the console. */
export function notificationHref(row: Pick<NotificationItemRow, "kind" | "item_id" | "link_id">): string {
  switch (row.kind) {
    case "review":
      return `/reviews/${row.item_id}`;
    case "credit_request":
      return `/end-users/${row.link_id}`;
    case "source_failed":
      return `/knowledge/${row.link_id}/sources/${row.item_id}`;
    case "webhook_disabled":
      return "/webhooks";
    case "directory_sync_failed":
      return "/directory";
    case "approval":
      return `/approvals/${row.item_id}`;
  }
}

/** The kinds a role is told of. */
export function kindsFor(role: Role): NotificationKind[] {
  return NOTIFICATION_KINDS.filter((kind) => roleAtLeast(role, notificationRole(kind)));
}

/** Notifications are a console member's own: keys and the operator have no inbox. */
function requireMember(actor: Actor): MemberActor {
  if (actor.kind !== "member")
    throw new AppError("forbidden_role", "Notifications belong to a member signed in to the console.");
  return actor;
}

interface ListedRow extends NotificationItemRow {
  read: boolean;
  unread_count: number;
  total_count: number;
}

/** What waits for the signed-in member, newest first, with how many are unread. */
export const listNotifications = guarded(
  { may: "read" },
  async function listNotifications(
    db: Db,
    actor: Actor,
    input: ListNotificationsInput = {},
  ): Promise<ListNotificationsOutput> {
    const member = requireMember(actor);
    const limit = input.limit ?? 50;
    const { rows } = await db.pool.query<ListedRow>(
      `with items as (${notificationItemsSql((column) => `${column} = $1::uuid`)}),
     marked as (
       select items.*, coalesce(n.read_at >= items.occurred_at, false) as read
       from items
       left join notification_reads n on n.organization_id = $1::uuid and n.member_id = $2::uuid and n.kind = items.kind and n.item_id = items.item_id
       where items.kind = any($3::text[])
     )
     select marked.*, (select count(*) from marked where not read)::int as unread_count, (select count(*) from marked)::int as total_count
     from marked where not ($4::boolean and read)
     order by occurred_at desc, item_id desc limit $5`,
      [member.organizationId, member.member.id, kindsFor(member.member.role), input.unreadOnly ?? false, limit],
    );
    const counts = rows[0]
      ? { unread: rows[0].unread_count, total: rows[0].total_count }
      : await countNotifications(db, member);
    const notifications: Notification[] = rows.map((row) => ({
      kind: row.kind,
      itemId: row.item_id,
      title: row.title,
      detail: row.detail,
      href: notificationHref(row),
      occurredAt: row.occurred_at.toISOString(),
      read: row.read,
    }));
    return { notifications, ...counts };
  },
);

/** The counts alone, when the page of unread items came back empty. */
async function countNotifications(db: Db, member: MemberActor): Promise<{ unread: number; total: number }> {
  const { rows } = await db.pool.query<{ unread: number; total: number }>(
    `with items as (${notificationItemsSql((column) => `${column} = $1::uuid`)})
     select count(*) filter (where not coalesce(n.read_at >= items.occurred_at, false))::int as unread, count(*)::int as total
     from items
     left join notification_reads n on n.organization_id = $1::uuid and n.member_id = $2::uuid and n.kind = items.kind and n.item_id = items.item_id
     where items.kind = any($3::text[])`,
    [member.organizationId, member.member.id, kindsFor(member.member.role)],
  );
  return rows[0] ?? { unread: 0, total: 0 };
}

/**
 * Marks the items named (or all that wait) read for the signed-in member. Only items that wait
 * for them now are marked, so nothing is written for another organization's or another role's
 * items; marks of items no longer waiting are cleared on the way.
 */
export const markNotificationsRead = guarded(
  { may: "read" },
  async function markNotificationsRead(
    db: Db,
    actor: Actor,
    input: MarkNotificationsReadInput,
  ): Promise<{
    marked: number;
  }> {
    const member = requireMember(actor);
    const items = input.items ?? [];
    if (!input.all && items.length === 0)
      throw new AppError("invalid_request", "Name the notifications to mark read, or mark them all.");
    const params = [
      member.organizationId,
      member.member.id,
      kindsFor(member.member.role),
      input.all ?? false,
      items.map((item) => item.kind),
      items.map((item) => item.itemId),
    ];
    return db.$transaction(async (tx) => {
      const marked = await tx.$executeRawUnsafe(
        `with items as (${notificationItemsSql((column) => `${column} = $1::uuid`)})
       insert into notification_reads (organization_id, member_id, kind, item_id, read_at)
       select $1::uuid, $2::uuid, items.kind, items.item_id, clock_timestamp() from items
       where items.kind = any($3::text[])
         and ($4::boolean or (items.kind, items.item_id) in (select * from unnest($5::text[], $6::uuid[])))
       on conflict (member_id, kind, item_id) do update set read_at = excluded.read_at`,
        ...params,
      );
      if (input.all) {
        await tx.$executeRawUnsafe(
          `with items as (${notificationItemsSql((column) => `${column} = $1::uuid`)})
         delete from notification_reads n where n.organization_id = $1::uuid and n.member_id = $2::uuid
           and not exists (select 1 from items where items.kind = n.kind and items.item_id = n.item_id)`,
          member.organizationId,
          member.member.id,
        );
      }
      return { marked };
    });
  },
);

/** The kinds the signed-in member may be told of, each with whether it is mailed to them. */
export const getNotificationEmails = guarded(
  { may: "read" },
  async function getNotificationEmails(db: Db, actor: Actor): Promise<NotificationEmailSettings> {
    const member = requireMember(actor);
    const settings = await db.notificationEmailSetting.findMany({
      where: { organizationId: member.organizationId, memberId: member.member.id },
    });
    return {
      kinds: kindsFor(member.member.role).map((kind) => ({
        kind,
        label: NOTIFICATION_KIND_LABEL[kind],
        email: settings.find((setting) => setting.kind === kind)?.enabled ?? NOTIFICATION_EMAIL_DEFAULT[kind],
      })),
    };
  },
);

/** Opts the signed-in member in or out of the email of each kind named; a kind their role is not told of is refused. */
export const setNotificationEmails = guarded(
  { may: "read" },
  async function setNotificationEmails(
    db: Db,
    actor: Actor,
    input: SetNotificationEmailsInput,
  ): Promise<NotificationEmailSettings> {
    const member = requireMember(actor);
    const allowed = kindsFor(member.member.role);
    const refused = input.kinds.find((choice) => !allowed.includes(choice.kind));
    if (refused)
      throw new AppError(
        "forbidden_role",
        `A ${member.member.role} is not told of ${NOTIFICATION_KIND_LABEL[refused.kind].toLowerCase()}.`,
      );
    const before = await getNotificationEmails(db, actor);
    await db.$transaction(async (tx) => {
      for (const choice of input.kinds) {
        const was = before.kinds.find((entry) => entry.kind === choice.kind)?.email;
        if (was === choice.email) continue;
        const key = { memberId: member.member.id, kind: choice.kind };
        await tx.notificationEmailSetting.upsert({
          where: { memberId_kind: key },
          create: { ...key, organizationId: member.organizationId, enabled: choice.email, updatedAt: new Date() },
          update: { enabled: choice.email, updatedAt: new Date() },
        });
        await recordEvent(tx, actor, {
          action: "member.notification_email",
          target: { type: "member", id: member.member.id, label: member.member.email },
          changes: { [choice.kind]: [was ?? null, choice.email] },
        });
      }
    });
    return getNotificationEmails(db, actor);
  },
);

/** The SQL values of each kind's role and email default, for the email worker's query. */
export function kindTable(): { kinds: string[]; roles: string[]; defaults: boolean[] } {
  return {
    kinds: [...NOTIFICATION_KINDS],
    roles: NOTIFICATION_KINDS.map(notificationRole),
    defaults: NOTIFICATION_KINDS.map((kind) => NOTIFICATION_EMAIL_DEFAULT[kind]),
  };
}
