import { SignInInput } from "@/schemas/identity/auth";
import { MfaChallengeInput, MfaSignInInput, RecoveryCodes, SignInResult, TotpEnrollment } from "@/schemas/identity/mfa";
import { ChangePasswordInput, ConsoleMeOutput } from "@/schemas/identity/member";
import { OkOutput } from "@/schemas/common";
import { changeOwnPassword } from "@/server/services/identity/members";
import { getOrganization } from "@/server/services/org/organizations";
import { startSignInEnrollment } from "@/server/services/identity/mfa-sign-in";
import { signIn, signInEnrolling, signInWithCode, signOut } from "@/server/services/identity/sessions";
import { requestOrigin } from "@/server/auth/actor";
import { clientAddress } from "@/server/auth/client-address";
import { clearedSessionCookie, sessionCookie } from "@/server/auth/cookies";
import { toAppError } from "@/server/errors";
import { logRefusedSignIn } from "@/server/observability/operator-log";
import { memberProcedure, publicProcedure, router } from "../../init";

export const authRouter = router({
  signIn: publicProcedure
    .input(SignInInput)
    .output(SignInResult)
    .mutation(async ({ ctx, input }) => {
      const headers = ctx.requestHeaders ?? new Headers();
      const address = clientAddress(headers);
      const result = await signIn(ctx.db, input, address, requestOrigin({ headers }, ctx.requestId, "console")).catch(
        (error: unknown) => {
          logRefusedSignIn("console", { email: input.email, clientAddress: address, code: toAppError(error).code });
          throw error;
        },
      );
      if ("mfa" in result) return { mfa: { ...result.mfa, expiresAt: result.mfa.expiresAt.toISOString() } };
      ctx.response.headers.append(
        "Set-Cookie",
        sessionCookie(result.session.token, result.session.expiresAt, ctx.secureCookies),
      );
      return { ok: true as const };
    }),

  /** The second step of a password sign-in: a code from the authenticator or a recovery code. */
  verifyMfa: publicProcedure
    .input(MfaSignInInput)
    .output(OkOutput)
    .mutation(async ({ ctx, input }) => {
      const headers = ctx.requestHeaders ?? new Headers();
      const origin = requestOrigin({ headers }, ctx.requestId, "console");
      const session = await signInWithCode(ctx.db, input, clientAddress(headers), origin);
      ctx.response.headers.append("Set-Cookie", sessionCookie(session.token, session.expiresAt, ctx.secureCookies));
      return { ok: true as const };
    }),

  /** A member the organization requires a second factor of, without one: the QR code to scan… */
  startMfaEnrollment: publicProcedure
    .input(MfaChallengeInput)
    .output(TotpEnrollment)
    .mutation(({ ctx, input }) => startSignInEnrollment(ctx.db, input)),

  /** …and the first code, which enrolls and signs in: the recovery codes, shown once. */
  finishMfaEnrollment: publicProcedure
    .input(MfaSignInInput)
    .output(RecoveryCodes)
    .mutation(async ({ ctx, input }) => {
      const headers = ctx.requestHeaders ?? new Headers();
      const origin = requestOrigin({ headers }, ctx.requestId, "console");
      const { session, recoveryCodes } = await signInEnrolling(ctx.db, input, clientAddress(headers), origin);
      ctx.response.headers.append("Set-Cookie", sessionCookie(session.token, session.expiresAt, ctx.secureCookies));
      return { recoveryCodes };
    }),

  signOut: publicProcedure.output(OkOutput).mutation(async ({ ctx }) => {
    await signOut(ctx.db, ctx.sessionToken);
    ctx.response.headers.append("Set-Cookie", clearedSessionCookie(ctx.secureCookies));
    return { ok: true as const };
  }),

  changePassword: memberProcedure(changeOwnPassword.requirement)
    .input(ChangePasswordInput)
    .output(OkOutput)
    .mutation(async ({ ctx, input }) => {
      await changeOwnPassword(ctx.db, ctx.actor, input, {
        keepSessionToken: ctx.sessionToken,
        clientAddress: clientAddress(ctx.requestHeaders ?? new Headers()),
      });
      return { ok: true as const };
    }),

  me: memberProcedure(getOrganization.requirement)
    .output(ConsoleMeOutput)
    .query(async ({ ctx }) => {
      const organization = await getOrganization(ctx.db, ctx.actor);
      const { id, email, role } = ctx.actor.member;
      return { member: { id, email, role }, organization };
    }),
});
