// Console-only: an organization's MCP server connections. Admins manage them; members list them
// and their tools to pick an agent's integrations (API keys cannot reach either).
import { z } from "zod";
import {
  CreateMcpConnectionInput,
  McpConnection,
  McpConnectionIdInput,
  McpToolList,
  UpdateMcpConnectionInput,
} from "@/schemas/org/integration";
import {
  createMcpConnection,
  deleteMcpConnection,
  listMcpConnections,
  listMcpConnectionTools,
  updateMcpConnection,
} from "@/server/services/org/mcp-connections";
import { router } from "../../init";
import { memberCalls } from "../../service-procedures";

export const mcpConnectionsRouter = router({
  list: memberCalls.query(listMcpConnections, z.array(McpConnection)),
  tools: memberCalls.queryWith(listMcpConnectionTools, McpConnectionIdInput, McpToolList),
  create: memberCalls.mutationWith(createMcpConnection, CreateMcpConnectionInput, McpConnection),
  update: memberCalls.mutationWith(updateMcpConnection, UpdateMcpConnectionInput, McpConnection),
  remove: memberCalls.mutationWith(deleteMcpConnection, McpConnectionIdInput, McpConnection),
});
