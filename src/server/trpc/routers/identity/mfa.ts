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
import { memberCalls } from "../../service-procedures";

/** The signed-in member's own second factor, and an owner's reset of a member's. */
export const mfaRouter = router({
  status: memberCalls.query(getMfaStatus, MfaStatus),
  startEnrollment: memberCalls.mutation(startMfaEnrollment, TotpEnrollment),
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
  reset: memberCalls.mutationWith(resetMemberMfa, MemberIdInput, MfaResetResult),
});
