// Issue 32, the flow canvas, at both sizes, in the flow studio (the one flow editor): a builder
// builds start → knowledge search → template → output by hand, names a node, picks a variable
// from the menu into the middle of text already typed (by the keyboard at a desk), runs the draft
// from the test run with sample input and sees the picked variable's value in the output and what
// the run cost, then deletes a node and undoes it. On a phone the list of steps and its sheets do
// all of it. (The agent half of the outcome, a preview answering with changed
// instructions, is e2e/workbench.spec.ts.)
import { expect, test, type Locator, type Page } from "@playwright/test";
import { api, canvasAtRest, draftNodes, flowCard, screenshot, signedInDemo, VIEWPORTS } from "./fixtures";

/** A flow with one input and a knowledgebase holding the page its search finds. */
async function seedFlow(page: Page) {
  const demo = await signedInDemo(page);
  const key = demo.orgKey.secret;
  const { knowledgebase } = await api(page.request, key, "POST", "/knowledgebases", { name: "Handbook" });
  await api(page.request, key, "POST", `/knowledgebases/${knowledgebase.id}/pages`, {
    title: "Returns",
    markdown: "Refunds are paid within 14 days.",
  });
  const { flow } = await api(page.request, key, "POST", "/flows", {
    name: "Answer from the handbook",
    inputs: [{ key: "question", label: "Question" }],
  });
  await page.goto(`/flows/${flow.id}/studio`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Answer from the handbook");
  return { key, flow };
}

for (const viewport of VIEWPORTS) {
  const phone = viewport.name === "phone";
  test.describe(`at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("a builder builds a flow with picked variables, runs it from the test run, and undoes a deletion", async ({
      page,
    }) => {
      const { key, flow } = await seedFlow(page);
      const inspector = page.getByRole("complementary", { name: "Inspector" });
      const sheet = page.getByRole("dialog", { name: "Step settings" });
      const steps = page.getByTestId("flow-step");
      /** A step's settings: in the inspector once its card is selected, or in a sheet opened from the list. */
      const open = async (index: number): Promise<Locator> => {
        if (!phone) {
          await flowCard(page, index).click();
          return inspector;
        }
        await steps
          .nth(index)
          .getByRole("button", { name: /^Open / })
          .click();
        return sheet;
      };
      const close = async () => {
        if (phone) await sheet.getByRole("button", { name: "Close step settings" }).click();
      };

      // The start from the empty flow's button, then the others from the node library.
      await page.getByRole("button", { name: "Add a Start step" }).click();
      await close();
      const nodesShown = phone ? steps : page.locator(".react-flow__node");
      await expect(nodesShown).toHaveCount(1);
      for (const [count, type] of ["Knowledge search", "Template", "Output"].entries()) {
        if (phone) await page.getByRole("button", { name: "Add a step" }).click();
        const library = phone
          ? page.getByRole("dialog", { name: "Add a step" })
          : page.getByRole("navigation", { name: "Node library" });
        await library.getByRole("button", { name: `Add ${type}` }).click();
        await close();
        await expect(nodesShown).toHaveCount(count + 2);
      }
      if (!phone) await canvasAtRest(page);

      // The search: a title a person wrote, shown with its type as a badge; a knowledgebase; the input picked.
      const search = await open(1);
      await search.getByLabel("Title").fill("Search docs");
      await search.getByLabel("Knowledgebase").fill("Hand");
      await search.getByRole("button", { name: "Handbook" }).click();
      await search.getByRole("button", { name: "Insert a variable" }).click();
      await search.getByRole("menuitem", { name: "{{Question}}" }).click();
      await expect(search.getByLabel("Query template")).toHaveValue("{{inputs.question}}");
      await close();
      const shown = phone ? steps.nth(1) : flowCard(page, 1);
      await expect(shown.locator(phone ? ".step-head strong" : ".flow-card-title")).toHaveText("Search docs");
      await expect(shown.locator(phone ? ".step-type" : ".flow-card-type")).toHaveText("Knowledge search");

      // The template: text first, then the search's passages put where the cursor is.
      const fields = await open(2);
      // By role: a label's text would include the textarea's value once it has one.
      const template = fields.getByRole("textbox", { name: "Template", exact: true });
      await template.fill("Answer:  (from the handbook)");
      await template.focus();
      await template.press("Control+Home");
      for (let i = 0; i < "Answer: ".length; i++) await template.press("ArrowRight");
      const insert = fields.getByRole("button", { name: "Insert a variable" });
      if (phone) {
        await insert.click();
        await fields.getByRole("menuitem", { name: "{{Search docs → passages}}" }).click();
      } else {
        // By the keyboard: Tab to the menu button, Enter opens it, End reaches the last variable.
        await page.keyboard.press("Tab");
        await expect(insert).toBeFocused();
        await page.keyboard.press("Enter");
        await expect(fields.getByRole("menuitem").first()).toBeFocused();
        await page.keyboard.press("End");
        await expect(fields.getByRole("menuitem", { name: "{{Search docs → passages}}" })).toBeFocused();
        await page.keyboard.press("Enter");
      }
      await expect(template).toHaveValue("Answer: {{nodes.search.output}} (from the handbook)");
      await expect(template).toBeFocused();
      await close();

      const output = await open(3);
      await output.getByRole("button", { name: "Insert a variable" }).click();
      await output.getByRole("menuitem", { name: "{{Template → text}}" }).click();
      await expect(output.getByLabel("Final value template")).toHaveValue("{{nodes.template.output}}");
      await close();
      await expect(page.getByTestId("flow-feedback")).toContainText("The flow is complete and ready to publish.");
      await expect(page.getByTestId("save-state")).toHaveText("Saved");
      await screenshot(page, `workbench-flow-${viewport.name}`);

      // The test run runs the draft with sample input; the picked variable's value is in the output,
      // and the run says what it cost.
      await page.getByRole("button", { name: "Test run" }).click();
      const run = phone ? page.getByRole("dialog", { name: "Test run" }) : inspector;
      await run.getByLabel("Question").fill("refunds");
      await run.getByRole("button", { name: "Run the flow" }).click();
      const answer = run.getByTestId("test-run-answer");
      await expect(answer).toContainText("Answer: ");
      await expect(answer).toContainText("Refunds are paid within 14 days.");
      await expect(answer).toContainText("(from the handbook)");
      await expect(run.getByTestId("test-run-cost")).toContainText(
        /Succeeded · .* · 1 credit · \d+ tokens in, \d+ out/,
      );
      await screenshot(page, `workbench-flow-run-${viewport.name}`);
      if (phone) await run.getByRole("button", { name: "Close test run" }).click();

      // The search step shows what it was given in that run: its query, rendered.
      const searched = (await open(1)).getByRole("region", { name: "Last test run" });
      await expect(searched.getByLabel("Input")).toHaveText("refunds");
      await expect(searched.getByLabel("Output")).toContainText("Refunds are paid within 14 days.");
      await screenshot(page, `workbench-flow-step-input-${viewport.name}`);
      await close();

      // Deleting the template leaves the output reading a node that is gone: kept in the browser, not
      // sent. Undoing the deletion brings the node back, with its text and connections, and saves.
      if (phone) {
        await page.getByRole("button", { name: "Delete Template" }).click();
        await expect(steps).toHaveCount(3);
        await expect(page.getByTestId("save-state")).toHaveText("Not saved (kept in this browser)");
        await page.getByRole("button", { name: "Undo" }).click();
        await expect(steps).toHaveCount(4);
        await expect(steps.nth(2).locator(".step-head strong")).toHaveText("Template");
      } else {
        await flowCard(page, 2).click();
        await page.keyboard.press("Delete");
        await expect(page.locator(".react-flow__node")).toHaveCount(3);
        await expect(page.getByTestId("save-problem")).toContainText('no node "template"');
        await page.keyboard.press("Control+z");
        await expect(page.locator(".react-flow__node")).toHaveCount(4);
        await expect(flowCard(page, 2)).toContainText("Answer: {{nodes.search.output}}");
      }
      await expect(page.getByRole("button", { name: "Redo" })).toBeEnabled();
      await expect(page.getByTestId("save-state")).toHaveText("Saved");
      await expect
        .poll(async () => (await draftNodes(page, key, flow.id)).map((node) => node.id))
        .toEqual(["start", "search", "template", "output"]);
      const saved = await draftNodes(page, key, flow.id);
      expect(saved[1]!.data.title).toBe("Search docs");
      expect(saved[2]!.data.template).toBe("Answer: {{nodes.search.output}} (from the handbook)");
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(
        0,
      );
    });
  });
}
