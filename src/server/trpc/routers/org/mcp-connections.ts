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
import { memberProcedure, router } from "../../init";

export const mcpConnectionsRouter = router({
  list: memberProcedure(listMcpConnections.requirement)
    .output(z.array(McpConnection))
    .query(({ ctx }) => listMcpConnections(ctx.db, ctx.actor)),
  tools: memberProcedure(listMcpConnectionTools.requirement)
    .input(McpConnectionIdInput)
    .output(McpToolList)
    .query(({ ctx, input }) => listMcpConnectionTools(ctx.db, ctx.actor, input)),
  create: memberProcedure(createMcpConnection.requirement)
    .input(CreateMcpConnectionInput)
    .output(McpConnection)
    .mutation(({ ctx, input }) => createMcpConnection(ctx.db, ctx.actor, input)),
  update: memberProcedure(updateMcpConnection.requirement)
    .input(UpdateMcpConnectionInput)
    .output(McpConnection)
    .mutation(({ ctx, input }) => updateMcpConnection(ctx.db, ctx.actor, input)),
  remove: memberProcedure(deleteMcpConnection.requirement)
    .input(McpConnectionIdInput)
    .output(McpConnection)
    .mutation(({ ctx, input }) => deleteMcpConnection(ctx.db, ctx.actor, input)),
});
