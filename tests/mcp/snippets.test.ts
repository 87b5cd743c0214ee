// The console's MCP client snippets: the URL from the origin, each client's documented shape.
import { describe, expect, it } from "vitest";
import { mcpSnippets, mcpUrl } from "@/lib/mcp-snippets";

describe("MCP snippets", () => {
  it("builds the URL from the browser's origin", () => {
    expect(mcpUrl("https://atrium.example.com")).toBe("https://atrium.example.com/api/mcp");
    expect(mcpUrl("http://127.0.0.1:3000/")).toBe("http://127.0.0.1:3000/api/mcp");
  });

  it("gives Cursor a url with an Authorization header and Claude Desktop an mcp-remote bridge", () => {
    const url = "https://atrium.example.com/api/mcp";
    const byId = Object.fromEntries(mcpSnippets(url, "sk_mem_abc").map((snippet) => [snippet.id, snippet]));
    expect(JSON.parse(byId.cursor!.text)).toEqual({
      mcpServers: { atrium: { url, headers: { Authorization: "Bearer sk_mem_abc" } } },
    });
    const desktop = JSON.parse(byId["claude-desktop"]!.text).mcpServers.atrium;
    expect(desktop).toEqual({
      command: "npx",
      args: ["-y", "mcp-remote", url, "--header", "Authorization:${ATRIUM_AUTH}"],
      env: { ATRIUM_AUTH: "Bearer sk_mem_abc" },
    });
    expect(byId["claude-code"]!.text).toBe(
      `claude mcp add --transport http atrium ${url} --header "Authorization: Bearer sk_mem_abc"`,
    );
    expect(byId.generic!.text).toContain("StreamableHTTPClientTransport");
    expect(mcpSnippets(url)[1]!.text).toContain("Bearer sk_mem_…");
  });
});
