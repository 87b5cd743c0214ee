// The one route table of our own server: which paths it answers without Next.js's request
// routing, with which handler of api-routes.ts (the same functions the Next.js route files
// export) and which methods. The listener's method gate reads the same table, so a door can no
// longer be routed with one list and gated with another (SCIM writes were once refused 405
// because the gate took /scim/v2 for a page). Paths match as the route files do, segment for
// segment; anything else, a trailing slash included, is left to Next.js.
import {
  consoleAuditExportRoute,
  consoleEndUserExportRoute,
  consoleConversationRoute,
  consoleFileContentRoute,
  consoleFilesRoute,
  consoleRunEventsRoute,
  consoleTrpcRoute,
  embedLookRoute,
  embedScriptRoute,
  embedSessionRoute,
  healthRoute,
  mcpRoute,
  metricsRoute,
  oidcCallbackRoute,
  oidcStartRoute,
  portalConversationRoute,
  portalExportRoute,
  portalFileContentRoute,
  portalFilesRoute,
  portalRunEventsRoute,
  portalTrpcRoute,
  restRoute,
  samlAcsRoute,
  samlMetadataRoute,
  samlStartRoute,
  scimRoute,
} from "./api-routes";

export type DirectHandler = (request: Request, params: string[]) => Promise<Response>;

/** Every method some route of Atrium takes; any other is refused before anything reads the request. */
export const SERVED_METHODS: readonly string[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** A door that answers every served method itself, its 404 and 405 in its own error shape. */
export const EVERY_METHOD = "every method";

export interface DirectRoute {
  /** The path as its route file under src/app names it: `{name}` one segment, `{name*}` the rest of the path. */
  path: string;
  door: "rest" | "mcp" | "scim" | "oidc" | "saml" | "console" | "portal" | "operations";
  /** The methods the handler is given (HEAD and OPTIONS are answered for it when GET is one of them). */
  methods: readonly string[] | typeof EVERY_METHOD;
  /** The handler, with the path's `{name}` parameters percent-decoded, in order. */
  handler: DirectHandler;
}

export const DIRECT_ROUTES: readonly DirectRoute[] = [
  { path: "/api/v1", door: "rest", methods: EVERY_METHOD, handler: (request) => restRoute(request) },
  { path: "/api/v1/{path*}", door: "rest", methods: EVERY_METHOD, handler: (request) => restRoute(request) },
  { path: "/api/mcp", door: "mcp", methods: EVERY_METHOD, handler: (request) => mcpRoute(request) },
  { path: "/scim/v2/{path*}", door: "scim", methods: EVERY_METHOD, handler: (request) => scimRoute(request) },
  { path: "/auth/oidc/start", door: "oidc", methods: ["GET"], handler: (request) => oidcStartRoute(request) },
  { path: "/auth/oidc/callback", door: "oidc", methods: ["GET"], handler: (request) => oidcCallbackRoute(request) },
  { path: "/auth/saml/start", door: "saml", methods: ["GET"], handler: (request) => samlStartRoute(request) },
  { path: "/auth/saml/acs", door: "saml", methods: ["POST"], handler: (request) => samlAcsRoute(request) },
  {
    path: "/auth/saml/metadata/{organizationId}",
    door: "saml",
    methods: ["GET"],
    handler: (request, [organizationId]) => samlMetadataRoute(request, organizationId!),
  },
  { path: "/api/trpc/{trpc}", door: "console", methods: ["GET", "POST"], handler: (r) => consoleTrpcRoute(r) },
  {
    path: "/api/portal/trpc/{trpc}",
    door: "portal",
    methods: ["GET", "POST"],
    handler: (request) => portalTrpcRoute(request),
  },
  { path: "/api/console/files", door: "console", methods: ["POST"], handler: (r) => consoleFilesRoute(r) },
  {
    path: "/api/portal/{portal}/files",
    door: "portal",
    methods: ["POST"],
    handler: (request, [portal]) => portalFilesRoute(request, portal!),
  },
  {
    path: "/api/console/files/{fileId}/content",
    door: "console",
    methods: ["GET"],
    handler: (request, [fileId]) => consoleFileContentRoute(request, fileId!),
  },
  {
    path: "/api/portal/{portal}/files/{fileId}/content",
    door: "portal",
    methods: ["GET"],
    handler: (request, [portal, fileId]) => portalFileContentRoute(request, portal!, fileId!),
  },
  {
    path: "/api/portal/{portal}/account/export",
    door: "portal",
    methods: ["GET", "POST"],
    handler: (request, [portal]) => portalExportRoute(request, portal!),
  },
  {
    path: "/api/console/apps/{appId}/conversation",
    door: "console",
    methods: ["POST"],
    handler: (request, [appId]) => consoleConversationRoute(request, appId!),
  },
  {
    path: "/api/console/apps/{appId}/conversation/runs/{executionId}/events",
    door: "console",
    methods: ["GET"],
    handler: (request, [appId, executionId]) => consoleRunEventsRoute(request, appId!, executionId!),
  },
  {
    path: "/api/portal/{portal}/apps/{appId}/conversation",
    door: "portal",
    methods: ["POST"],
    handler: (request, [portal, appId]) => portalConversationRoute(request, portal!, appId!),
  },
  {
    path: "/api/portal/{portal}/apps/{appId}/conversation/runs/{executionId}/events",
    door: "portal",
    methods: ["GET"],
    handler: (request, [portal, appId, executionId]) => portalRunEventsRoute(request, portal!, appId!, executionId!),
  },
  {
    path: "/api/portal/{portal}/embed/session",
    door: "portal",
    methods: ["POST"],
    handler: (request, [portal]) => embedSessionRoute(request, portal!),
  },
  {
    path: "/api/portal/{portal}/embed/look",
    door: "portal",
    methods: ["GET"],
    handler: (request, [portal]) => embedLookRoute(request, portal!),
  },
  { path: "/embed.js", door: "portal", methods: ["GET"], handler: (request) => embedScriptRoute(request) },
  {
    path: "/api/console/audit-events/export",
    door: "console",
    methods: ["GET"],
    handler: (request) => consoleAuditExportRoute(request),
  },
  {
    path: "/api/console/end-users/{endUserId}/export",
    door: "console",
    methods: ["GET"],
    handler: (request, [endUserId]) => consoleEndUserExportRoute(request, endUserId!),
  },
  { path: "/api/health", door: "operations", methods: ["GET"], handler: (request) => healthRoute(request) },
  { path: "/api/metrics", door: "operations", methods: ["GET"], handler: (request) => metricsRoute(request) },
];

/**
 * Route files only Next.js serves, with the methods they export: the benchmark's baseline, and
 * the envelope's 404 for any other path under /api (a trailing slash is redirected by Next.js).
 */
export const NEXT_ONLY_ROUTES: readonly { path: string; methods: readonly string[] }[] = [
  { path: "/api/bench/models", methods: ["GET"] },
  { path: "/api/{rest*}", methods: ["GET", "POST", "PUT", "PATCH", "DELETE"] },
];

/**
 * The embedded chat's frame: a page Next.js renders, which only the portal's allowed origins may
 * frame (the listener rewrites its `frame-ancestors`); every other page keeps `'none'`.
 */
const EMBED_FRAME = /^\/embed\/([^/]+)(?:\/.*)?$/;

/** The portal an embed frame page names, percent-decoded; undefined for any other path. */
export function embedFramePortal(pathname: string): string | undefined {
  const match = EMBED_FRAME.exec(pathname);
  return match ? (param(match[1]!) ?? undefined) : undefined;
}

/** Pages and assets are only read: the app has no server actions. */
const PAGE_METHODS = ["GET", "HEAD"];

/** `{name}` is one segment; `{name*}` the rest of the path (not ending in a slash, as Next.js redirects those). */
function patternOf(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => (/^\{\w+\*\}$/.test(segment) ? "(.*[^/])" : /^\{\w+\}$/.test(segment) ? "([^/]+)" : segment))
    .join("/");
  return new RegExp(`^${source}$`);
}

