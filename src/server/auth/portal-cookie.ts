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
