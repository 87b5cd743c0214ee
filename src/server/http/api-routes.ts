// The API's route handlers, built once per process and observed (log line, metrics). Two doors
// call these same functions: the Next.js route files under src/app/api (next dev, tests that call
// routes in-process) and our own server, which answers these paths without Next.js's request
// routing (direct-routes.ts). The MCP door loads its SDK on its first request.
import {
  createConsoleAuditExportHandler,
  createConsoleEndUserExportHandler,
  createConsoleConversationHandler,
  createConsoleFileContentHandler,
  createConsoleFilesHandler,
  createConsoleHandler,
  createConsoleRunEventsHandler,
} from "@/server/adapters/console";
import { createMetricsHandler } from "@/server/adapters/metrics";
import {
  createEmbedLookHandler,
  createEmbedSessionHandler,
  createPortalConversationHandler,
  createPortalExportHandler,
  createPortalFileContentHandler,
  createPortalFilesHandler,
  createPortalHandler,
  createPortalRunEventsHandler,
} from "@/server/adapters/portal";
import { embedScriptResponse } from "@/server/adapters/embed-script";
import { embedFrameAncestors } from "@/server/services/portal/portal-embed";
import { errorResponse, requestIdFor } from "@/server/adapters/envelope";
import { createRestHandler } from "@/server/adapters/rest";
import { createScimHandler } from "@/server/adapters/scim";
import { createOidcCallbackHandler, createOidcStartHandler } from "@/server/adapters/oidc";
import { createSamlAcsHandler, createSamlMetadataHandler, createSamlStartHandler } from "@/server/adapters/saml";
import { readMigrations } from "@/server/database/migrate";
import { getDb } from "@/server/db";
import { AppError } from "@/server/errors";
import { observed } from "@/server/observability/observe";

type Handler = (request: Request) => Promise<Response>;

export const restRoute: Handler = observed("/api/v1", createRestHandler({ db: getDb }));

let mcp: Promise<Handler> | undefined;
export const mcpRoute: Handler = observed("/api/mcp", async (request: Request) => {
  mcp ??= import("@/server/adapters/mcp").then(({ createMcpHandler }) => createMcpHandler({ db: getDb }));
  return (await mcp)(request);
});

export const scimRoute: Handler = observed("/scim/v2", createScimHandler({ db: getDb }));

export const oidcStartRoute: Handler = observed("/auth/oidc/start", createOidcStartHandler({ db: getDb }));

export const oidcCallbackRoute: Handler = observed("/auth/oidc/callback", createOidcCallbackHandler({ db: getDb }));

export const samlStartRoute: Handler = observed("/auth/saml/start", createSamlStartHandler({ db: getDb }));

export const samlAcsRoute: Handler = observed("/auth/saml/acs", createSamlAcsHandler({ db: getDb }));

export const samlMetadataRoute: (request: Request, organizationId: string) => Promise<Response> = observed(
  "/auth/saml/metadata/{organizationId}",
  createSamlMetadataHandler({ db: getDb }),
);

export const consoleTrpcRoute: Handler = observed("/api/trpc", createConsoleHandler({ db: getDb }));

export const portalTrpcRoute: Handler = observed("/api/portal/trpc", createPortalHandler({ db: getDb }));

export const metricsRoute: Handler = observed("/api/metrics", createMetricsHandler({ db: getDb }));

/** 200 once the database answers and every migration in prisma/migrations is applied. */
export const healthRoute: Handler = observed("/api/health", async (request: Request): Promise<Response> => {
  const headers = { "X-Request-Id": requestIdFor(request), "Cache-Control": "no-store" };
  try {
    const [expected, rows] = await Promise.all([
      readMigrations(),
      getDb().$queryRaw<
        { migration_name: string }[]
      >`select migration_name from "_prisma_migrations" where finished_at is not null and rolled_back_at is null`,
    ]);
    const applied = new Set(rows.map((row) => row.migration_name));
    const pending = expected.filter((migration) => !applied.has(migration.name)).map((migration) => migration.name);
    if (pending.length) return Response.json({ status: "migrating", pending }, { status: 503, headers });
    return Response.json({ status: "ok" }, { headers });
  } catch {
    return Response.json({ status: "unavailable" }, { status: 503, headers });
  }
});

