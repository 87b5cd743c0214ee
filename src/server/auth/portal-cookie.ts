// The portal's end-user session cookie: its own name, so a console session is never read as
// an end user's and an end user's never as a member's. httpOnly, SameSite=Lax, Secure on https.
import { clearedCookieNamed, readCookie, sessionCookieNamed } from "./cookies";

export const PORTAL_SESSION_COOKIE = "atrium_portal_session";

export function readPortalSessionToken(cookieHeader: string | null): string | undefined {
  return readCookie(cookieHeader, PORTAL_SESSION_COOKIE);
}

export function portalSessionCookie(token: string, expiresAt: Date, secure: boolean): string {
  return sessionCookieNamed(PORTAL_SESSION_COOKIE, token, expiresAt, secure);
}

export function clearedPortalSessionCookie(secure: boolean): string {
  return clearedCookieNamed(PORTAL_SESSION_COOKIE, secure);
}

/**
 * The end-user session a portal request carries: `Authorization: Bearer <token>` (the embedded
 * chat, whose frame cannot count on a third-party cookie), else the portal cookie. A header is
 * never sent by a foreign page without our consent, so it needs no more defence than the cookie.
 */
export function portalSessionTokenOf(headers: Headers): string | undefined {
  const bearer = /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(headers.get("authorization") ?? "");
  return bearer?.[1] ?? readPortalSessionToken(headers.get("cookie"));
}
