// The single sign-on door: `/auth/oidc/start` sends the browser to the organization's identity
// provider, `/auth/oidc/callback` finishes there (services/identity/oidc.ts) and sets the console or portal
// session cookie. Every redirect is built from PUBLIC_ORIGIN, never from request headers; a
// refusal goes back to the sign-in page as a readable message (`?sso_error=`), never a stack.
import { readCookie, readSessionToken, servedOverHttps } from "@/server/auth/cookies";
import { requestOrigin } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { requestIdFor } from "./envelope";
import { signedInRedirect, ssoRedirect } from "./sso-redirect";
import { isAppError, logIfUnexpected, toAppError } from "@/server/errors";
import { portalPath, resolvePortal } from "@/server/services/portal/portals";
import { startSamlSignIn, startSamlTest } from "@/server/services/identity/saml-sign-in";
import { actorForSession } from "@/server/services/identity/sessions";
import { finishSsoSignIn, OIDC_STATE_COOKIE, startOidcTest, startSsoSignIn } from "@/server/services/identity/oidc";
import { ssoRefusal } from "@/server/services/identity/sso";
import { organizationForMemberEmail, ssoProtocol, type SsoStart } from "@/server/services/identity/sso-sign-in";
import { startSamlResponse } from "./saml";

export interface OidcHandlerOptions {
  db: () => Db;
}

const STATE_COOKIE_SECONDS = 600;

function stateCookie(value: string, secure: boolean, maxAge = STATE_COOKIE_SECONDS): string {
  return `${OIDC_STATE_COOKIE}=${value}; Path=/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? "; Secure" : ""}`;
}

/** Back to the sign-in page (the console's, or the portal's) with the reason to show. */
function backToSignIn(error: unknown, portalSlug: string | null, secure: boolean): Response {
  const refusal = toAppError(error);
  logIfUnexpected(refusal);
  const message = refusal.status >= 500 ? "Single sign-on failed on our side; try again." : refusal.message;
  const page = portalSlug ? `${portalPath(portalSlug)}/sign-in` : "/sign-in";
  return ssoRedirect(`${page}?sso_error=${encodeURIComponent(message)}`, [stateCookie("", secure, 0)]);
}

function startedResponse(started: { url: string; state: string }, secure: boolean): Response {
  return new Response(null, {
    status: 303,
    headers: [
      ["Location", started.url],
      ["Cache-Control", "no-store"],
      ["Set-Cookie", stateCookie(started.state, secure)],
    ],
  });
}

export function createOidcStartHandler(options: OidcHandlerOptions) {
  return async function startOidc(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const secure = servedOverHttps(request);
    const portalRef = url.searchParams.get("portal");
    let portalSlug: string | null = null;
    try {
      const db = options.db();
      let start: SsoStart;
      if (url.searchParams.get("test") !== null) {
        const actor = await actorForSession(db, readSessionToken(request.headers.get("cookie")));
        if (!actor) throw ssoRefusal("Sign in to the console to test single sign-on.");
        if ((await ssoProtocol(db, actor.organizationId)) === "saml")
          return await startSamlResponse(request, () => startSamlTest(db, actor));
        const started = await startOidcTest(db, actor);
        return startedResponse(started, secure);
      } else if (portalRef) {
        const portal = await resolvePortal(db, portalRef.slice(0, 200));
        portalSlug = portal.slug;
        if (portal.signIn === "email_code") throw ssoRefusal("This portal signs in with an email code.");
        start = { kind: "end_user", organizationId: portal.organizationId, portalId: portal.id };
      } else {
        const email = (url.searchParams.get("email") ?? "").slice(0, 320);
        const connection = email ? await organizationForMemberEmail(db, email) : null;
        if (!connection) throw ssoRefusal("No organization signs in this email address with single sign-on.");
        start = { kind: "member", organizationId: connection.organizationId };
      }
      // The sign-in pages' one button: an organization connected over SAML goes there instead.
      if ((await ssoProtocol(db, start.organizationId)) === "saml")
        return await startSamlResponse(request, () => startSamlSignIn(db, start));
      return startedResponse(await startSsoSignIn(db, start), secure);
    } catch (error) {
      return backToSignIn(error, portalSlug, secure);
    }
  };
}

export function createOidcCallbackHandler(options: OidcHandlerOptions) {
  return async function finishOidc(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const secure = servedOverHttps(request);
    try {
      const { door: _door, ...origin } = requestOrigin(request, requestIdFor(request), "console");
      const finished = await finishSsoSignIn(
        options.db(),
        url.searchParams,
        readCookie(request.headers.get("cookie"), OIDC_STATE_COOKIE),
        origin,
      );
      const cleared = stateCookie("", secure, 0);
      return signedInRedirect(finished, cleared, secure);
    } catch (error) {
      const portalSlug =
        isAppError(error) && typeof (error as { portalSlug?: unknown }).portalSlug === "string"
          ? (error as unknown as { portalSlug: string }).portalSlug
          : null;
      return backToSignIn(error, portalSlug, secure);
    }
  };
}
