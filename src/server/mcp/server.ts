// One MCP server per request (stateless Streamable HTTP): the tools of tools.ts and the page
// resources, for an already authenticated key. Failures become MCP tool errors carrying Atrium's
// envelope `{"error":{code,message}}` as text, never stack traces.
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  ErrorCode as RpcErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { logIfUnexpected, toAppError, type AppError } from "@/server/errors";
import type { McpContext } from "./context";
import { TOOLS, toolInputJsonSchema, toolOutputJsonSchema } from "./tools";

export const MCP_SERVER_INFO = { name: "atrium", version: "0.1.0" };
export const PAGE_URI_TEMPLATE = "atrium://knowledgebases/{knowledgebaseId}/pages/{pageId}";
/** The resource list walks this many knowledgebases (first by creation); read any page by its URI. */
const RESOURCE_LIST_KNOWLEDGEBASES = 50;

export function pageUri(knowledgebaseId: string, pageId: string): string {
  return `atrium://knowledgebases/${knowledgebaseId}/pages/${pageId}`;
}

const INSTRUCTIONS =
  'Atrium knowledgebases and apps. Find knowledge with list_knowledgebases, get_knowledgebase (its page index) and search_knowledgebase; read pages with get_page; write with create_page, edit_page (patch operations whose anchors must appear exactly once) and move_page; add documents with add_source. Writes may come back `pending_review` when the organization reviews agent writes. Talk to published apps with list_apps and converse_with_app (pass back `conversation_id`). Errors carry `{"error":{code,message}}` with Atrium\'s stable codes.';

/** The tools/list answer, built once per process (JSON Schema generation is not free). */
let toolListing: { tools: object[] } | undefined;
function listTools() {
  return (toolListing ??= {
    tools: TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: toolInputJsonSchema(tool),
      outputSchema: toolOutputJsonSchema(tool),
      annotations: { title: tool.title, ...tool.annotations },
    })),
  });
}

/**
 * A failed call as an MCP tool error: the envelope as text and no `structuredContent`, which
 * clients that listed the tools would check against the tool's output schema (and reject).
 */
export function errorResult(error: AppError): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error: error.toBody() }) }] };
}

/**
 * A JSON-RPC error whose message is ours alone: the SDK's McpError puts "MCP error <code>: " in
 * its message, which went out on the wire, and clients that add their own prefix showed it twice.
 * The SDK's server answers any thrown error with its `code`, `message` and `data`.
 */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

function rpcError(error: unknown): RpcError {
  const appError = toAppError(error);
  logIfUnexpected(appError);
  const code =
    appError.code === "not_found"
      ? -32002
      : appError.status < 500
        ? RpcErrorCode.InvalidParams
        : RpcErrorCode.InternalError;
  return new RpcError(code, `${appError.code}: ${appError.message}`, { error: appError.toBody() });
}

export function buildMcpServer(context: McpContext): McpServer {
  const mcp = new McpServer(MCP_SERVER_INFO, { instructions: INSTRUCTIONS });
  const tools = new Map(TOOLS.map((tool) => [tool.name, tool]));

  // Tools are served by hand rather than with registerTool: arguments are checked by the
  // procedures themselves (after scope and role, as REST orders it), so a bad argument answers
  // `invalid_request` in Atrium's envelope rather than the SDK's own validation message.
  mcp.server.registerCapabilities({ tools: { listChanged: false } });
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => listTools() as never);
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = tools.get(request.params.name);
    if (!tool)
      throw new RpcError(RpcErrorCode.InvalidParams, `Unknown tool ${request.params.name}; tools/list names them.`);
    try {
      // Cancelled by the client (notifications/cancelled) or the HTTP request ended.
      const signal = context.signal ? AbortSignal.any([extra.signal, context.signal]) : extra.signal;
      const result = (await tool.run(context, request.params.arguments ?? {}, signal)) as Record<string, unknown>;
      return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
    } catch (error) {
      const appError = toAppError(error);
      logIfUnexpected(appError);
      return errorResult(appError);
    }
  });

  mcp.registerResource(
    "page",
    new ResourceTemplate(PAGE_URI_TEMPLATE, {
      list: async () => {
        try {
          const { knowledgebases } = await context.caller.knowledge.list({ limit: RESOURCE_LIST_KNOWLEDGEBASES });
          const resources = [];
          for (const knowledgebase of knowledgebases) {
            const { pages } = await context.caller.knowledge.get({ knowledgebaseId: knowledgebase.id });
            for (const page of pages) {
              resources.push({
                uri: pageUri(knowledgebase.id, page.id),
                name: `${knowledgebase.name} / ${page.path.join(" / ")}`,
                title: page.title,
                description: page.hook || undefined,
                mimeType: "text/markdown",
              });
            }
          }
          return { resources };
        } catch (error) {
          throw rpcError(error);
        }
      },
    }),
    {
      title: "Knowledgebase page",
      description: "A knowledgebase page's markdown. Needs `knowledge:read`.",
      mimeType: "text/markdown",
    },
    async (uri, variables) => {
      try {
        const page = await context.caller.knowledge.getPage({
          knowledgebaseId: String(variables.knowledgebaseId),
          pageId: String(variables.pageId),
        });
        return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: page.markdown }] };
      } catch (error) {
        throw rpcError(error);
      }
    },
  );
  // Each request has its own server (stateless HTTP): none is left to announce a change of the
  // page list, so the capability registerResource claims by default is withdrawn.
  mcp.server.registerCapabilities({ resources: { listChanged: false } });
  return mcp;
}
