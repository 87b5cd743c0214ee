// The console session cookie: httpOnly, SameSite=Lax, Secure on https.
import { env } from "@/env";

export const SESSION_COOKIE = "atrium_session";

/**
 * Cookies are Secure when people reach the server over https: the request itself is https (its
 * URL, or the X-Forwarded-Proto of a TLS-terminating proxy), or the configured public origin is.
 * A client that claims https for itself only makes its own cookie stricter.
 */
export function servedOverHttps(
  request: Pick<Request, "url" | "headers">,
  publicOrigin: string | undefined = env().PUBLIC_ORIGIN,
): boolean {
  return (
    new URL(request.url).protocol === "https:" ||
    request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https" ||
    (publicOrigin !== undefined && new URL(publicOrigin).protocol === "https:")
  );
}

/** A cookie's value from a Cookie header; undefined when absent or not valid percent-encoding (no cookie, never an error). */
export function readCookie(cookieHeader: string | null, cookieName: string): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name !== cookieName) continue;
    try {
      return decodeURIComponent(rest.join("="));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** A session cookie: httpOnly, SameSite=Lax, Secure on https, for the whole site. */
export function sessionCookieNamed(cookieName: string, token: string, expiresAt: Date, secure: boolean): string {
  return [
    `${cookieName}=${encodeURIComponent(token)}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Expires=${expiresAt.toUTCString()}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

/** The same cookie, cleared. */
export function clearedCookieNamed(cookieName: string, secure: boolean): string {
  return [`${cookieName}=`, "Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=0", ...(secure ? ["Secure"] : [])].join(
    "; ",
  );
}

export function readSessionToken(cookieHeader: string | null): string | undefined {
  return readCookie(cookieHeader, SESSION_COOKIE);
}

export function sessionCookie(token: string, expiresAt: Date, secure = false): string {
  return sessionCookieNamed(SESSION_COOKIE, token, expiresAt, secure);
}

export function clearedSessionCookie(secure = false): string {
  return clearedCookieNamed(SESSION_COOKIE, secure);
}
