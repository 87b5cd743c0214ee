// Invitations: the console's admins invite, list, resend and revoke; the invitee, holding only
// the link, reads what it offers and accepts it (public procedures, signed in on success).
import {
  AcceptInvitationInput,
  CreateInvitationInput,
  Invitation,
  InvitationIdInput,
  InvitationList,
  InvitationPreview,
  InvitationTokenInput,
  ListInvitationsInput,
  AcceptInvitationOutput,
} from "@/schemas/identity/member";
import { requestOrigin } from "@/server/auth/actor";
import { sessionCookie } from "@/server/auth/cookies";
import { acceptInvitation, previewInvitation } from "@/server/services/identity/invitation-acceptance";
import {
  createInvitation,
  listInvitations,
  resendInvitation,
  revokeInvitation,
} from "@/server/services/identity/invitations";
import { publicProcedure, router } from "../../init";
import { memberCalls } from "../../service-procedures";

export const invitationsRouter = router({
  create: memberCalls.mutationWith(createInvitation, CreateInvitationInput, Invitation),
  list: memberCalls.queryWith(listInvitations, ListInvitationsInput, InvitationList),
  resend: memberCalls.mutationWith(resendInvitation, InvitationIdInput, Invitation),
  revoke: memberCalls.mutationWith(revokeInvitation, InvitationIdInput, Invitation),
  preview: publicProcedure
    .input(InvitationTokenInput)
    .output(InvitationPreview)
    .query(({ ctx, input }) => previewInvitation(ctx.db, input)),
  accept: publicProcedure
    .input(AcceptInvitationInput)
    .output(AcceptInvitationOutput)
    .mutation(async ({ ctx, input }) => {
      const accepted = await acceptInvitation(
        ctx.db,
        input,
        requestOrigin({ headers: ctx.requestHeaders ?? new Headers() }, ctx.requestId, "console"),
      );
      // A second step follows (the member's factor, or enrolling one): no session yet.
      if ("mfa" in accepted)
        return { member: accepted.member, mfa: { ...accepted.mfa, expiresAt: accepted.mfa.expiresAt.toISOString() } };
      const { session } = accepted;
      ctx.response.headers.append("Set-Cookie", sessionCookie(session.token, session.expiresAt, ctx.secureCookies));
      return { member: accepted.member };
    }),
});
