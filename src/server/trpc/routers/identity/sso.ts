// Console-only: the organization's single sign-on connection (admins), OpenID Connect or SAML.
// The client secret goes in and is never read back; "Test connection" runs discovery against the
// issuer (OpenID Connect); "Test sign-in" shows what the identity provider sent to a sign-in that
// signs nobody in (either protocol).
import {
  SetSamlConnectionInput,
  SetSsoConnectionInput,
  SsoConnection,
  SsoTestResult,
  SsoTestSignIn,
} from "@/schemas/identity/sso";
import { setSamlConnection } from "@/server/services/identity/saml";
import { testSsoConnection } from "@/server/services/identity/oidc";
import { getSsoConnection, removeSsoConnection, setSsoConnection } from "@/server/services/identity/sso";
import { lastSsoTest } from "@/server/services/identity/sso-sign-in";
import { memberProcedure, router } from "../../init";

export const ssoRouter = router({
  get: memberProcedure(getSsoConnection.requirement)
    .output(SsoConnection.nullable())
    .query(({ ctx }) => getSsoConnection(ctx.db, ctx.actor)),
  set: memberProcedure(setSsoConnection.requirement)
    .input(SetSsoConnectionInput)
    .output(SsoConnection)
    .mutation(({ ctx, input }) => setSsoConnection(ctx.db, ctx.actor, input)),
  setSaml: memberProcedure(setSamlConnection.requirement)
    .input(SetSamlConnectionInput)
    .output(SsoConnection)
    .mutation(({ ctx, input }) => setSamlConnection(ctx.db, ctx.actor, input)),
  lastTest: memberProcedure(lastSsoTest.requirement)
    .output(SsoTestSignIn.nullable())
    .query(({ ctx }) => lastSsoTest(ctx.db, ctx.actor)),
  remove: memberProcedure(removeSsoConnection.requirement)
    .output(SsoConnection)
    .mutation(({ ctx }) => removeSsoConnection(ctx.db, ctx.actor)),
  test: memberProcedure(testSsoConnection.requirement)
    .output(SsoTestResult)
    .mutation(({ ctx }) => testSsoConnection(ctx.db, ctx.actor)),
});
