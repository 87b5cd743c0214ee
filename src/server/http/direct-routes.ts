// Which paths our own server answers without Next.js's request routing, and with which handler
// of api-routes.ts (the same functions the Next.js route files export). Paths match as the route
// files do, segment for segment; anything else, a trailing slash included, is left to Next.js.
import {
  consoleAuditExportRoute,
  consoleConversationRoute,
  consoleRunEventsRoute,
  consoleTrpcRoute,
  healthRoute,
  mcpRoute,
  metricsRoute,
  portalConversationRoute,
  portalRunEventsRoute,
  portalTrpcRoute,
  restRoute,
  scimRoute,
} from "./api-routes";

export type DirectHandler = (request: Request) => Promise<Response>;

/** Paths answered whole, with the methods their route files export (undefined: every method). */
const EXACT: Record<string, { handler: DirectHandler; methods?: string[] }> = {
  "/api/v1": { handler: restRoute },
  "/api/mcp": { handler: mcpRoute },
  "/api/health": { handler: healthRoute, methods: ["GET"] },
  "/api/metrics": { handler: metricsRoute, methods: ["GET"] },
  "/api/console/audit-events/export": { handler: consoleAuditExportRoute, methods: ["GET", "HEAD"] },
};

const SEGMENT = "([^/]+)";
const CONSOLE_TRPC = new RegExp(`^/api/trpc/${SEGMENT}$`);
const PORTAL_TRPC = new RegExp(`^/api/portal/trpc/${SEGMENT}$`);
const CONSOLE_CONVERSATION = new RegExp(`^/api/console/apps/${SEGMENT}/conversation$`);
const PORTAL_CONVERSATION = new RegExp(`^/api/portal/${SEGMENT}/apps/${SEGMENT}/conversation$`);
const CONSOLE_RUN_EVENTS = new RegExp(`^/api/console/apps/${SEGMENT}/conversation/runs/${SEGMENT}/events$`);
const PORTAL_RUN_EVENTS = new RegExp(`^/api/portal/${SEGMENT}/apps/${SEGMENT}/conversation/runs/${SEGMENT}/events$`);

/** Every method some route of Atrium takes; any other is refused before anything reads the request. */
export const SERVED_METHODS: readonly string[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
/** Pages and assets (everything outside /api/) are only read: the app has no server actions. */
const PAGE_METHODS = ["GET", "HEAD"];
/** What Next.js serves for a route file exporting only GET (it adds HEAD and OPTIONS itself). */
const READ_ROUTE_METHODS = ["GET", "HEAD", "OPTIONS"];
const TRPC_METHODS = ["GET", "HEAD", "POST", "OPTIONS"];
const CONVERSATION_METHODS = ["POST", "OPTIONS"];
const READ_ROUTES = new Set(["/api/health", "/api/metrics", "/api/bench/models", "/api/console/audit-events/export"]);

/**
 * The methods the route at `pathname` takes, as its route file under src/app/api exports them;
 * the REST door, MCP and unknown API paths take every served method and answer for themselves.
 */
export function methodsFor(pathname: string): readonly string[] {
  if (!pathname.startsWith("/api/")) return PAGE_METHODS;
  if (READ_ROUTES.has(pathname)) return READ_ROUTE_METHODS;
  if (CONSOLE_TRPC.test(pathname) || PORTAL_TRPC.test(pathname)) return TRPC_METHODS;
  if (CONSOLE_CONVERSATION.test(pathname) || PORTAL_CONVERSATION.test(pathname)) return CONVERSATION_METHODS;
  if (CONSOLE_RUN_EVENTS.test(pathname) || PORTAL_RUN_EVENTS.test(pathname)) return READ_ROUTE_METHODS;
  return SERVED_METHODS;
}

/** A path parameter as Next.js hands it to a route (percent-decoded); null when it does not decode. */
function param(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** The handler for `pathname` (no query), or undefined when Next.js should answer it. */
export function directHandlerFor(pathname: string, method: string): DirectHandler | undefined {
  if (pathname.startsWith("/scim/v2/") && !pathname.endsWith("/")) return scimRoute;
  if (!pathname.startsWith("/api/")) return undefined;
  const exact = EXACT[pathname];
  if (exact) return !exact.methods || exact.methods.includes(method) ? exact.handler : undefined;
  if (pathname.startsWith("/api/v1/") && !pathname.endsWith("/")) return restRoute;
  if (method !== "GET" && method !== "POST") return undefined;
  if (CONSOLE_TRPC.test(pathname)) return consoleTrpcRoute;
  if (PORTAL_TRPC.test(pathname)) return portalTrpcRoute;
  if (method === "GET") return runEventsHandlerFor(pathname);
  if (method !== "POST") return undefined;
  const consoleChat = CONSOLE_CONVERSATION.exec(pathname);
  if (consoleChat) {
    const appId = param(consoleChat[1]!);
    return appId === null ? undefined : (request) => consoleConversationRoute(request, appId);
  }
  const portalChat = PORTAL_CONVERSATION.exec(pathname);
  if (portalChat) {
    const [portal, appId] = [param(portalChat[1]!), param(portalChat[2]!)];
    return portal === null || appId === null ? undefined : (request) => portalConversationRoute(request, portal, appId);
  }
  return undefined;
}

/** The resume stream of a console or portal chat run at `pathname`, if it is one. */
function runEventsHandlerFor(pathname: string): DirectHandler | undefined {
  const consoleRun = CONSOLE_RUN_EVENTS.exec(pathname);
  if (consoleRun) {
    const [appId, executionId] = [param(consoleRun[1]!), param(consoleRun[2]!)];
    return appId === null || executionId === null
      ? undefined
      : (request) => consoleRunEventsRoute(request, appId, executionId);
  }
  const portalRun = PORTAL_RUN_EVENTS.exec(pathname);
  if (portalRun) {
    const [portal, appId, executionId] = [param(portalRun[1]!), param(portalRun[2]!), param(portalRun[3]!)];
    return portal === null || appId === null || executionId === null
      ? undefined
      : (request) => portalRunEventsRoute(request, portal, appId, executionId);
  }
  return undefined;
}
