// Client configuration snippets for the console's MCP page: pure functions of the server URL
// and the key, so they are tested without a browser.

export const MCP_ROUTE = "/api/mcp";
export const KEY_PLACEHOLDER = "sk_mem_…";
/** The scopes the MCP tools use; a personal key lacking one gets `insufficient_scope` from those tools. */
export const MCP_SCOPES = ["knowledge:read", "knowledge:write", "apps:read", "apps:execute"] as const;

export function mcpUrl(origin: string): string {
  let end = origin.length;
  while (end > 0 && origin[end - 1] === "/") end--;
  return `${origin.slice(0, end)}${MCP_ROUTE}`;
}

export interface Snippet {
  id: string;
  title: string;
  where: string;
  language: "json" | "shell" | "typescript";
  text: string;
}

export function mcpSnippets(url: string, key: string = KEY_PLACEHOLDER): Snippet[] {
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  return [
    {
      id: "claude-desktop",
      title: "Claude Desktop",
      where:
        "claude_desktop_config.json (Settings → Developer → Edit Config). Claude Desktop launches local servers, so mcp-remote bridges it to Atrium's HTTP endpoint; the key sits in env so the header's space survives.",
      language: "json",
      text: json({
        mcpServers: {
          atrium: {
            command: "npx",
            args: ["-y", "mcp-remote", url, "--header", "Authorization:${ATRIUM_AUTH}"],
            env: { ATRIUM_AUTH: `Bearer ${key}` },
          },
        },
      }),
    },
    {
      id: "cursor",
      title: "Cursor",
      where: "~/.cursor/mcp.json (all projects) or .cursor/mcp.json in a project.",
      language: "json",
      text: json({ mcpServers: { atrium: { url, headers: { Authorization: `Bearer ${key}` } } } }),
    },
    {
      id: "claude-code",
      title: "Claude Code",
      where: "A terminal.",
      language: "shell",
      text: `claude mcp add --transport http atrium ${url} --header "Authorization: Bearer ${key}"`,
    },
    {
      id: "generic",
      title: "Any Streamable HTTP client (TypeScript SDK)",
      where: "Stateless Streamable HTTP: POST JSON-RPC to the URL with the Authorization header; no session id.",
      language: "typescript",
      text: [
        'import { Client } from "@modelcontextprotocol/sdk/client/index.js";',
        'import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";',
        "",
        `const transport = new StreamableHTTPClientTransport(new URL(${JSON.stringify(url)}), {`,
        `  requestInit: { headers: { Authorization: ${JSON.stringify(`Bearer ${key}`)} } },`,
        "});",
        'const client = new Client({ name: "my-agent", version: "1.0.0" });',
        "await client.connect(transport);",
        "console.log(await client.listTools());",
      ].join("\n"),
    },
  ];
}
