// Console-only: the organization's single sign-on connection (admins). The client secret goes in
// and is never read back; "Test connection" runs discovery against the issuer.
import { SetSsoConnectionInput, SsoConnection, SsoTestResult } from "@/schemas/sso";
import { getSsoConnection, removeSsoConnection, setSsoConnection, testSsoConnection } from "@/server/services/sso";
import { memberProcedure, router } from "../init";

export const ssoRouter = router({
  get: memberProcedure(getSsoConnection.requirement)
    .output(SsoConnection.nullable())
    .query(({ ctx }) => getSsoConnection(ctx.db, ctx.actor)),
  set: memberProcedure(setSsoConnection.requirement)
    .input(SetSsoConnectionInput)
    .output(SsoConnection)
    .mutation(({ ctx, input }) => setSsoConnection(ctx.db, ctx.actor, input)),
  remove: memberProcedure(removeSsoConnection.requirement)
    .output(SsoConnection)
    .mutation(({ ctx }) => removeSsoConnection(ctx.db, ctx.actor)),
  test: memberProcedure(testSsoConnection.requirement)
    .output(SsoTestResult)
    .mutation(({ ctx }) => testSsoConnection(ctx.db, ctx.actor)),
});
