"use client";
// The shell's bell (a count and a dropdown of the latest), the list the Notifications page shows,
// and the account page's email choices. The data is notifications.list (services/org/notifications.ts).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Bell, Building2, Hand, ClipboardCheck, CreditCard, FileWarning, Webhook, type LucideIcon } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useId, useRef } from "react";
import type { Notification, NotificationKind } from "@/schemas/org/notifications";
import { useTRPC } from "@/lib/trpc";
import { ErrorAlert } from "./error-alert";
import { notifyDone } from "./toasts";
import { usePageState } from "./use-page-state";
import { When } from "./when";

const KIND_ICON: Record<NotificationKind, LucideIcon> = {
  review: ClipboardCheck,
  credit_request: CreditCard,
  source_failed: FileWarning,
  webhook_disabled: Webhook,
  directory_sync_failed: Building2,
  approval: Hand,
};

const KIND_VERB: Record<NotificationKind, string> = {
  review: "Review waiting",
  credit_request: "Asks for more credits",
  source_failed: "Source failed",
  webhook_disabled: "Webhook endpoint turned off",
  directory_sync_failed: "Directory sync failed",
  approval: "Waiting for approval",
};

/** How the bell and the page refresh: every 30 s and after each navigation. */
const REFRESH_MS = 30_000;

function useMarkRead() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.notifications.markRead.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.notifications.list.pathKey() }),
    }),
  );
}

/** One list of notifications, each a link to where it is handled (opening it marks it read). */
export function NotificationItems({
  items,
  onOpen,
  compact = false,
}: {
  items: Notification[];
  onOpen?: () => void;
  compact?: boolean;
}) {
  const markRead = useMarkRead();
  return (
    <ul className="notification-items">
      {items.map((item) => {
        const Icon = KIND_ICON[item.kind];
        return (
          <li key={`${item.kind}:${item.itemId}`} className={item.read ? "read" : "unread"} data-testid="notification">
            <Icon size={18} aria-hidden className="icon" />
            <div className="notification-text">
              <Link
                href={item.href}
                onClick={() => {
                  if (!item.read) markRead.mutate({ items: [{ kind: item.kind, itemId: item.itemId }] });
                  onOpen?.();
                }}
              >
                <span className="notification-kind">{KIND_VERB[item.kind]}</span>
                {item.title && <span className="notification-title">{item.title}</span>}
                {!item.read && <span className="visually-hidden"> (unread)</span>}
              </Link>
              {!compact && item.detail && <span className="notification-detail">{item.detail}</span>}
              <When at={item.occurredAt} />
            </div>
            {!compact && !item.read && (
              <button
                type="button"
                onClick={() => markRead.mutate({ items: [{ kind: item.kind, itemId: item.itemId }] })}
                disabled={markRead.isPending}
              >
                Mark read
              </button>
            )}
          </li>
        );
      })}
    </ul>
  );
}

export function MarkAllReadButton({ disabled }: { disabled?: boolean }) {
  const markRead = useMarkRead();
  return (
    <button
      type="button"
      disabled={disabled || markRead.isPending}
      onClick={() => markRead.mutate({ all: true }, { onSuccess: () => notifyDone("All notifications marked read.") })}
    >
      Mark all read
    </button>
  );
}

/** The bell in the shell: the unread count, and the latest ten in a dropdown. */
export function NotificationBell() {
  const trpc = useTRPC();
  const pathname = usePathname();
  const list = useQuery({ ...trpc.notifications.list.queryOptions({ limit: 10 }), refetchInterval: REFRESH_MS });
  const [open, setOpen] = usePageState(false);
  const panelId = useId();
  const wrapper = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const { refetch } = list;

  useEffect(() => {
    void refetch();
  }, [pathname, refetch]);

  useEffect(() => {
    if (!open) return;
    const outside = (event: MouseEvent) => {
      if (!wrapper.current?.contains(event.target as Node)) setOpen(false);
    };
    const escape = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener("mousedown", outside);
    document.addEventListener("keydown", escape);
    return () => {
      document.removeEventListener("mousedown", outside);
      document.removeEventListener("keydown", escape);
    };
  }, [open, setOpen]);

  const unread = list.data?.unread ?? 0;
  const items = list.data?.notifications ?? [];
  return (
    <div className="bell" ref={wrapper}>
      <button
        ref={button}
        type="button"
        className="shell-icon-button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen(!open)}
      >
        <Bell size={18} aria-hidden className="icon" />
        <span className="visually-hidden">Notifications{unread ? `, ${unread} unread` : ""}</span>
        {unread > 0 && (
          <span className="nav-count" aria-hidden>
            {unread > 99 ? "99+" : unread}
          </span>
        )}
      </button>
      <div id={panelId} className="bell-panel" role="region" aria-label="Latest notifications" hidden={!open}>
        <div className="bell-head">
          <h2>Notifications</h2>
          <MarkAllReadButton disabled={unread === 0} />
        </div>
        <ErrorAlert error={list.error} />
        {list.data && items.length === 0 && <p className="muted">Nothing waits for you.</p>}
        <NotificationItems items={items} compact onOpen={() => setOpen(false)} />
        <Link className="bell-all" href="/notifications" onClick={() => setOpen(false)}>
          See all notifications{list.data && list.data.total > items.length ? ` (${list.data.total})` : ""}
        </Link>
      </div>
    </div>
  );
}

/** The account page's choice of which kinds are emailed. */
export function NotificationEmailsForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.notifications.emails.queryOptions());
  const save = useMutation(
    trpc.notifications.setEmails.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.notifications.emails.queryKey(), data);
        notifyDone("Email choices saved.");
      },
    }),
  );
  const kinds = settings.data?.kinds ?? [];
  return (
    <section className="panel form" aria-labelledby="notification-emails">
      <h2 id="notification-emails">Notification emails</h2>
      <p className="muted" style={{ margin: 0 }}>
        What waits for you is always under the bell. Tick what you also want by email, sent once per item.
      </p>
      <ErrorAlert error={settings.error ?? save.error} />
      {settings.data && kinds.length === 0 && <p className="muted">Your role is not notified of anything yet.</p>}
      {kinds.map((entry) => (
        <label key={entry.kind} className="inline">
          <input
            type="checkbox"
            checked={entry.email}
            disabled={save.isPending}
            onChange={(event) => save.mutate({ kinds: [{ kind: entry.kind, email: event.target.checked }] })}
          />
          {entry.label}
        </label>
      ))}
    </section>
  );
}
