// Which paths our own server answers without Next.js's request routing, and with which handler
// of api-routes.ts (the same functions the Next.js route files export). Paths match as the route
// files do, segment for segment; anything else, a trailing slash included, is left to Next.js.
import { consoleConversationRoute, consoleTrpcRoute, healthRoute, mcpRoute, metricsRoute, portalConversationRoute, portalTrpcRoute, restRoute, scimRoute } from "./api-routes";

export type DirectHandler = (request: Request) => Promise<Response>;

/** Paths answered whole, with the methods their route files export (undefined: every method). */
const EXACT: Record<string, { handler: DirectHandler; methods?: string[] }> = {
  "/api/v1": { handler: restRoute },
  "/api/mcp": { handler: mcpRoute },
  "/api/health": { handler: healthRoute, methods: ["GET"] },
  "/api/metrics": { handler: metricsRoute, methods: ["GET"] },
};

const SEGMENT = "([^/]+)";
const CONSOLE_TRPC = new RegExp(`^/api/trpc/${SEGMENT}$`);
const PORTAL_TRPC = new RegExp(`^/api/portal/trpc/${SEGMENT}$`);
const CONSOLE_CONVERSATION = new RegExp(`^/api/console/apps/${SEGMENT}/conversation$`);
const PORTAL_CONVERSATION = new RegExp(`^/api/portal/${SEGMENT}/apps/${SEGMENT}/conversation$`);

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
