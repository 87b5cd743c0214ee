import { expect, test } from "@playwright/test";
import { signedInDemo } from "./fixtures";

test("the MCP page shows the URL, client snippets and my personal keys; the production server answers MCP", async ({
  page,
  baseURL,
}) => {
  const { personalKey, orgKey } = await signedInDemo(page);
  await page.goto("/");
  await page.getByRole("navigation").getByRole("link", { name: "MCP" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("MCP server");
  const url = `${baseURL}/api/mcp`;
  await expect(page.getByTestId("mcp-url")).toHaveText(url);
  await expect(page.getByTestId("mcp-key-row")).toHaveCount(1);
  await expect(page.getByTestId("snippet-cursor")).toContainText(`"url": "${url}"`);
  await expect(page.getByTestId("snippet-cursor")).toContainText('"Authorization": "Bearer sk_mem_…"');
  await expect(page.getByTestId("snippet-claude-desktop")).toContainText("mcp-remote");
  await page.getByLabel("Fill the snippets with a key").fill(personalKey.secret);
  await expect(page.getByTestId("snippet-cursor")).toContainText(`Bearer ${personalKey.secret}`);

  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "e2e", version: "1" } },
  };
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const ok = await page.request.post("/api/mcp", {
    data: initialize,
    headers: { ...headers, authorization: `Bearer ${personalKey.secret}` },
  });
  expect(ok.status()).toBe(200);
  expect((await ok.json()).result.serverInfo.name).toBe("atrium");
  // Stateless: a tools call needs no session; the production bundle lists and runs tools.
  const call = (method: string, params: unknown) =>
    page.request.post("/api/mcp", {
      data: { jsonrpc: "2.0", id: 2, method, params },
      headers: { ...headers, authorization: `Bearer ${personalKey.secret}` },
    });
  const tools = await (await call("tools/list", {})).json();
  expect(tools.result.tools.map((tool: { name: string }) => tool.name)).toContain("edit_page");
  const listed = await (await call("tools/call", { name: "list_knowledgebases", arguments: {} })).json();
  expect(listed.result.isError).toBeFalsy();
  expect(listed.result.structuredContent).toHaveProperty("knowledgebases");
  const refused = await page.request.post("/api/mcp", {
    data: initialize,
    headers: { ...headers, authorization: `Bearer ${orgKey.secret}` },
  });
  expect(refused.status()).toBe(403);
  expect((await refused.json()).error.code).toBe("member_key_required");
  expect(refused.headers()["x-request-id"]).toBeTruthy();
});
