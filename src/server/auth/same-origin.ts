// Cross-site request forgery defence for doors authenticated by a cookie (the console, the
// end-user portal). SameSite=Lax does not help here: another port of the same host is the
// same *site*, so its pages send our cookies. What a browser cannot forge is `Origin` and
// `Sec-Fetch-Site`, and a cross-origin page cannot send `Content-Type: application/json`
// without a CORS preflight, which we never grant.
import { env } from "@/env";
import { AppError } from "@/server/errors";

/**
 * Throws 403 `cross_origin_request` unless the request comes from the console's own origin:
 * `Sec-Fetch-Site`, when present, must be `same-origin`, and `Origin`, when present, must be
 * the request's own origin or `publicOrigin` (the origin people use behind a proxy). A client
 * that sends neither header is not a browser acting for someone, and may pass.
 */
export function assertSameOrigin(request: Request, publicOrigin: string | undefined = env().PUBLIC_ORIGIN): void {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") {
    throw new AppError(
      "cross_origin_request",
      `This request came from another site (Sec-Fetch-Site: ${site}); only this site's own pages may send it.`,
    );
  }
  const origin = request.headers.get("origin");
  if (origin === null) return;
  if (!ownOrigins(request, publicOrigin).includes(origin)) {
    throw new AppError(
      "cross_origin_request",
      "This request came from another origin; only this site's own pages may send it.",
    );
  }
}

/**
 * The origins this request was addressed to. Next.js builds `request.url` from its own host
 * name, so the Host header (and the X-Forwarded-* headers Next.js fills in, or a proxy sets)
 * say what the browser asked for. A page of another origin cannot set any of them.
 */
export function ownOrigins(request: Request, publicOrigin: string | undefined = env().PUBLIC_ORIGIN): string[] {
  const url = new URL(request.url);
  const first = (name: string) => request.headers.get(name)?.split(",")[0]?.trim() || undefined;
  const scheme = first("x-forwarded-proto") ?? url.protocol.slice(0, -1);
  const hosts = [first("x-forwarded-host"), first("host")].filter((host): host is string => host !== undefined);
  return [
    url.origin,
    ...hosts.map((host) => `${scheme}://${host}`),
    ...(publicOrigin ? [new URL(publicOrigin).origin] : []),
  ];
}

/** The media type of a body, without parameters (`text/plain;charset=UTF-8` → `text/plain`). */
function mediaType(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * Throws 415 `invalid_request` unless the body is declared JSON. A form or a `text/plain`
 * fetch is a "simple" request a foreign page may send without asking; JSON is not.
 */
export function assertJsonBody(request: Request): void {
  if (mediaType(request) !== "application/json") {
    throw new AppError("invalid_request", "Invalid request: send the body as application/json.", {}, { status: 415 });
  }
}
