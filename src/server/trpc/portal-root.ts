// The portal door's router (served at /api/portal/trpc by src/server/adapters/portal.ts).
// Every procedure names its portal (id or slug); end-user procedures need the portal session.
import {
  GetPortalConversationInput,
  GetPortalConversationOutput,
  GetPortalOutput,
  ListPortalAppsOutput,
  ListPortalConversationsInput,
  ListPortalConversationsOutput,
  MeOutput,
  PortalInput,
  RequestCodeInput,
  RequestCodeOutput,
  SignOutOutput,
  CancelPortalRunInput,
  CancelPortalRunOutput,
  RequestCreditsInput,
  RequestCreditsOutput,
  VerifyCodeInput,
  VerifyCodeOutput,
  PortalFeedbackInput,
  RenamePortalConversationInput,
  RenamePortalConversationOutput,
  DeletePortalConversationInput,
  DeletePortalConversationOutput,
  GetPortalFileInput,
  MailExportInput,
  MailExportOutput,
} from "@/schemas/portal/portal";
import { FileOutput } from "@/schemas/runs/attachment";
import { getFile } from "@/server/services/runs/attachments";
import { MessageFeedbackOutput } from "@/schemas/runs/runtime";
import { PortalUsage, PortalUsageInput } from "@/schemas/runs/usage";
import { clearedPortalSessionCookie, portalSessionCookie } from "@/server/auth/portal-cookie";
import { toAppError } from "@/server/errors";
import { logRefusedSignIn } from "@/server/observability/operator-log";
import {
  getEndUserConversation,
  hideEndUserConversation,
  listEndUserConversations,
  renameEndUserConversation,
} from "@/server/services/runs/end-user-conversations";
import { setMessageFeedback } from "@/server/services/runs/message-feedback";
import { cancelConversationRun } from "@/server/services/runs/conversation-runs";
import { requestMoreCredits } from "@/server/services/provisioning/credit-requests";
import { creditPools } from "@/server/services/provisioning/credits";
import { dismissBonusNotices, unseenBonuses } from "@/server/services/provisioning/credit-ledger";
import { endEndUserSession } from "@/server/services/portal/end-user-sessions";
import { listPortalApps } from "@/server/services/portal/portal-apps";
import { requestSignInCode, verifySignInCode } from "@/server/services/portal/portal-sign-in";
import { toPublicPortal } from "@/server/services/portal/portals";
import { getPortalUsage } from "@/server/services/runs/usage";
import { mailExportLink } from "@/server/services/portal/portal-export";
import { endUserProcedure, portalProcedure, portalRouterFactory as router } from "./portal/init";

