// Names, not ids: a builder adds an app member by its name, an admin grants an app to an end user
// by its name, the executions log filters by app (in the URL) and names each run's app, and the
// chat renders a reply's markdown, started from the app's conversation starter. At both sizes.
import { expect, test, type Page } from "@playwright/test";
import { api, screenshot, seedDemo, seriousA11yViolations, signIn } from "./fixtures";

const VIEWPORTS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
];

async function expectAccessible(page: Page) {
  await expect(page).not.toHaveTitle("");
  expect(await seriousA11yViolations(page)).toEqual([]);
  // Nothing scrolls sideways: wide tables scroll inside their own box.
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
}

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("members, grants and filters are picked by name; the chat renders markdown", async ({ page }) => {
      const { login, orgKey } = await seedDemo();
      const key = orgKey.secret;
      await signIn(page, login);
      const { knowledgebase } = await api(page.request, key, "POST", "/knowledgebases", { name: "Handbook" });
      const { page: refund } = await api(page.request, key, "POST", `/knowledgebases/${knowledgebase.id}/pages`, {
        title: "Refund policy",
        markdown: "Refunds are paid within **14 days** of the request.\n\nShipping costs are not refunded.",
      });
      const { agent } = await api(page.request, key, "POST", "/agents", {
        name: "Billing agent",
        description: "Invoices, refunds and payments",
        knowledge: [{ knowledgebaseId: knowledgebase.id }],
        conversationStarters: ["How long do refunds take?"],
      });
      await api(page.request, key, "POST", `/agents/${agent.id}/publish`, {});
      const apps: Record<string, string> = {};
      for (const name of ["Helpdesk", "Shop"]) {
        const { app } = await api(page.request, key, "POST", "/apps", {
          name,
          members: [{ id: agent.id, kind: "agent" }],
          api: { greeting: `Welcome to ${name}.` },
        });
        await api(page.request, key, "POST", `/apps/${app.id}/publish`, {});
        await api(page.request, key, "POST", `/apps/${app.id}/conversation`, { message: "How long do refunds take?" });
        apps[name] = app.id;
      }

      // The page editor's "Insert link" finds a page by its title and writes the link the pages service reads.
      const { page: notes } = await api(page.request, key, "POST", `/knowledgebases/${knowledgebase.id}/pages`, {
        title: "Notes",
        markdown: "See ",
      });
      await page.goto(`/knowledge/${knowledgebase.id}?page=${notes.id}`);
      const markdownBox = page.getByRole("textbox", { name: "Markdown" });
      await expect(markdownBox).toHaveValue("See ");
      await markdownBox.press("End");
      await page.getByRole("button", { name: "Insert link" }).click();
      await page.getByRole("searchbox", { name: "Link to page" }).fill("refund");
      await page
        .getByRole("list", { name: "Link to page: matches" })
        .getByRole("button", { name: "Refund policy" })
        .click();
      await expect(markdownBox).toHaveValue(`See [Refund policy](page:${refund.id})`);
      await expectAccessible(page);
      await screenshot(page, "pickers-insert-link");

      // A builder adds a member by typing part of its name.
      const { app: draft } = await api(page.request, key, "POST", "/apps", { name: "Newsroom" });
      await page.goto(`/apps/${draft.id}`);
      await page.getByRole("searchbox", { name: "Add a member" }).fill("bill");
      await page.getByRole("button", { name: /^Billing agent/ }).click();
      await expect(page.getByTestId("app-member")).toHaveCount(1);
      await expect(page.getByTestId("app-member").getByRole("link", { name: "Billing agent" })).toHaveAttribute(
        "href",
        `/agents/${agent.id}`,
      );
      await expect(page.getByTestId("save-state")).toHaveText("Saved");
      const saved = await api(page.request, key, "GET", `/apps/${draft.id}/draft`);
      expect(saved.app.members.map((m: { id: string }) => m.id)).toEqual([agent.id]);
      await expectAccessible(page);
      await screenshot(page, "pickers-app-members");

      // An admin grants an app to an end user by its name; the grant shows the name, linked.
      const { endUser } = await api(page.request, key, "POST", "/end-users", {
        email: `pat.${viewport.name}@customer.example`,
      });
      await page.goto(`/end-users/${endUser.id}`);
      await page.getByRole("searchbox", { name: "Grant an app" }).fill("help");
      await page.getByRole("button", { name: /^Helpdesk/ }).click();
      await expect(page.getByRole("link", { name: "Helpdesk" }).first()).toHaveAttribute(
        "href",
        `/apps/${apps.Helpdesk}`,
      );
      const stored = await api(page.request, key, "GET", `/end-users/${endUser.id}`);
      expect(stored.endUser.grants.map((g: { targetId: string }) => g.targetId)).toEqual([apps.Helpdesk]);
      await expectAccessible(page);
      await screenshot(page, "pickers-end-user-grant");

      // The executions log, newest first, filtered by app; the filter is in the URL, so Back undoes it.
      await page.goto("/executions");
      const items = page.getByTestId("execution-item");
      await expect(items).toHaveCount(2);
      await expect(items.first()).toContainText("Shop");
      await page.getByRole("searchbox", { name: "App, agent or flow" }).fill("hel");
      await page.getByRole("button", { name: /^Helpdesk/ }).click();
      await expect(page).toHaveURL(new RegExp(`item=${apps.Helpdesk}&itemKind=app`));
      await expect(items).toHaveCount(1);
      await expect(page.getByTestId("item-filter").getByRole("link", { name: "Helpdesk" })).toBeVisible();
      await expect(items.first().getByRole("link", { name: "Helpdesk" })).toBeVisible();
      await page.getByLabel("Status").selectOption("failed");
      await expect(page.getByText("No runs match these filters.")).toBeVisible();
      await page.goBack();
      await expect(items).toHaveCount(1);
      await expectAccessible(page);
      await screenshot(page, "pickers-executions");

      // The chat offers the app's starter; the reply's markdown is rendered, not shown raw.
      await page.goto(`/chat/${apps.Helpdesk}`);
      await expect(page.getByTestId("greeting")).toHaveText("Welcome to Helpdesk.");
      await page
        .getByRole("group", { name: "Conversation starters" })
        .getByRole("button", { name: "How long do refunds take?" })
        .click();
      const answer = page.getByTestId("message-assistant").last();
      await expect(answer.locator("strong")).toHaveText("14 days");
      await expect(answer).not.toContainText("**");
      await expect(page.getByRole("group", { name: "Conversation starters" })).toHaveCount(0);
      await expectAccessible(page);
      await screenshot(page, "pickers-chat");
    });
  });
}
