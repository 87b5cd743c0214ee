// Console only (no REST path): a member's notifications, their read marks and email choices.
import {
  ListNotificationsInput,
  ListNotificationsOutput,
  MarkNotificationsReadInput,
  NotificationEmailSettings,
  SetNotificationEmailsInput,
  MarkNotificationsReadOutput,
} from "@/schemas/org/notifications";
import {
  getNotificationEmails,
  listNotifications,
  markNotificationsRead,
  setNotificationEmails,
} from "@/server/services/org/notifications";
import { router } from "../../init";
import { memberCalls } from "../../service-procedures";

export const notificationsRouter = router({
  list: memberCalls.queryWith(listNotifications, ListNotificationsInput, ListNotificationsOutput),
  markRead: memberCalls.mutationWith(markNotificationsRead, MarkNotificationsReadInput, MarkNotificationsReadOutput),
  emails: memberCalls.query(getNotificationEmails, NotificationEmailSettings),
  setEmails: memberCalls.mutationWith(setNotificationEmails, SetNotificationEmailsInput, NotificationEmailSettings),
});
