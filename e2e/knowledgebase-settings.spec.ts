// A knowledgebase's Settings on its page, at both sizes: switch search to lexical only and
// reranking on, save, reload and find both kept; a name past nameText's bound is refused beside
// the field and changes nothing; a viewer is shown who may change them instead.
import { expect, test, type Page } from "@playwright/test";
import { MAX_NAME_CHARS } from "../src/schemas/limits";
import { addMember, admin, api, screenshot, seriousA11yViolations, signedInDemo, signIn, VIEWPORTS } from "./fixtures";

async function knowledgebaseOf(page: Page, key: string, name: string): Promise<string> {
  const { knowledgebase } = await api(page.request, key, "POST", "/knowledgebases", {
    name,
    description: "Opening hours, parking and the car wash.",
  });
  return knowledgebase.id as string;
}

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("search mode and reranking are saved and kept after a reload", async ({ page }) => {
      const { orgKey } = await signedInDemo(page);
      const knowledgebaseId = await knowledgebaseOf(page, orgKey.secret, "Parking");
      await page.goto(`/knowledge/${knowledgebaseId}`);
      const summary = page.getByTestId("knowledgebase-settings-summary");
      await expect(summary).toHaveText("Search: Automatic · Reranking: Off · Language: English");

      await page.getByRole("button", { name: "Settings" }).click();
      const form = page.getByRole("form", { name: "Knowledgebase settings" });
      await expect(form.getByRole("radio", { name: /^Automatic/ })).toBeChecked();
      await expect(form.getByRole("checkbox", { name: /^Rerank/ })).not.toBeChecked();
      await form.getByRole("radio", { name: /^Lexical only/ }).check();
      await form.getByRole("checkbox", { name: /^Rerank/ }).check();
      await expect(form).toContainText("No effect while search is lexical only");
      expect(await seriousA11yViolations(page)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await screenshot(page, "knowledgebase-settings-open");

      await form.getByRole("button", { name: "Save", exact: true }).click();
      await expect(form).toBeHidden();
      await expect(summary).toHaveText("Search: Lexical only · Reranking: On · Language: English");
      await expect(page.getByRole("button", { name: "Settings" })).toBeFocused();
      await expect(page.getByRole("region", { name: "Recent activity" })).toContainText("edited");
      await screenshot(page, "knowledgebase-settings-saved");

      await page.reload();
      await expect(summary).toHaveText("Search: Lexical only · Reranking: On · Language: English");
      await page.getByRole("button", { name: "Settings" }).click();
      await expect(form.getByRole("radio", { name: /^Lexical only/ })).toBeChecked();
      await expect(form.getByRole("checkbox", { name: /^Rerank/ })).toBeChecked();
      const stored = await api(page.request, orgKey.secret, "GET", `/knowledgebases/${knowledgebaseId}`);
      expect([stored.searchMode, stored.rerank]).toEqual(["lexical", true]);
    });

    test("a name past the bound is refused beside the field and changes nothing", async ({ page }) => {
      const { orgKey } = await signedInDemo(page);
      const knowledgebaseId = await knowledgebaseOf(page, orgKey.secret, "Parking");
      await page.goto(`/knowledge/${knowledgebaseId}`);
      await page.getByRole("button", { name: "Settings" }).click();
      const form = page.getByRole("form", { name: "Knowledgebase settings" });
      const tooLong = "P".repeat(MAX_NAME_CHARS + 1);
      await form.getByRole("textbox", { name: "Name", exact: true }).fill(tooLong);
      await form.getByRole("radio", { name: /^Lexical only/ }).check();
      await form.getByRole("button", { name: "Save", exact: true }).click();

      const name = form.getByRole("textbox", { name: "Name", exact: true });
      await expect(name).toHaveAttribute("aria-invalid", "true");
      await expect(form.locator(".field-error")).toHaveText(
        `Too long: at most ${MAX_NAME_CHARS} characters (this has ${MAX_NAME_CHARS + 1}).`,
      );
      // Nothing typed is lost, and nothing was saved.
      await expect(name).toHaveValue(tooLong);
      await expect(form.getByRole("radio", { name: /^Lexical only/ })).toBeChecked();
      expect(await seriousA11yViolations(page)).toEqual([]);
      await screenshot(page, "knowledgebase-settings-refused");
      const stored = await api(page.request, orgKey.secret, "GET", `/knowledgebases/${knowledgebaseId}`);
      expect([stored.name, stored.searchMode]).toEqual(["Parking", "auto"]);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Parking");

      // The server holds the same bound: the API refuses it too, naming the field.
      const refused = await page.request.patch(`/api/v1/knowledgebases/${knowledgebaseId}`, {
        headers: { Authorization: `Bearer ${orgKey.secret}` },
        data: { name: tooLong },
      });
      expect(refused.status()).toBe(400);
      expect((await refused.json()).error.problems[0].path).toBe("name");
    });

    test("a refusal from the server shows in the form, and the edits stay", async ({ page }) => {
      const { orgKey, organization } = await signedInDemo(page);
      const knowledgebaseId = await knowledgebaseOf(page, orgKey.secret, "Parking");
      const builder = { email: `kb-settings.builder.${viewport.name}@example.com`, password: "a-builder-passphrase" };
      const { member } = await addMember(organization.id, builder, "member");
      await page.context().clearCookies();
      await signIn(page, builder);
      await page.goto(`/knowledge/${knowledgebaseId}`);
      await page.getByRole("button", { name: "Settings" }).click();
      const form = page.getByRole("form", { name: "Knowledgebase settings" });
      await form.getByRole("textbox", { name: "Name", exact: true }).fill("Parking and car wash");
      // Removed from the organization while the form is open: the server refuses the save.
      await admin("member", "remove", "--member", member.id);
      await form.getByRole("button", { name: "Save", exact: true }).click();
      await expect(form.getByRole("alert")).toBeVisible();
      await expect(form.getByRole("alert")).toContainText("Code");
      await screenshot(page, "knowledgebase-settings-server-refusal");
      await expect(form.getByRole("textbox", { name: "Name", exact: true })).toHaveValue("Parking and car wash");
      const stored = await api(page.request, orgKey.secret, "GET", `/knowledgebases/${knowledgebaseId}`);
      expect(stored.name).toBe("Parking");
    });

    test("a viewer sees the settings and who may change them", async ({ page }) => {
      const { orgKey, organization } = await signedInDemo(page);
      const knowledgebaseId = await knowledgebaseOf(page, orgKey.secret, "Parking");
      const viewer = { email: `kb-settings.viewer.${viewport.name}@example.com`, password: "a-viewer-passphrase" };
      await addMember(organization.id, viewer, "viewer");
      await page.context().clearCookies();
      await signIn(page, viewer);
      await page.goto(`/knowledge/${knowledgebaseId}`);
      await expect(page.getByTestId("knowledgebase-settings-summary")).toHaveText(
        "Search: Automatic · Reranking: Off · Language: English",
      );
      await expect(page.getByRole("button", { name: "Settings" })).toBeDisabled();
      await expect(page.getByText("Members and above only")).toBeVisible();
    });
  });
}
