import { expect, test } from "@playwright/test";
import { screenshot, signedInDemo } from "./fixtures";

test("a flow from a template, a duplicate name flagged as typed, and pickers telling two of one name apart", async ({
  page,
}) => {
  await signedInDemo(page);
  await page.goto("/flows");
  await page.getByText("New from template").click();
  await expect(page.getByTestId("template-triage")).toContainText(/Steps: Start, Set variable, Condition/i);
  await screenshot(page, "builder-templates");
  await page.getByRole("button", { name: "Use “Summariser”" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Summariser");

  // A second flow of that name: flagged, still allowed.
  await page.goto("/flows");
  await page.getByRole("form", { name: "Create flow" }).getByLabel("Name").fill("summariser");
  await expect(page.getByTestId("duplicate-name")).toContainText('Another flow is already named "Summariser" (draft');
  await page.getByRole("button", { name: "Create flow" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("summariser");

  // The app's member picker shows each one's state and last edit.
  await page.goto("/apps");
  await page.getByRole("form", { name: "Create app" }).getByLabel("Name").fill("Digest");
  await page.getByRole("button", { name: "Create app" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Digest");
  await page.getByRole("searchbox", { name: "Add a member" }).fill("summ");
  await expect(page.getByRole("button", { name: /^Summariser.*draft · edited/ })).toBeVisible();
  await expect(page.getByRole("button", { name: /^summariser.*draft · edited/ })).toBeVisible();
  await screenshot(page, "builder-member-picker");
});
