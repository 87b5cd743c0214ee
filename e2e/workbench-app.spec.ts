// Issue 32, the app editor at both sizes: a builder writes the transaction's input schema with the
// form (two fields, one required), sees it as JSON, edits the JSON and finds the form in step,
// publishes, and tries the live transaction: refused without the required field, answered with it.
// A schema the form cannot show opens as JSON with the reason, and stays as it was.
import { expect, test, type Page } from "@playwright/test";
import { api, screenshot, signedInDemo, VIEWPORTS, type Demo } from "./fixtures";

/** A published agent on the built-in model, and an app that consults it, as drafts to edit. */
async function appWithMember(page: Page, demo: Demo): Promise<string> {
  const key = demo.orgKey.secret;
  const { agent } = await api(page.request, key, "POST", "/agents", { name: "Refund desk" });
  await api(page.request, key, "POST", `/agents/${agent.id}/publish`, {});
  const { app } = await api(page.request, key, "POST", "/apps", {
    name: "Refund checker",
    members: [{ id: agent.id, kind: "agent" }],
  });
  return app.id as string;
}

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("the input schema built with the form refuses a transaction without its required field", async ({ page }) => {
      const demo = await signedInDemo(page);
      const appId = await appWithMember(page, demo);
      await page.goto(`/apps/${appId}`);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Refund checker");

      await page.getByLabel(/^Transaction endpoint/).check();
      const input = page.getByRole("region", { name: "Input schema" });
      await expect(input.getByRole("tab", { name: "Form", selected: true })).toBeVisible();
      await input.getByRole("button", { name: "Add field" }).click();
      const fields = input.getByTestId("schema-field");
      // A new field says what it needs beside itself, and is not saved until it has it.
      await expect(fields.nth(0)).toContainText("Give this field a name.");
      await fields.nth(0).getByLabel("Name").fill("question");
      await fields.nth(0).getByLabel("Description").fill("What the customer asks");
      await fields.nth(0).getByLabel("Required").check();
      await input.getByRole("button", { name: "Add field" }).click();
      await fields.nth(1).getByLabel("Name").fill("question");
      await expect(fields.nth(1)).toContainText('Another field here is already called "question".');
      await fields.nth(1).getByLabel("Name").fill("urgent");
      await fields.nth(1).getByLabel("Type").selectOption({ label: "Yes or no" });
      await expect(page.getByTestId("save-state")).toHaveText("Saved");
      await screenshot(page, "workbench-app-schema-form");

      await input.getByRole("tab", { name: "JSON" }).click();
      const json = input.getByLabel("Input schema as JSON");
      const expected = {
        type: "object",
        properties: {
          question: { type: "string", description: "What the customer asks" },
          urgent: { type: "boolean" },
        },
        required: ["question"],
      };
      expect(JSON.parse(await json.inputValue())).toEqual(expected);
      await screenshot(page, "workbench-app-schema-json");

      // An edit on the JSON side shows on the form side.
      await json.fill(
        JSON.stringify({ ...expected, properties: { ...expected.properties, priority: { type: "integer" } } }),
      );
      await input.getByRole("tab", { name: "Form" }).click();
      await expect(fields).toHaveCount(3);
      await expect(fields.nth(2).getByLabel("Name")).toHaveValue("priority");
      await expect(fields.nth(2).getByLabel("Type")).toHaveValue("integer");
      await fields.nth(2).getByRole("button", { name: "Remove field “priority”" }).click();
      await expect(fields).toHaveCount(2);
      await expect(page.getByTestId("save-state")).toHaveText("Saved");
      const { app } = await api(page.request, demo.orgKey.secret, "GET", `/apps/${appId}/draft`);
      expect(app.api.inputSchema).toEqual(expected);
      await expect(page.getByTestId("last-change")).toContainText(/Endpoints and schemas edited by .* in the console/);

      await expect(page.getByTestId("publish-checks")).toContainText("The agent “Refund desk” is published");
      await page.getByTestId("publish").click();
      await expect(page.getByRole("status").filter({ hasText: "Published version 1" })).toBeVisible();

      const tryIt = page.getByRole("region", { name: "Try the transaction" });
      // The input is a form from the schema; its JSON stays under "Advanced".
      await tryIt.getByLabel("urgent").check();
      await tryIt.getByRole("button", { name: "Run the transaction" }).click();
      const refusal = tryIt.getByRole("alert");
      await expect(refusal).toContainText("The transaction was refused");
      await expect(refusal).toContainText("input.question: must have required property 'question'");
      await expect(refusal).toContainText("invalid_request");
      await screenshot(page, "workbench-app-transaction-refused");

      await tryIt.getByLabel("question (required)").fill("How long do refunds take?");
      await tryIt.getByLabel("Advanced: edit as JSON").check();
      expect(JSON.parse(await tryIt.getByLabel("Transaction input as JSON").inputValue())).toEqual({
        question: "How long do refunds take?",
        urgent: true,
      });
      await tryIt.getByRole("button", { name: "Run the transaction" }).click();
      await expect(tryIt.getByTestId("transaction-output")).toBeVisible();
      await expect(tryIt.getByRole("alert")).toHaveCount(0);
    });

    test("a schema the form cannot show opens as JSON, says why, and is kept", async ({ page }) => {
      const demo = await signedInDemo(page);
      const appId = await appWithMember(page, demo);
      const outputSchema = {
        type: "object",
        properties: { verdict: { oneOf: [{ type: "string" }, { type: "boolean" }] } },
        required: ["verdict"],
      };
      await api(page.request, demo.orgKey.secret, "PATCH", `/apps/${appId}/draft`, { api: { outputSchema } });
      await page.goto(`/apps/${appId}`);

      const output = page.getByRole("region", { name: "Output schema" });
      await expect(output.getByRole("tab", { name: "JSON", selected: true })).toBeVisible();
      expect(JSON.parse(await output.getByLabel("Output schema as JSON").inputValue())).toEqual(outputSchema);
      await output.getByRole("tab", { name: "Form" }).click();
      await expect(output.getByTestId("schema-form-unsupported")).toContainText(
        'The form cannot show this schema: the field "verdict" chooses between several schemas (oneOf).',
      );
      // Other edits save the app without touching it.
      await page.getByLabel("Goals").fill("Check refunds");
      await expect(page.getByTestId("save-state")).toHaveText("Saved");
      const { app } = await api(page.request, demo.orgKey.secret, "GET", `/apps/${appId}/draft`);
      expect(app.api.outputSchema).toEqual(outputSchema);
    });
  });
}