export const portalRouter = router({
  portal: router({
    get: portalProcedure(PortalInput)
      .output(GetPortalOutput)
      .query(({ ctx }) => ({ portal: toPublicPortal(ctx.portal) })),
  }),

  auth: router({
    requestCode: portalProcedure(RequestCodeInput)
      .output(RequestCodeOutput)
      .mutation(({ ctx, input }) =>
        requestSignInCode(ctx.db, {
          portal: ctx.portal,
          email: input.email,
          clientAddress: ctx.clientAddress,
          origin: ctx.origin,
          ...(input.language ? { language: input.language } : {}),
        }),
      ),

    verifyCode: portalProcedure(VerifyCodeInput)
      .output(VerifyCodeOutput)
      .mutation(async ({ ctx, input }) => {
        const { endUser, session } = await verifySignInCode(ctx.db, {
          portal: ctx.portal,
          email: input.email,
          code: input.code,
          clientAddress: ctx.clientAddress,
          requestOrigin: ctx.requestOrigin,
        }).catch((error: unknown) => {
          logRefusedSignIn("portal", {
            email: input.email,
            clientAddress: ctx.clientAddress,
            code: toAppError(error).code,
            portal: ctx.portal.slug,
          });
          throw error;
        });
        ctx.response.headers.append("Set-Cookie", portalSessionCookie(session.token, session.expiresAt, ctx.secure));
        return { endUser };
      }),

    signOut: portalProcedure(PortalInput)
      .output(SignOutOutput)
      .mutation(async ({ ctx }) => {
        await endEndUserSession(ctx.db, ctx.sessionToken);
        ctx.response.headers.append("Set-Cookie", clearedPortalSessionCookie(ctx.secure));
        return { ok: true as const };
      }),
  }),

  me: router({
    get: endUserProcedure(PortalInput)
      .output(MeOutput)
      .query(async ({ ctx }) => ({
        endUser: ctx.actor.endUser,
        credits: await creditPools(ctx.db, ctx.actor.organizationId, ctx.actor.endUser.id),
        bonuses: await unseenBonuses(ctx.db, { organizationId: ctx.actor.organizationId, id: ctx.actor.endUser.id }),
      })),
    /** The bonus notice read: the bonuses given until now are not announced again. */
    dismissBonuses: endUserProcedure(PortalInput)
      .output(SignOutOutput)
      .mutation(async ({ ctx }) => {
        await dismissBonusNotices(ctx.db, { organizationId: ctx.actor.organizationId, id: ctx.actor.endUser.id });
        return { ok: true as const };
      }),
  }),

  account: router({
    /**
     * Everything the organization holds about the signed-in end user, as the admin's export, by
     * mail: a link to it, for them alone, sent to their address (services/portal/portal-export.ts). The
     * download itself streams at /api/portal/{portal}/account/export (adapters/portal.ts).
     */
    mailExport: endUserProcedure(MailExportInput)
      .output(MailExportOutput)
      .mutation(({ ctx, input }) =>
        mailExportLink(ctx.db, ctx.actor, {
          portal: ctx.portal,
          ...(input.language ? { language: input.language } : {}),
        }),
      ),
  }),

  runs: router({
    /** The chat's Stop: the run ends `canceled`, billed since it ran (the contract's cancel). */
    cancel: endUserProcedure(CancelPortalRunInput)
      .output(CancelPortalRunOutput)
      .mutation(async ({ ctx, input }) => ({
        status: (await cancelConversationRun(ctx.db, ctx.actor, input)).execution.status,
      })),
  }),

  credits: router({
    request: endUserProcedure(RequestCreditsInput)
      .output(RequestCreditsOutput)
      .mutation(async ({ ctx, input }) => ({ creditRequest: await requestMoreCredits(ctx.db, ctx.actor, input) })),
    /** The end user's own credits by day over this month. */
    usage: endUserProcedure(PortalUsageInput)
      .output(PortalUsage)
      .query(({ ctx }) => getPortalUsage(ctx.db, ctx.actor)),
  }),

  apps: router({
    list: endUserProcedure(PortalInput)
      .output(ListPortalAppsOutput)
      .query(async ({ ctx }) => ({ apps: await listPortalApps(ctx.db, ctx.actor, ctx.portal) })),
  }),

  files: router({
    get: endUserProcedure(GetPortalFileInput)
      .output(FileOutput)
      .query(({ ctx, input }) => getFile(ctx.db, ctx.actor, input)),
  }),

  conversations: router({
    list: endUserProcedure(ListPortalConversationsInput)
      .output(ListPortalConversationsOutput)
      .query(({ ctx, input }) => listEndUserConversations(ctx.db, ctx.actor, input)),
    get: endUserProcedure(GetPortalConversationInput)
      .output(GetPortalConversationOutput)
      .query(async ({ ctx, input }) => ({ conversation: await getEndUserConversation(ctx.db, ctx.actor, input) })),
    rename: endUserProcedure(RenamePortalConversationInput)
      .output(RenamePortalConversationOutput)
      .mutation(({ ctx, input }) => renameEndUserConversation(ctx.db, ctx.actor, input)),
    delete: endUserProcedure(DeletePortalConversationInput)
      .output(DeletePortalConversationOutput)
      .mutation(({ ctx, input }) => hideEndUserConversation(ctx.db, ctx.actor, input)),
    feedback: endUserProcedure(PortalFeedbackInput)
      .output(MessageFeedbackOutput)
      .mutation(({ ctx, input }) =>
        setMessageFeedback(ctx.db, ctx.actor, {
          messageId: input.messageId,
          rating: input.rating,
          reason: input.reason,
        }),
      ),
  }),
});

export type PortalRouter = typeof portalRouter;
