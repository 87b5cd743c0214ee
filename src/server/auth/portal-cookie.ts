// The portal's end-user session cookie: its own name, so a console session is never read as
// an end user's and an end user's never as a member's. httpOnly, SameSite=Lax, Secure on https.
export const PORTAL_SESSION_COOKIE = "atrium_portal_session";

export function readPortalSessionToken(cookieHeader: string | null): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === PORTAL_SESSION_COOKIE) return decodeURIComponent(rest.join("="));
  }
  return undefined;
}

export function portalSessionCookie(token: string, expiresAt: Date, secure: boolean): string {
  return [
    `${PORTAL_SESSION_COOKIE}=${encodeURIComponent(token)}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Expires=${expiresAt.toUTCString()}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

export function clearedPortalSessionCookie(secure: boolean): string {
  return [`${PORTAL_SESSION_COOKIE}=`, "Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=0", ...(secure ? ["Secure"] : [])].join("; ");
}
