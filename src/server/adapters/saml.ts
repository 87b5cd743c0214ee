// The SAML door: `/auth/saml/start` sends the browser to the identity provider with our
// AuthnRequest, the provider POSTs its response to `/auth/saml/acs` (services/identity/saml-sign-in.ts checks it)
// and we set the console or portal session cookie; `/auth/saml/metadata/{organization}` is our
// service provider metadata. Every redirect is built from PUBLIC_ORIGIN, never from request
// headers; a refusal goes back to the sign-in page with a readable message (`?sso_error=`) and
// its reason (`&sso_reason=`), never a stack.
import { requestOrigin } from "@/server/auth/actor";
import { readCookie, readSessionToken, servedOverHttps } from "@/server/auth/cookies";
import type { Db } from "@/server/db";
import { AppError, isAppError, logIfUnexpected, toAppError } from "@/server/errors";
import { portalPath, resolvePortal } from "@/server/services/portal/portals";
import { samlMetadata } from "@/server/services/identity/saml";
import {
  finishSamlSignIn,
  SAML_REQUEST_COOKIE,
  startSamlSignIn,
  startSamlTest,
} from "@/server/services/identity/saml-sign-in";
import { actorForSession } from "@/server/services/identity/sessions";
import { ssoRefusal } from "@/server/services/identity/sso";
import { organizationForMemberEmail } from "@/server/services/identity/sso-sign-in";
import { readBodyBytes } from "./json-body";
import { errorResponse, requestIdFor } from "./envelope";
import { signedInRedirect, ssoRedirect } from "./sso-redirect";

export interface SamlHandlerOptions {
  db: () => Db;
}

const REQUEST_COOKIE_SECONDS = 600;
/** A SAML response is a few kilobytes; a large certificate chain and many attributes stay well below this. */
const MAX_ACS_BODY_BYTES = 512 * 1024;

/**
 * The identity provider POSTs from its own site: over https the cookie is SameSite=None so that
 * POST carries it; over http (a local setup, where browsers refuse None without Secure) Lax.
 */
function requestCookie(value: string, secure: boolean, maxAge = REQUEST_COOKIE_SECONDS): string {
  const sameSite = secure ? "SameSite=None; Secure" : "SameSite=Lax";
  return `${SAML_REQUEST_COOKIE}=${value}; Path=/auth/saml; HttpOnly; ${sameSite}; Max-Age=${maxAge}`;
}

function backToSignIn(error: unknown, secure: boolean): Response {
  const refusal = toAppError(error);
  logIfUnexpected(refusal);
  const { portalSlug, reason } = isAppError(error)
    ? (error as AppError & { portalSlug?: string | null; reason?: string })
    : { portalSlug: null, reason: undefined };
  const message = refusal.status >= 500 ? "Single sign-on failed on our side; try again." : refusal.message;
  const page = portalSlug ? `${portalPath(portalSlug)}/sign-in` : "/sign-in";
  const query = `sso_error=${encodeURIComponent(message)}${reason ? `&sso_reason=${reason}` : ""}`;
  return ssoRedirect(`${page}?${query}`, [requestCookie("", secure, 0)]);
}

/** Sends the browser to the identity provider; shared with `/auth/oidc/start` for a SAML connection. */
export async function startSamlResponse(
  request: Request,
  start: () => Promise<{ url: string; requestId: string }>,
): Promise<Response> {
  const started = await start();
  return new Response(null, {
    status: 303,
    headers: [
      ["Location", started.url],
      ["Cache-Control", "no-store"],
      ["Set-Cookie", requestCookie(started.requestId, servedOverHttps(request))],
    ],
  });
}

export function createSamlStartHandler(options: SamlHandlerOptions) {
  return async function startSaml(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const secure = servedOverHttps(request);
    let portalSlug: string | null = null;
    try {
      const db = options.db();
      const portalRef = url.searchParams.get("portal");
      if (url.searchParams.get("test") !== null) {
        const actor = await actorForSession(db, readSessionToken(request.headers.get("cookie")));
        if (!actor) throw ssoRefusal("Sign in to the console to test single sign-on.");
        return await startSamlResponse(request, () => startSamlTest(db, actor));
      }
      if (portalRef) {
        const portal = await resolvePortal(db, portalRef.slice(0, 200));
        portalSlug = portal.slug;
        if (portal.signIn === "email_code") throw ssoRefusal("This portal signs in with an email code.");
        return await startSamlResponse(request, () =>
          startSamlSignIn(db, { kind: "end_user", organizationId: portal.organizationId, portalId: portal.id }),
        );
      }
      const email = (url.searchParams.get("email") ?? "").slice(0, 320);
      const connection = email ? await organizationForMemberEmail(db, email) : null;
      if (!connection) throw ssoRefusal("No organization signs in this email address with single sign-on.");
      return await startSamlResponse(request, () =>
        startSamlSignIn(db, { kind: "member", organizationId: connection.organizationId }),
      );
    } catch (error) {
      if (isAppError(error) && !(error as { portalSlug?: unknown }).portalSlug) Object.assign(error, { portalSlug });
      return backToSignIn(error, secure);
    }
  };
}

export function createSamlAcsHandler(options: SamlHandlerOptions) {
  return async function finishSaml(request: Request): Promise<Response> {
    const secure = servedOverHttps(request);
    try {
      const body = await readBodyBytes(request, MAX_ACS_BODY_BYTES, () =>
        ssoRefusal("The identity provider's answer is too large."),
      );
      const form = new URLSearchParams(body.toString("utf8"));
      const { door: _door, ...origin } = requestOrigin(request, requestIdFor(request), "console");
      const finished = await finishSamlSignIn(
        options.db(),
        form.get("SAMLResponse"),
        readCookie(request.headers.get("cookie"), SAML_REQUEST_COOKIE),
        origin,
      );
      const cleared = requestCookie("", secure, 0);
      return signedInRedirect(finished, cleared, secure);
    } catch (error) {
      return backToSignIn(error, secure);
    }
  };
}

export function createSamlMetadataHandler(options: SamlHandlerOptions) {
  return async function samlMetadataDocument(request: Request, organizationId: string): Promise<Response> {
    try {
      if (!/^[0-9a-f-]{36}$/i.test(organizationId)) throw new AppError("not_found", "No organization with that id.");
      const xml = await samlMetadata(options.db(), organizationId);
      return new Response(xml, {
        headers: {
          "Content-Type": "application/samlmetadata+xml; charset=utf-8",
          "X-Request-Id": requestIdFor(request),
          "Cache-Control": "no-store",
        },
      });
    } catch (error) {
      return errorResponse(toAppError(error), requestIdFor(request));
    }
  };
}
