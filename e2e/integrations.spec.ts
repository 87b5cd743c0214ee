// Issue 16 point 3 in the console: an admin connects an MCP server (started here on 127.0.0.1)
// with a secret header, lists its tools, edits the connection (adding a header, keeping the
// stored value by leaving it empty), a builder picks tools for an agent, and the connection is
// removed after a confirm. The header value never comes back to the page. At both sizes.
import { expect, test } from "@playwright/test";
import { startFakeMcp, type FakeMcp } from "../tests/fake-mcp";
import { api, screenshot, signedInDemo } from "./fixtures";

const VIEWPORTS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
];
const SECRET = "e2e-mcp-header-secret";
let mcp: FakeMcp;

test.beforeAll(async () => {
  mcp = await startFakeMcp();
});
test.afterAll(() => mcp.close());

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("connect an MCP server, list its tools, edit it, pick tools in an agent, remove the connection", async ({
      page,
    }) => {
      const { orgKey } = await signedInDemo(page);
      await page.goto("/settings/integrations");
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Integrations");

      await page.getByLabel("Slug").fill("warehouse");
      await page.getByLabel("Name", { exact: true }).fill("Warehouse");
      await page.getByLabel("URL").fill(mcp.url);
      await page.getByRole("button", { name: "Add a header" }).click();
      await page.getByLabel("Header 1 name").fill("Authorization");
      await page.getByLabel("Header 1 value").fill(`Bearer ${SECRET}`);
      await page.getByRole("button", { name: "Connect", exact: true }).click();
      const row = page.getByTestId("connection-row");
      await expect(row).toContainText("Warehouse");
      await expect(row).toContainText("Authorization");

      await row.getByRole("button", { name: "List tools" }).click();
      await expect(page.getByTestId("tool-row")).toHaveCount(3);
      await expect(page.getByRole("region", { name: "Tools of Warehouse", exact: true })).toContainText(
        "Looks up an order by its number",
      );
      expect(mcp.requests.some((headers) => headers.authorization === `Bearer ${SECRET}`)).toBe(true);
      expect(await page.content()).not.toContain(SECRET);
      await screenshot(page, "integrations");
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth)).toBe(0);

      // Editing: the stored header is listed with an empty value, which keeps it; a new one is added.
      await row.getByRole("button", { name: "Edit" }).click();
      await expect(page.getByRole("heading", { name: "Edit Warehouse" })).toBeVisible();
      await expect(page.getByLabel("Header 1 name")).toHaveValue("Authorization");
      await expect(page.getByLabel("Header 1 value")).toHaveValue("");
      await page.getByRole("button", { name: "Add a header" }).click();
      await page.getByLabel("Header 2 name").fill("X-Team");
      await page.getByLabel("Header 2 value").fill("blue");
      await screenshot(page, "integrations-edit");
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth)).toBe(0);
      await page.getByRole("button", { name: "Save changes" }).click();
      await expect(row).toContainText("Authorization, X-Team");
      await expect(page.getByRole("heading", { name: "Connect an MCP server" })).toBeVisible();
      const before = mcp.requests.length;
      await row.getByRole("button", { name: "List tools" }).click();
      await expect(page.getByTestId("tool-row")).toHaveCount(3);
      await expect
        .poll(() =>
          mcp.requests
            .slice(before)
            .some((headers) => headers.authorization === `Bearer ${SECRET}` && headers["x-team"] === "blue"),
        )
        .toBe(true);

      // A builder picks the connection and one of its tools for an agent.
      const { agent } = await api(page.request, orgKey.secret, "POST", "/agents", { name: "Stock agent" });
      await page.goto(`/agents/${agent.id}`);
      await page.getByLabel("Add an integration").selectOption({ label: "Warehouse" });
      const attached = page.getByTestId("attached-integration");
      await expect(attached).toContainText("Warehouse");
      await attached.getByLabel("lookup_order").check();
      await expect(page.getByTestId("save-state")).toHaveText("Saved");
      await screenshot(page, "agent-integrations");
      const saved = await api(page.request, orgKey.secret, "GET", `/agents/${agent.id}/draft`);
      expect(saved.agent.integrations).toEqual([
        { toolkit: "warehouse", name: "Warehouse", selectedTools: ["lookup_order"] },
      ]);

      // Removing asks first.
      await page.goto("/settings/integrations");
      await page.getByTestId("connection-row").getByRole("button", { name: "Remove" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Remove" }).click();
      await expect(page.getByText("No MCP servers connected yet: connect one above")).toBeVisible();
    });
  });
}
