// Runs before every route: gives each request its id (echoed on the response, and forwarded so
// that route handlers answer with the same one) and puts the security headers on every
// response. Pages get a Content-Security-Policy with a fresh nonce, which Next.js reads from
// the forwarded request's CSP header and puts on its own scripts.
import { NextResponse, type NextRequest } from "next/server";
import { env } from "@/env";
import { PATH_HEADER } from "@/components/portal/i18n/languages";
import { requestIdFrom } from "@/lib/request-id";

/** Portal pages (and the embedded chat's) show the logo an admin set by URL, so they may load https images. */
const PORTAL_PAGES = /^\/(?:p|embed)\//;

export function contentSecurityPolicy(
  nonce: string,
  development = env().NODE_ENV === "development",
  httpsImages = false,
): string {
  return [
    "default-src 'self'",
    // 'strict-dynamic': scripts the nonce'd Next.js runtime loads (code-split chunks) run too.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    // React style attributes and the styles Redoc (the API reference) injects are inline.
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob:${httpsImages ? " https:" : ""}`,
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export const SECURITY_HEADERS: Record<string, string> = {
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
};

export function middleware(request: NextRequest): NextResponse {
  const requestId = requestIdFrom(request.headers.get("x-request-id"));
  const nonce = btoa(crypto.randomUUID());
  const csp = contentSecurityPolicy(nonce, undefined, PORTAL_PAGES.test(request.nextUrl.pathname));

  const forwarded = new Headers(request.headers);
  forwarded.set("x-request-id", requestId);
  forwarded.set("x-nonce", nonce);
  // The root layout's <html lang> follows a portal page's language (src/components/portal/i18n/server.ts).
  forwarded.set(PATH_HEADER, request.nextUrl.pathname);
  forwarded.set("content-security-policy", csp);

  const response = NextResponse.next({ request: { headers: forwarded } });
  response.headers.set("X-Request-Id", requestId);
  response.headers.set("Content-Security-Policy", csp);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
  return response;
}

export const config = {
  // Node.js like every route here: no second (edge) build of the server's modules.
  runtime: "nodejs",
  // Pages only: API and SCIM route handlers set their own request id (src/server/observability/observe.ts)
  // and get static security headers from next.config.mjs, off the middleware's cost per request.
  matcher: ["/((?!api/|scim/|_next/static|_next/image).*)"],
};
