// The MCP door: `/api/mcp`, Streamable HTTP in stateless mode (a new server and transport per
// request, so any process behind a load balancer can answer). The key checks run first, in
// authenticate.ts's order with the personal-key rule and the `mcpEnabled` switch, and their
// failures answer HTTP errors in the product's envelope before any MCP handling; the tools
// then run the REST procedures (src/server/mcp).
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { requestOrigin } from "@/server/auth/actor";
import { authenticateApiKey } from "@/server/auth/authenticate";
import { rateLimitHeaders } from "@/server/auth/rate-limit";
import type { Db } from "@/server/db";
import { AppError, toAppError } from "@/server/errors";
import { mcpContext } from "@/server/mcp/context";
import { buildMcpServer } from "@/server/mcp/server";
import { parseJsonText, readBodyText, refuseDeclaredOversize } from "./json-body";
import { errorResponse, requestIdFor } from "./envelope";

export const MCP_PATH = "/api/mcp";

export interface McpHandlerOptions {
  /** Called per request so the database is opened lazily and tests can substitute it. */
  db: () => Db;
}

export function createMcpHandler(options: McpHandlerOptions) {
  return async function handleMcp(request: Request): Promise<Response> {
    const requestId = requestIdFor(request);
    let limitHeaders: Record<string, string> = {};
    try {
      // Stateless: no standalone SSE stream (GET) and no session to end (DELETE).
      if (request.method !== "POST") {
        throw new AppError(
          "method_not_allowed",
          `${request.method} is not allowed on ${MCP_PATH}; this stateless MCP server takes POST.`,
          {},
          {
            headers: { Allow: "POST" },
          },
        );
      }
      refuseDeclaredOversize(request);
      const db = options.db();
      const { actor, rateLimit } = await authenticateApiKey(
        db,
        request.headers.get("authorization"),
        "mcp",
        requestOrigin(request, requestId, "mcp"),
      );
      limitHeaders = rateLimitHeaders(rateLimit);
      // Read and parsed here within the JSON bounds (the SDK's own reader stops at 4 MiB, and
      // would parse any depth); invalid JSON is a refusal before MCP runs, in the envelope.
      const parsedBody = parseJsonText(await readBodyText(request));

      const server = buildMcpServer(mcpContext(db, actor, requestId, request.signal));
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      try {
        // In JSON mode the response is complete when it resolves, so the server can close.
        const response = await transport.handleRequest(request, { parsedBody });
        const headers = new Headers(response.headers);
        for (const [name, value] of Object.entries(limitHeaders)) headers.set(name, value);
        headers.set("X-Request-Id", requestId);
        return new Response(response.body === null ? null : await response.arrayBuffer(), {
          status: response.status,
          statusText: response.statusText,
          headers,
        });
      } finally {
        await server.close();
      }
    } catch (error) {
      if (request.signal.aborted) return new Response(null, { status: 499 });
      return errorResponse(toAppError(error), requestId, limitHeaders);
    }
  };
}
