// An agent's integrations as tools for a provider model: each `integrations[]` entry names an MCP
// connection of the run's organization (`toolkit`, its slug) and the tools the agent may use
// (`selectedTools`). Their schemas come from the server's own tool list at the start of the
// answer; each tool is offered as `<toolkit>_<tool>` so names never clash, and each call goes
// through the MCP client inside the loop's bounds (agent-tools.ts's boundedTool). A connection
// that is gone or fails to list its tools is a note in the trace; the answer goes on without it.
// A connection's tool list is cached (mcp-client.ts's cachedToolList), so a turn does not ask its
// server each time.
import type { AgentDocument } from "@/schemas/builder/builder";
import { toolName, type AgentTool, type ToolRunContext } from "./agent-tools";
import { cachedToolList, callMcpTool, endpointOf, type McpConnectionRow } from "./mcp-client";
import { logProviderFailure } from "@/server/observability/operator-log";

type Integration = AgentDocument["integrations"][number];

function note(ctx: ToolRunContext, toolkit: string, text: string, started: number): void {
  ctx.trace.push({
    id: toolkit,
    kind: "tool",
    name: toolkit,
    input: "",
    output: "",
    note: text,
    latencyMs: Math.round(performance.now() - started),
  });
}

async function toolsOf(
  ctx: ToolRunContext,
  signal: AbortSignal,
  integration: Integration,
  row: McpConnectionRow | undefined,
) {
  const started = performance.now();
  const { toolkit, selectedTools } = integration;
  if (!row) {
    note(
      ctx,
      toolkit,
      `MCP connection "${toolkit}" not found in this organization; its tools were not offered`,
      started,
    );
    return [];
  }
  const endpoint = endpointOf(row);
  try {
    const tools = await cachedToolList(ctx.organizationId, row, signal);
    const missing = selectedTools.filter((name) => !tools.some((tool) => tool.name === name));
    if (missing.length)
      note(ctx, toolkit, `the MCP server of "${toolkit}" no longer lists ${missing.join(", ")}; not offered`, started);
    return tools.filter((tool) => selectedTools.includes(tool.name)).map((tool) => ({ ...tool, endpoint }));
  } catch (error) {
    if (signal.aborted) throw error;
    logProviderFailure({ organizationId: ctx.organizationId, provider: "mcp", name: toolkit, err: error });
    note(
      ctx,
      toolkit,
      `the MCP server of "${toolkit}" failed to list its tools (${error instanceof Error ? error.message.slice(0, 300) : "unknown failure"}); not offered`,
      started,
    );
    return [];
  }
}

/** The selected tools of the agent's integrations, as its server lists them now. */
export async function integrationTools(
  ctx: ToolRunContext,
  signal: AbortSignal,
  integrations: Integration[],
  taken: Set<string>,
): Promise<AgentTool[]> {
  const wanted = integrations.filter((integration) => integration.selectedTools.length > 0);
  if (wanted.length === 0) return [];
  const rows = await ctx.db.mcpConnection.findMany({
    where: { organizationId: ctx.organizationId, slug: { in: wanted.map((integration) => integration.toolkit) } },
    select: { id: true, slug: true, url: true, headersCiphertext: true, updatedAt: true },
  });
  const listed = await Promise.all(
    wanted.map((integration) =>
      toolsOf(
        ctx,
        signal,
        integration,
        rows.find((row) => row.slug === integration.toolkit),
      ),
    ),
  );
  return wanted.flatMap((integration, index) =>
    listed[index]!.map((tool) => ({
      name: toolName(`${integration.toolkit}_${tool.name}`, taken),
      description: tool.description || `The tool ${tool.name} of ${integration.name}.`,
      parameters: tool.inputSchema,
      run: (args: Record<string, unknown>, callSignal: AbortSignal) =>
        callMcpTool(tool.endpoint, tool.name, args, callSignal),
    })),
  );
}
