import { MemberIdInput } from "@/schemas/identity/member";
import { MfaCodeInput, MfaResetResult, MfaStatus, RecoveryCodes, TotpEnrollment } from "@/schemas/identity/mfa";
import { OkOutput } from "@/schemas/common";
import { clientAddress } from "@/server/auth/client-address";
import {
  confirmMfaEnrollment,
  getMfaStatus,
  removeOwnMfa,
  resetMemberMfa,
  startMfaEnrollment,
} from "@/server/services/identity/mfa";
import { memberProcedure, router } from "../../init";

/** The signed-in member's own second factor, and an owner's reset of a member's. */
export const mfaRouter = router({
  status: memberProcedure(getMfaStatus.requirement)
    .output(MfaStatus)
    .query(({ ctx }) => getMfaStatus(ctx.db, ctx.actor)),
  startEnrollment: memberProcedure(startMfaEnrollment.requirement)
    .output(TotpEnrollment)
    .mutation(({ ctx }) => startMfaEnrollment(ctx.db, ctx.actor)),
  confirmEnrollment: memberProcedure(confirmMfaEnrollment.requirement)
    .input(MfaCodeInput)
    .output(RecoveryCodes)
    .mutation(({ ctx, input }) =>
      confirmMfaEnrollment(ctx.db, ctx.actor, input, {
        clientAddress: clientAddress(ctx.requestHeaders ?? new Headers()),
      }),
    ),
  remove: memberProcedure(removeOwnMfa.requirement)
    .input(MfaCodeInput)
    .output(OkOutput)
    .mutation(async ({ ctx, input }) => {
      await removeOwnMfa(ctx.db, ctx.actor, input, {
        clientAddress: clientAddress(ctx.requestHeaders ?? new Headers()),
      });
      return { ok: true as const };
    }),
  reset: memberProcedure(resetMemberMfa.requirement)
    .input(MemberIdInput)
    .output(MfaResetResult)
    .mutation(({ ctx, input }) => resetMemberMfa(ctx.db, ctx.actor, input)),
});
