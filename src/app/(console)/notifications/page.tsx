"use client";
// What waits for the signed-in member (services/org/notifications.ts): all of it or the unread only
// (?unread=1, so reload and back keep it), each linking to where it is handled.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { ErrorAlert, PageHeader, Panel } from "@/components/console";
import { MarkAllReadButton, NotificationItems } from "@/components/console/notifications";
import { MAX_NOTIFICATIONS_PAGE } from "@/schemas/org/notifications";
import { useTRPC } from "@/lib/trpc";

export default function NotificationsPage() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const unreadOnly = useSearchParams().get("unread") === "1";
  const list = useQuery({
    ...trpc.notifications.list.queryOptions({ limit: MAX_NOTIFICATIONS_PAGE, unreadOnly }),
    refetchInterval: 30_000,
  });
  const data = list.data;

  return (
    <>
      <PageHeader
        title="Notifications"
        description={
          <>
            What waits for you: pending reviews, credit requests, failed sources, disabled webhook endpoints and
            directory sync errors, as your role handles them. Each leaves the list once it is handled. Choose which are
            emailed to you on <Link href="/account">your account</Link>.
          </>
        }
        actions={<MarkAllReadButton disabled={!data?.unread} />}
      />
      <Panel>
        <label className="inline">
          <input
            type="checkbox"
            checked={unreadOnly}
            onChange={(event) => router.replace(event.target.checked ? `${pathname}?unread=1` : pathname)}
          />
          Unread only{data ? ` (${data.unread} of ${data.total})` : ""}
        </label>
        {list.isLoading && <p className="muted">Loading…</p>}
        <ErrorAlert error={list.error} />
        {data && data.notifications.length === 0 && (
          <p className="muted">
            {unreadOnly && data.total > 0 ? "Everything here is read." : "Nothing waits for you."}
          </p>
        )}
        {data && <NotificationItems items={data.notifications} />}
        {data && data.total > data.notifications.length && !unreadOnly && (
          <p className="muted">
            The newest {data.notifications.length} of {data.total} are shown; handling them brings up the rest.
          </p>
        )}
      </Panel>
    </>
  );
}
