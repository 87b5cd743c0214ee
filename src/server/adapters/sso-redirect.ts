// What the OpenID Connect and SAML doors answer alike: a 303 built from PUBLIC_ORIGIN (never from
// request headers), and where a finished sign-in leads.
import { publicOrigin } from "@/env";
import { sessionCookie } from "@/server/auth/cookies";
import { portalSessionCookie } from "@/server/auth/portal-cookie";
import { SSO_TEST_RESULT_PAGE, type SsoFinish } from "@/server/services/identity/sso-sign-in";
import { portalPath } from "@/server/services/portal/portals";

export function ssoRedirect(path: string, cookies: string[] = []): Response {
  const headers = new Headers({ Location: `${publicOrigin()}${path}`, "Cache-Control": "no-store" });
  for (const cookie of cookies) headers.append("Set-Cookie", cookie);
  return new Response(null, { status: 303, headers });
}

/**
 * A finished sign-in: to the test's result page, the console or the portal, with the session
 * cookie it made; `clearing` ends the door's own cookie of the round trip.
 */
export function signedInRedirect(finished: SsoFinish, clearing: string, secure: boolean): Response {
  if (finished.kind === "test") return ssoRedirect(SSO_TEST_RESULT_PAGE, [clearing]);
  if (finished.kind === "member")
    return ssoRedirect("/", [sessionCookie(finished.session.token, finished.session.expiresAt, secure), clearing]);
  return ssoRedirect(portalPath(finished.portalSlug), [
    portalSessionCookie(finished.session.token, finished.session.expiresAt, secure),
    clearing,
  ]);
}
