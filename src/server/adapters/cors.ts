// CORS for /api/v1: browser apps on the origins the operator listed (CORS_ORIGINS) may call the
// API with their keys; every other origin gets no CORS fields, so its browser refuses to read
// the answer. The API document is readable from any origin. Keys travel in Authorization, never
// in cookies, so credentials are never allowed.

/** What a browser script may send: the headers the reference defines for requests. */
const REQUEST_HEADERS = [
  "Authorization",
  "Content-Type",
  "Idempotency-Key",
  "If-Match",
  "If-Unmodified-Since",
  "Last-Event-ID",
  "X-Request-Id",
];

/** What a browser script may read besides the CORS-safelisted response headers. */
const EXPOSED_HEADERS = [
  "X-Request-Id",
  "RateLimit",
  "RateLimit-Policy",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "Retry-After",
  "ETag",
  "Idempotent-Replayed",
  "Location",
  "WWW-Authenticate",
];

const PREFLIGHT_MAX_AGE_SECONDS = 600;

export function isAllowedOrigin(request: Request, allowed: readonly string[]): boolean {
  const origin = request.headers.get("origin");
  return origin !== null && allowed.includes(origin);
}

/** A preflight (OPTIONS with Access-Control-Request-Method) from an allowed origin. */
export function isAllowedPreflight(request: Request, allowed: readonly string[]): boolean {
  return (
    request.method === "OPTIONS" &&
    request.headers.has("access-control-request-method") &&
    isAllowedOrigin(request, allowed)
  );
}

/** The fields of an answer to an allowed preflight: the path's methods and the request headers above. */
export function preflightHeaders(request: Request, methods: readonly string[]): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": request.headers.get("origin")!,
    "Access-Control-Allow-Methods": methods.join(", "),
    "Access-Control-Allow-Headers": REQUEST_HEADERS.join(", "),
    "Access-Control-Max-Age": String(PREFLIGHT_MAX_AGE_SECONDS),
    Vary: "Origin",
  };
}

/**
 * The response with the CORS fields its request earns: any origin for `anyOrigin` (the API
 * document), the request's own origin when it is on the list, none otherwise. `Vary: Origin` is
 * always set on listed-origin routes so that caches keep the answers apart.
 */
export function withCors(
  request: Request,
  response: Response,
  allowed: readonly string[],
  anyOrigin = false,
): Response {
  if (!anyOrigin && allowed.length === 0) return response;
  const headers = new Headers(response.headers);
  if (anyOrigin) headers.set("Access-Control-Allow-Origin", "*");
  else {
    headers.append("Vary", "Origin");
    if (!isAllowedOrigin(request, allowed))
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    headers.set("Access-Control-Allow-Origin", request.headers.get("origin")!);
  }
  headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS.join(", "));
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