/** Any other path under /api: the envelope's 404. */
export const unknownApiRoute: Handler = observed("/api/{unknown}", async (request: Request) =>
  errorResponse(
    new AppError("not_found", `No route ${request.method} ${new URL(request.url).pathname}.`),
    requestIdFor(request),
  ),
);

const consoleConversation = createConsoleConversationHandler({ db: getDb });
export const consoleConversationRoute = observed(
  "/api/console/apps/{appId}/conversation",
  (request: Request, appId: string) => consoleConversation(request, appId),
);

const consoleFiles = createConsoleFilesHandler({ db: getDb });
export const consoleFilesRoute: Handler = observed("/api/console/files", (request: Request) => consoleFiles(request));

const portalFiles = createPortalFilesHandler({ db: getDb });
export const portalFilesRoute = observed("/api/portal/{portal}/files", (request: Request, portal: string) =>
  portalFiles(request, portal),
);

const consoleFileContent = createConsoleFileContentHandler({ db: getDb });
export const consoleFileContentRoute = observed(
  "/api/console/files/{fileId}/content",
  (request: Request, fileId: string) => consoleFileContent(request, fileId),
);

const portalFileContent = createPortalFileContentHandler({ db: getDb });
export const portalFileContentRoute = observed(
  "/api/portal/{portal}/files/{fileId}/content",
  (request: Request, portal: string, fileId: string) => portalFileContent(request, portal, fileId),
);

const portalExport = createPortalExportHandler({ db: getDb });
export const portalExportRoute = observed("/api/portal/{portal}/account/export", (request: Request, portal: string) =>
  portalExport(request, portal),
);

const portalConversation = createPortalConversationHandler({ db: getDb });
export const portalConversationRoute = observed(
  "/api/portal/{portal}/apps/{appId}/conversation",
  (request: Request, portal: string, appId: string) => portalConversation(request, portal, appId),
);

export const consoleAuditExportRoute: Handler = observed(
  "/api/console/audit-events/export",
  createConsoleAuditExportHandler({ db: getDb }),
);

const consoleEndUserExport = createConsoleEndUserExportHandler({ db: getDb });
export const consoleEndUserExportRoute = observed(
  "/api/console/end-users/{endUserId}/export",
  (request: Request, endUserId: string) => consoleEndUserExport(request, endUserId),
);

const consoleRunEvents = createConsoleRunEventsHandler({ db: getDb });
export const consoleRunEventsRoute = observed(
  "/api/console/apps/{appId}/conversation/runs/{executionId}/events",
  (request: Request, appId: string, executionId: string) => consoleRunEvents(request, appId, executionId),
);

const portalRunEvents = createPortalRunEventsHandler({ db: getDb });
export const portalRunEventsRoute = observed(
  "/api/portal/{portal}/apps/{appId}/conversation/runs/{executionId}/events",
  (request: Request, portal: string, appId: string, executionId: string) =>
    portalRunEvents(request, portal, appId, executionId),
);

const embedSession = createEmbedSessionHandler({ db: getDb });
export const embedSessionRoute = observed("/api/portal/{portal}/embed/session", (request: Request, portal: string) =>
  embedSession(request, portal),
);

const embedLook = createEmbedLookHandler({ db: getDb });
export const embedLookRoute = observed("/api/portal/{portal}/embed/look", (request: Request, portal: string) =>
  embedLook(request, portal),
);

export const embedScriptRoute: Handler = observed("/embed.js", async (request: Request) =>
  embedScriptResponse(request),
);

/** The origins that may frame a portal's embed page (none when embedding is off or the portal unknown). */
export function embedFrameOrigins(portal: string): Promise<string[]> {
  return embedFrameAncestors(getDb(), portal);
}
