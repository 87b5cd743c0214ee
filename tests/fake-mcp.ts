// A local MCP server (the SDK's McpServer over Streamable HTTP, stateless) on 127.0.0.1 with a
// few tools: one that answers from its arguments, one that hangs, one that fails. It records the
// headers of every request, so tests can see which credentials arrived.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

export interface FakeMcp {
  url: string;
  /** The headers of every request received, in order. */
  requests: http.IncomingHttpHeaders[];
  /** Calls received, by tool name with their arguments. */
  calls: { name: string; args: Record<string, unknown> }[];
  close(): Promise<void>;
}

function toolServer(calls: FakeMcp["calls"]): McpServer {
  const server = new McpServer({ name: "fake-warehouse", version: "1.0.0" });
  server.registerTool(
    "lookup_order",
    { description: "Looks up an order by its number", inputSchema: { order: z.string() } },
    async ({ order }) => {
      calls.push({ name: "lookup_order", args: { order } });
      return { content: [{ type: "text", text: `Order ${order} ships tomorrow` }] };
    },
  );
  server.registerTool("hang", { description: "Never answers", inputSchema: {} }, async (_args, extra) => {
    calls.push({ name: "hang", args: {} });
    await new Promise((resolve) => extra.signal.addEventListener("abort", resolve));
    return { content: [] };
  });
  server.registerTool("fail", { description: "Always fails", inputSchema: {} }, async () => {
    calls.push({ name: "fail", args: {} });
    throw new Error("the warehouse is closed");
  });
  return server;
}

export async function startFakeMcp(): Promise<FakeMcp> {
  const requests: FakeMcp["requests"] = [];
  const calls: FakeMcp["calls"] = [];
  const httpServer = http.createServer(async (req, res) => {
    requests.push(req.headers);
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const server = toolServer(calls);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    calls,
    close: () => {
      httpServer.closeAllConnections();
      return new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
