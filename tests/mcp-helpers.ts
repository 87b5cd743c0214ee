// Helpers for the MCP tests: the `/api/mcp` handler behind a real HTTP server on 127.0.0.1, and
// the SDK's own client connected to it with a key.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll } from "vitest";
import { createMcpHandler } from "@/server/adapters/mcp";
import { getDb } from "@/server/db";

export interface McpTestServer {
  url: string;
  close(): Promise<void>;
}

/** Node request → fetch `Request` → the route's handler → Node response. */
export async function startMcpServer(): Promise<McpTestServer> {
  const handler = createMcpHandler({ db: getDb });
  const server = http.createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
      }
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body });
      const response = await handler(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (error) {
      res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
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
    await server?.close();
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
