// Notification emails: each server process polls for items that wait (the same SQL as the
// console's list, services/org/notifications.ts) which a member is mailed about (their choice, or the
// kind's default) and that appeared since they chose. Each email's key (member, kind, item, the
// item's time) is inserted in the transaction that sends it: a second worker, in this process or
// another, finds the key taken and sends nothing, and a failed send rolls the key back to be tried
// again on the next round.
import type { Db } from "@/server/db";
import { publicOrigin } from "@/env";
import { NOTIFICATION_KIND_LABEL, type NotificationKind } from "@/schemas/org/notifications";
import { deliverMail } from "@/server/services/org/mail";
import {
  kindTable,
  notificationHref,
  notificationItemsSql,
  type NotificationItemRow,
} from "@/server/services/org/notifications";
import { startPollingWorker, type PollingWorker } from "./polling-worker";

/** Items older than this are never mailed: a worker that was away does not mail old news. */
export const EMAIL_WINDOW_HOURS = 24;
const BATCH = 50;

interface DueEmail extends NotificationItemRow {
  member_id: string;
  email: string;
}

/** The subject and text of one notification email; links start at PUBLIC_ORIGIN. */
export function notificationMail(
  item: Pick<NotificationItemRow, "kind" | "item_id" | "link_id" | "title" | "detail">,
): { subject: string; text: string } {
  const link = `${publicOrigin()}${notificationHref(item)}`;
  const subjects: Record<NotificationKind, string> = {
    review: `A review waits for you: ${item.title || item.detail}`,
    credit_request: `${item.title} asks for more credits`,
    source_failed: `A source failed: ${item.title}`,
    webhook_disabled: `A webhook endpoint was turned off: ${item.title}`,
    directory_sync_failed: `Directory sync failed: ${item.title}`,
    approval: `A run of ${item.title} waits for your approval`,
  };
  const detail = item.kind === "credit_request" ? (item.detail ? `Their message: ${item.detail}` : "") : item.detail;
  const text = [
    subjects[item.kind],
    detail,
    `Open it in the console: ${link}`,
    `You get this because ${NOTIFICATION_KIND_LABEL[item.kind].toLowerCase()} are mailed to you; change it on ${publicOrigin()}/account.`,
  ]
    .filter(Boolean)
    .join("\n\n");
  return { subject: subjects[item.kind].slice(0, 200), text };
}

/** Sends the emails due now; returns how many were sent by this call. */
export async function runNotificationEmailsOnce(db: Db): Promise<number> {
  const { kinds, roles, defaults } = kindTable();
  const { rows } = await db.pool.query<DueEmail>(
    `with items as (${notificationItemsSql((column) => `${column} is not null`)}),
     kinds as (select * from unnest($1::text[], $2::text[], $3::boolean[]) as k(kind, min_role, by_default))
     select items.*, m.id as member_id, u.email
     from items
     join kinds on kinds.kind = items.kind
     join members m on m.organization_id = items.organization_id and m.removed_at is null and m.role >= kinds.min_role::"Role"
     join users u on u.id = m.user_id
     left join notification_email_settings s on s.member_id = m.id and s.organization_id = items.organization_id and s.kind = items.kind
     where items.occurred_at > now() - interval '${EMAIL_WINDOW_HOURS} hours'
       and coalesce(s.enabled, kinds.by_default)
       and items.occurred_at >= coalesce(s.updated_at, m.created_at)
       and not exists (select 1 from notification_emails_sent e
         where e.member_id = m.id and e.kind = items.kind and e.item_id = items.item_id and e.occurred_at = items.occurred_at)
     order by items.occurred_at
     limit ${BATCH}`,
    [kinds, roles, defaults],
  );
  let sent = 0;
  for (const due of rows) {
    const claimed = await db.$transaction(async (tx) => {
      const inserted = await tx.$executeRaw`
        insert into notification_emails_sent (organization_id, member_id, kind, item_id, occurred_at)
        values (${due.organization_id}::uuid, ${due.member_id}::uuid, ${due.kind}, ${due.item_id}::uuid, ${due.occurred_at})
        on conflict do nothing`;
      if (inserted === 0) return false;
      await deliverMail(tx as unknown as Db, due.organization_id, { to: due.email, ...notificationMail(due) });
      return true;
    });
    if (claimed) sent++;
  }
  return sent;
}

/** The loop each server process runs, every pollMs, backing off while the database is away. */
export function startNotificationEmailWorker(
  db: Db,
  options: { pollMs?: number; maxBackoffMs?: number } = {},
): PollingWorker {
  const polling = {
    name: "Notification emails",
    pollMs: options.pollMs ?? 5000,
    maxBackoffMs: options.maxBackoffMs ?? 60_000,
  };
  return startPollingWorker(polling, async () => {
    await runNotificationEmailsOnce(db);
    return false;
  });
}
