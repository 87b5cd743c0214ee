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
import { router } from "../../init";
import { memberCalls } from "../../service-procedures";

export const ssoRouter = router({
  get: memberCalls.query(getSsoConnection, SsoConnection.nullable()),
  set: memberCalls.mutationWith(setSsoConnection, SetSsoConnectionInput, SsoConnection),
  setSaml: memberCalls.mutationWith(setSamlConnection, SetSamlConnectionInput, SsoConnection),
  lastTest: memberCalls.query(lastSsoTest, SsoTestSignIn.nullable()),
  remove: memberCalls.mutation(removeSsoConnection, SsoConnection),
  test: memberCalls.mutation(testSsoConnection, SsoTestResult),
});
