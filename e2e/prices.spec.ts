// Organization › Models and prices in the browser: an admin prices the built-in model, the model
// being priced lives in the URL (a reload keeps the form open), the table shows the price and a
// typical turn's cost, and removing the price after a confirm leaves the model unpriced. At both sizes.
import { expect, test } from "@playwright/test";
import { screenshot, seriousA11yViolations, signedInDemo } from "./fixtures";

const VIEWPORTS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
];
const MODEL = "atrium-offline";

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("price a model, keep the form through a reload, see the price, remove it", async ({ page }) => {
      await signedInDemo(page);
      await page.goto("/settings/prices");
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Models and prices");
      const row = page.getByTestId("model-price-row").filter({ hasText: MODEL });
      await expect(row).toContainText("Unpriced");

      await row.getByRole("button", { name: `Price ${MODEL}` }).click();
      await expect(page).toHaveURL(new RegExp(`/settings/prices\\?model=${MODEL}$`));
      // The model being priced is in the address: a reload opens the same form.
      await page.reload();
      // The row's button says it is the one being priced.
      await expect(row.getByRole("button", { name: `Price ${MODEL}` })).toHaveAttribute("aria-pressed", "true");
      const form = page.getByRole("form", { name: `Price ${MODEL}` });
      await form.getByLabel("Credits per 1M input tokens").fill("1000");
      await form.getByLabel("Credits per 1M output tokens").fill("2000");
      await form.getByLabel("Minimum credits per run").fill("2");
      await expect(page.getByTestId("typical-turn-preview")).not.toContainText("—");
      expect(await seriousA11yViolations(page)).toEqual([]);
      await screenshot(page, "prices-form");
      await form.getByRole("button", { name: "Save price" }).click();

      await expect(form).toBeHidden();
      await expect(page).toHaveURL(/\/settings\/prices$/);
      await expect(row).toContainText("1,000 / 2,000");
      await expect(row.getByRole("button", { name: `Price ${MODEL}` })).toHaveText("Edit");
      await expect(row.getByRole("button", { name: `Price ${MODEL}` })).toHaveAttribute("aria-pressed", "false");

      await row.getByRole("button", { name: "Remove price" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Remove price" }).click();
      await expect(row).toContainText("Unpriced");
    });
  });
}
