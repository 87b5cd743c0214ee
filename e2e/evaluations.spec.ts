// Evaluations in the console, at both sizes: a builder opens them from the flow's test run (at a
// desk) or its settings (on a phone), imports a CSV file, runs it against the live version and
// then the draft, watches both finish in the background, reads one run's results and compares
// the two runs case by case.
import { expect, test, type Page } from "@playwright/test";
import { api, FIRST_VISIT, screenshot, signedInDemo, VIEWPORTS } from "./fixtures";

/** A flow answering "<word> <its input>": the built-in judge passes a case when the answer holds its expected words. */
const flowSaying = (word: string) => ({
  name: "Say a word",
  inputs: [{ key: "q", label: "Question", type: "text", required: true }],
  nodes: [
    { id: "start", type: "trigger_start", data: {} },
    { id: "out", type: "output", data: { value: `${word} {{inputs.q}}` } },
  ],
});

/** Version 1 says "alpha"; the draft says "beta". */
async function seedFlow(page: Page) {
  const demo = await signedInDemo(page);
  const key = demo.orgKey.secret;
  const { flow } = await api(page.request, key, "POST", "/flows", flowSaying("alpha"));
  await api(page.request, key, "POST", `/flows/${flow.id}/publish`, {});
  await api(page.request, key, "PATCH", `/flows/${flow.id}/draft`, flowSaying("beta"));
  return flow.id as string;
}

// One case each: passes on both, fixed by the draft, broken by the draft.
const CASES_CSV = "input,expectedBehavior\nkiwi,kiwi\nmango,beta\npapaya,alpha\n";

for (const viewport of VIEWPORTS) {
  const phone = viewport.name === "phone";
  test.describe(`at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("a builder imports cases, runs them against a version and the draft, and compares", async ({ page }) => {
      const flowId = await seedFlow(page);
      await page.goto(`/flows/${flowId}`);
      if (phone) {
        await page.getByRole("button", { name: "Settings" }).click();
        const settings = page.getByRole("dialog", { name: "Flow settings" });
        await settings.getByRole("region", { name: "Tests" }).getByRole("link", { name: "Evaluations" }).click();
      } else {
        await page.getByRole("region", { name: "Test run" }).getByRole("link", { name: "Evaluations" }).click();
      }
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Evaluations", FIRST_VISIT);

      // A bad file is named and nothing is imported.
      const importForm = page.getByRole("form", { name: "Import a dataset" });
      const file = importForm.getByLabel("File");
      await file.setInputFiles({ name: "broken.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from("{") });
      await importForm.getByRole("button", { name: "Import" }).click();
      await expect(importForm.getByRole("alert")).toContainText("line 1: not a JSON object");
      await expect(page.getByText("No datasets yet: import one above.")).toBeVisible();

      await file.setInputFiles({ name: "cases.csv", mimeType: "text/csv", buffer: Buffer.from(CASES_CSV) });
      await importForm.getByRole("button", { name: "Import" }).click();
      await expect(page.getByText("Imported 3 cases.")).toBeVisible();
      const datasets = page.getByRole("region", { name: "Imported datasets" });
      await expect(datasets.getByRole("row", { name: /cases\.csv/ })).toContainText("3");

      const runs = page.getByRole("region", { name: "Evaluation runs" });
      const runRow = (against: string) => runs.getByRole("row").filter({ hasText: against });
      // Against the live version: two of three pass.
      await page.getByLabel("Run against").selectOption({ label: "Version 1 (live)" });
      await datasets.getByRole("button", { name: "Run", exact: true }).click();
      await expect(page.getByText("Started: 3 cases against version 1.")).toBeVisible();
      await expect(runRow("Version 1")).toContainText("3/3", { timeout: 30_000 });
      await expect(runRow("Version 1")).toContainText("67%");
      const results = page.getByRole("region", { name: "Results per case" });
      await expect(results.getByRole("row").filter({ hasText: "mango" })).toContainText("Failed");
      await expect(results.getByRole("row").filter({ hasText: "papaya" })).toContainText("Passed");
      await page.getByLabel("Show").selectOption({ label: "Failed only" });
      await expect(results.getByRole("row").filter({ hasText: /kiwi|papaya/ })).toHaveCount(0);
      await expect(results.getByRole("row").filter({ hasText: "mango" })).toBeVisible();
      await runRow("Version 1").getByRole("button", { name: "Set as base" }).click();

      // Against the draft, then compared with the version as the base.
      await page.getByLabel("Run against").selectOption({ label: "The draft" });
      await datasets.getByRole("button", { name: "Run", exact: true }).click();
      await expect(page.getByText("Started: 3 cases against draft.")).toBeVisible();
      await expect(runRow("Draft")).toContainText("3/3", { timeout: 30_000 });
      // The results follow the new run with the filter kept: its one failure shows once it is done.
      await expect(results.getByRole("row").filter({ hasText: "papaya" })).toContainText("Failed");
      await expect(results.getByRole("row").filter({ hasText: /kiwi|mango/ })).toHaveCount(0);
      await runRow("Draft").getByRole("button", { name: "Compare with base" }).click();
      const comparison = page.getByRole("region", { name: "Comparison" });
      await expect(comparison.getByRole("heading", { name: "2 cases changed outcome" })).toBeVisible();
      const changed = comparison.getByRole("region", { name: "Cases that changed outcome" });
      await expect(changed.getByRole("row").filter({ hasText: "mango" })).toContainText("Now passes");
      await expect(changed.getByRole("row").filter({ hasText: "papaya" })).toContainText("Now fails");
      await expect(page).toHaveURL(/base=.*candidate=/);
      await screenshot(page, "evaluations");

      // The pair stays in the address: a reload shows the same comparison.
      await page.reload();
      await expect(comparison.getByRole("heading", { name: "2 cases changed outcome" })).toBeVisible();
      await comparison.getByRole("button", { name: "Close" }).click();
      await expect(comparison).toHaveCount(0);
    });
  });
}
