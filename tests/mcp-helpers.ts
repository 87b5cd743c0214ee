// Helpers for the MCP tests: `/api/mcp` behind the request listener `npm start` serves, on
// 127.0.0.1, and the SDK's own client connected to it with a key.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll } from "vitest";
import { listenOnLoopback } from "./loopback-server";

export interface McpTestServer {
  url: string;
  close(): void;
}

/** The production listener on a free loopback port: the MCP door as its clients reach it. */
export async function startMcpServer(): Promise<McpTestServer> {
  const listener = await listenOnLoopback(0);
  return { url: `${listener.base}/api/mcp`, close: () => listener.close() };
}

/** The SDK client, connected (initialize + initialized) with `Authorization: Bearer <key>`. */
export async function connectClient(url: string, key: string): Promise<Client> {
  const client = new Client({ name: "atrium-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/**
 * For a test file: the server started before its tests, and it and every client `connect` made
 * closed after them.
 */
export function mcpSuite(): { url(): string; connect(key: string): Promise<Client> } {
  let server: McpTestServer | undefined;
  const clients: Client[] = [];
  beforeAll(async () => {
    server = await startMcpServer();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    server?.close();
  });
  const url = () => {
    if (!server) throw new Error("The MCP test server starts in beforeAll");
    return server.url;
  };
  return {
    url,
    async connect(key) {
      const client = await connectClient(url(), key);
      clients.push(client);
      return client;
    },
  };
}

/** A tool result's structured content (the JSON the tool answered). */
export function structured(result: unknown): any {
  return (result as { structuredContent?: unknown }).structuredContent;
}
