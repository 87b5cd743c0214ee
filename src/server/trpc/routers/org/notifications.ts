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
import { memberProcedure, router } from "../../init";

export const notificationsRouter = router({
  list: memberProcedure(listNotifications.requirement)
    .input(ListNotificationsInput)
    .output(ListNotificationsOutput)
    .query(({ ctx, input }) => listNotifications(ctx.db, ctx.actor, input)),
  markRead: memberProcedure(markNotificationsRead.requirement)
    .input(MarkNotificationsReadInput)
    .output(MarkNotificationsReadOutput)
    .mutation(({ ctx, input }) => markNotificationsRead(ctx.db, ctx.actor, input)),
  emails: memberProcedure(getNotificationEmails.requirement)
    .output(NotificationEmailSettings)
    .query(({ ctx }) => getNotificationEmails(ctx.db, ctx.actor)),
  setEmails: memberProcedure(setNotificationEmails.requirement)
    .input(SetNotificationEmailsInput)
    .output(NotificationEmailSettings)
    .mutation(({ ctx, input }) => setNotificationEmails(ctx.db, ctx.actor, input)),
});