const TABLE = DIRECT_ROUTES.map((route) => ({ route, pattern: patternOf(route.path) }));
const NEXT_ONLY = NEXT_ONLY_ROUTES.map((route) => ({ route, pattern: patternOf(route.path) }));

/** A path parameter as Next.js hands it to a route (percent-decoded); null when it does not decode. */
function param(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** The route of `pathname` (no query) with its decoded parameters; undefined when Next.js answers it. */
export function directRouteFor(pathname: string): { route: DirectRoute; params: string[] } | undefined {
  for (const { route, pattern } of TABLE) {
    const match = pattern.exec(pathname);
    if (!match) continue;
    const params = route.path.includes("*") ? [] : match.slice(1).map(param);
    if (params.some((value) => value === null)) return undefined;
    return { route, params: params as string[] };
  }
  return undefined;
}

/** What a route declaring `methods` answers: HEAD and OPTIONS come with GET, OPTIONS with any. */
export function allowedMethods(methods: DirectRoute["methods"]): readonly string[] {
  if (methods === EVERY_METHOD) return SERVED_METHODS;
  const allowed = new Set(methods);
  if (allowed.has("GET")) allowed.add("HEAD");
  allowed.add("OPTIONS");
  return SERVED_METHODS.filter((method) => allowed.has(method));
}

/**
 * The methods the path takes, from the route table (a trailing slash, which Next.js redirects
 * keeping the method, takes what the path without it takes); pages and assets are only read.
 */
export function methodsFor(pathname: string): readonly string[] {
  let end = pathname.length;
  while (end > 1 && pathname[end - 1] === "/") end--;
  const trimmed = pathname.slice(0, end);
  for (const { route, pattern } of [...TABLE, ...NEXT_ONLY])
    if (pattern.test(pathname) || pattern.test(trimmed)) return allowedMethods(route.methods);
  return PAGE_METHODS;
}
