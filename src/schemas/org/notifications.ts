// Notifications: what waits for a console member (src/server/services/org/notifications.ts), their
// read marks and the kinds they are mailed about.
import { z } from "zod";
import type { Role } from "../identity/auth";
import { minimumRole, type Capability } from "../permissions";
import { Timestamp, Uuid } from "../common";

export const NOTIFICATION_KINDS = [
  "review",
  "credit_request",
  "source_failed",
  "webhook_disabled",
  "directory_sync_failed",
  "approval",
] as const;
export const NotificationKind = z.enum(NOTIFICATION_KINDS);
export type NotificationKind = z.infer<typeof NotificationKind>;

/** The capability that handles each kind (src/schemas/permissions.ts): who may handle it is told of it. */
export const NOTIFICATION_HANDLED_WITH: Readonly<Record<NotificationKind, Capability>> = {
  review: "review",
  credit_request: "grant",
  source_failed: "write",
  webhook_disabled: "settings",
  directory_sync_failed: "settings",
  approval: "write",
};

/** The role a member needs to be told of each kind: the least role that can handle it. */
export function notificationRole(kind: NotificationKind): Role {
  return minimumRole(NOTIFICATION_HANDLED_WITH[kind]);
}

/** How each kind is named in lists and on the account page. */
export const NOTIFICATION_KIND_LABEL: Readonly<Record<NotificationKind, string>> = {
  review: "Pending reviews",
  credit_request: "Credit requests",
  source_failed: "Failed sources",
  webhook_disabled: "Disabled webhook endpoints",
  directory_sync_failed: "Directory sync errors",
  approval: "Runs waiting for approval",
};

/** Kinds mailed when the member has not chosen: admins were always mailed about credit requests. */
export const NOTIFICATION_EMAIL_DEFAULT: Readonly<Record<NotificationKind, boolean>> = {
  review: false,
  credit_request: true,
  source_failed: false,
  webhook_disabled: false,
  directory_sync_failed: false,
  approval: false,
};

export const MAX_NOTIFICATIONS_PAGE = 100;

export const Notification = z.object({
  kind: NotificationKind,
  itemId: Uuid,
  title: z.string(),
  detail: z.string(),
  /** The console path where it is handled. */
  href: z.string(),
  occurredAt: Timestamp,
  read: z.boolean(),
});
export type Notification = z.infer<typeof Notification>;

export const ListNotificationsInput = z.strictObject({
  limit: z.number().int().min(1).max(MAX_NOTIFICATIONS_PAGE).default(50),
  unreadOnly: z.boolean().default(false),
});
export type ListNotificationsInput = z.input<typeof ListNotificationsInput>;

export const ListNotificationsOutput = z.object({
  notifications: z.array(Notification),
  unread: z.number().int(),
  total: z.number().int(),
});
export type ListNotificationsOutput = z.infer<typeof ListNotificationsOutput>;

/** Either the items named, or every item that waits now (`all`). */
export const MarkNotificationsReadInput = z.strictObject({
  items: z
    .array(z.strictObject({ kind: NotificationKind, itemId: Uuid }))
    .max(MAX_NOTIFICATIONS_PAGE)
    .default([]),
  all: z.boolean().default(false),
});
export type MarkNotificationsReadInput = z.input<typeof MarkNotificationsReadInput>;
export const MarkNotificationsReadOutput = z.object({ marked: z.number().int() });

export const NotificationEmailSettings = z.object({
  kinds: z.array(z.object({ kind: NotificationKind, label: z.string(), email: z.boolean() })),
});
export type NotificationEmailSettings = z.infer<typeof NotificationEmailSettings>;

export const SetNotificationEmailsInput = z.strictObject({
  kinds: z
    .array(z.strictObject({ kind: NotificationKind, email: z.boolean() }))
    .min(1)
    .max(NOTIFICATION_KINDS.length),
});
export type SetNotificationEmailsInput = z.infer<typeof SetNotificationEmailsInput>;
