// Atrium as a client of an organization's MCP servers (the official SDK over Streamable HTTP):
// list a server's tools and call one. Every operation connects, does its one thing and closes,
// within a time bound; every request passes the integration URL guard, follows no redirect, and
// reads at most MCP_LIMITS.responseBytes, so a hostile server can neither steer Atrium elsewhere
// nor make it hold more than that. Header values are sent, never logged or put in errors. The
// runtime's tool lists are cached per connection for TOOL_LIST_CACHE.ttlMs, so a conversation
// turn does not ask the server each time; updating or removing a connection forgets its entry.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SpanKind } from "@opentelemetry/api";
import { guardedFetch } from "@/server/integration-urls";
import { openSecret } from "@/server/secret-box";
import { inSpan, propagatingFetch } from "@/server/observability/tracing";

export const MCP_LIMITS = {
  /** Wall time to connect and list a server's tools. */
  listMs: 10_000,
  /** Tools read from one server (further pages are not asked for). */
  tools: 100,
  /** Pages of `tools/list` asked for. */
  listPages: 5,
  /** Characters of a tool's description kept. */
  descriptionChars: 1_000,
  /** Characters of a tool's input schema (as JSON); a tool with a bigger one is left out. */
  schemaChars: 16 * 1024,
  /** Bytes of one HTTP response read from the server. */
  responseBytes: 4 * 1024 * 1024,
};

export interface McpEndpoint {
  url: string;
  headers: Record<string, string>;
}

export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** Where to connect for a stored connection: its URL and its headers, opened for this call only. */
export function endpointOf(row: { url: string; headersCiphertext: string | null }): McpEndpoint {
  return {
    url: row.url,
    headers: row.headersCiphertext ? (JSON.parse(openSecret(row.headersCiphertext)) as Record<string, string>) : {},
  };
}

/** A response whose body errors once it has carried more than `max` bytes. */
function capped(response: Response, max: number): Response {
  if (!response.body) return response;
  let seen = 0;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > max) controller.error(new Error(`the MCP server's response exceeded ${max} bytes`));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Connects, runs `work`, and closes; `signal` bounds every request, the closing one included. */
async function withClient<T>(
  endpoint: McpEndpoint,
  signal: AbortSignal,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  // Loaded on first use: processes that never call an MCP server (the CLI, most runs) skip the SDK.
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ]);
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
    requestInit: { headers: endpoint.headers },
    fetch: async (input, init) => {
      const response = await propagatingFetch(guardedFetch)(input, {
        ...init,
        redirect: "error",
        signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal,
      });
      return capped(response, MCP_LIMITS.responseBytes);
    },
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1_000,
      maxReconnectionDelay: 1_000,
      reconnectionDelayGrowFactor: 1,
    },
  });
  const client = new Client({ name: "atrium", version: "1.0.0" });
  try {
    await client.connect(transport, { signal });
    return await work(client);
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}

function objectSchema(schema: unknown): Record<string, unknown> | null {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return null;
  if ((schema as { type?: unknown }).type !== "object") return null;
  return JSON.stringify(schema).length <= MCP_LIMITS.schemaChars ? (schema as Record<string, unknown>) : null;
}

/** The server's tools, within MCP_LIMITS; `truncated` says some were not read or not usable. */
export async function listMcpTools(
  endpoint: McpEndpoint,
  signal?: AbortSignal,
): Promise<{ tools: McpToolInfo[]; truncated: boolean }> {
  const bound = AbortSignal.timeout(MCP_LIMITS.listMs);
  const all = signal ? AbortSignal.any([signal, bound]) : bound;
  return withClient(endpoint, all, async (client) => {
    const tools: McpToolInfo[] = [];
    let truncated = false;
    let cursor: string | undefined;
    for (let page = 0; page < MCP_LIMITS.listPages; page++) {
      const result = await client.listTools(cursor ? { cursor } : undefined, {
        signal: all,
        timeout: MCP_LIMITS.listMs,
      });
      for (const tool of result.tools) {
        const inputSchema = objectSchema(tool.inputSchema);
        if (!inputSchema || tool.name.length > 128 || tools.length >= MCP_LIMITS.tools) {
          truncated = true;
          continue;
        }
        tools.push({
          name: tool.name,
          description: (tool.description ?? "").slice(0, MCP_LIMITS.descriptionChars),
          inputSchema,
        });
      }
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return { tools, truncated: truncated || cursor !== undefined };
  });
}

/** One content block as text for the model. */
function contentText(block: { type: string; text?: unknown; mimeType?: unknown; resource?: unknown }): string {
  if (block.type === "text" && typeof block.text === "string") return block.text;
  const resource = block.resource as { uri?: unknown; text?: unknown } | undefined;
  if (block.type === "resource" && typeof resource?.text === "string") return resource.text;
  return `[${block.type}${typeof block.mimeType === "string" ? ` ${block.mimeType}` : ""} content]`;
}

/** Calls a tool; the text of its result, or an Error with it when the tool reports an error. */
export async function callMcpTool(
  endpoint: McpEndpoint,
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<string> {
  return withClient(endpoint, signal, async (client) => {
    // The caller's signal carries the tool's time bound (RUN_LIMITS.toolCallMs).
    const result = await inSpan(
      "mcp tools/call",
      { "mcp.method.name": "tools/call", "gen_ai.tool.name": name },
      () => client.callTool({ name, arguments: args }, undefined, { signal }),
      SpanKind.CLIENT,
    );
    const content = Array.isArray(result.content) ? (result.content as Parameters<typeof contentText>[0][]) : [];
    const text =
      content.length > 0
        ? content.map(contentText).join("\n")
        : JSON.stringify(result.structuredContent ?? result.toolResult ?? "");
    if (result.isError) throw new Error(text || "the MCP tool reported an error");
    return text;
  });
}

/** What the runtime reads of a stored connection. */
export interface McpConnectionRow {
  id: string;
  slug: string;
  url: string;
  headersCiphertext: string | null;
  updatedAt: Date;
}

/** How long a tool list is kept, and how many are. */
export const TOOL_LIST_CACHE = { ttlMs: 60_000, entries: 1_000 };

/**
 * Tool lists by `<organization id>/<connection id>`, with the connection's `updatedAt` they were
 * listed at: another process's update of the connection makes the entry stale here too.
 */
const toolLists = new Map<string, { updatedAt: number; expiresAt: number; tools: McpToolInfo[] }>();

function cacheKey(organizationId: string, connectionId: string): string {
  return `${organizationId}/${connectionId}`;
}

/** Forgets a connection's tool list (it was updated or removed). */
export function forgetMcpToolList(organizationId: string, connectionId: string): void {
  toolLists.delete(cacheKey(organizationId, connectionId));
}

/** The connection's tools, from the cache while its entry is fresh; failures are not cached. */
export async function cachedToolList(
  organizationId: string,
  row: McpConnectionRow,
  signal: AbortSignal,
): Promise<McpToolInfo[]> {
  const key = cacheKey(organizationId, row.id);
  const cached = toolLists.get(key);
  if (cached && cached.updatedAt === row.updatedAt.getTime() && cached.expiresAt > Date.now()) return cached.tools;
  const { tools } = await listMcpTools(endpointOf(row), signal);
  toolLists.delete(key);
  if (toolLists.size >= TOOL_LIST_CACHE.entries) toolLists.delete(toolLists.keys().next().value!);
  toolLists.set(key, { updatedAt: row.updatedAt.getTime(), expiresAt: Date.now() + TOOL_LIST_CACHE.ttlMs, tools });
  return tools;
}
