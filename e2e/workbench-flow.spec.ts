// Issue 32, the flow canvas, at both sizes: a builder builds start → knowledge search → template →
// output by hand, names a node, picks a variable from the menu into the middle of text already
// typed (by the keyboard at a desk), runs the draft from the preview with sample input and sees
// the picked variable's value in the output, then deletes a node and undoes it. On a phone the
// labelled node list does all of it. (The agent half of the outcome, a preview answering
// with changed instructions, is e2e/workbench.spec.ts.)
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
  await page.goto(`/flows/${flow.id}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Answer from the handbook");
  return { key, flow };
}

for (const viewport of VIEWPORTS) {
  const phone = viewport.name === "phone";
  test.describe(`at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("a builder builds a flow with picked variables, runs it from the preview, and undoes a deletion", async ({
      page,
    }) => {
      const { key, flow } = await seedFlow(page);
      /** Where a node's fields are: beside the canvas (the node just added or selected), or its item in the list. */
      const fields = (index: number): Locator =>
        phone ? page.getByTestId("flow-node").nth(index) : page.getByRole("complementary", { name: "Selected node" });

      const nodesShown = phone ? page.getByTestId("flow-node") : page.locator(".react-flow__node");
      if (!phone) await expect(page.getByTestId("flow-canvas").locator(".react-flow__pane")).toBeVisible();
      for (const [count, name] of ["Add start", "Add knowledge search", "Add template", "Add output"].entries()) {
        await page.getByRole("button", { name }).click();
        await expect(nodesShown).toHaveCount(count + 1);
      }
      if (!phone) {
        await canvasAtRest(page);
        await flowCard(page, 1).click();
      }

      // The search: a title a person wrote, shown with its type as a badge; a knowledgebase; the input picked.
      const search = fields(1);
      await search.getByLabel("Title").fill("Search docs");
      await search.getByLabel("Knowledgebase").fill("Hand");
      await search.getByRole("button", { name: "Handbook" }).click();
      await search.getByRole("button", { name: "Insert a variable" }).click();
      await search.getByRole("menuitem", { name: "{{Question}}" }).click();
      await expect(search.getByLabel("Query template")).toHaveValue("{{inputs.question}}");
      const shown = phone ? search : flowCard(page, 1);
      await expect(shown.locator(phone ? ".node-title" : ".flow-card-title")).toHaveText("Search docs");
      await expect(shown.locator(phone ? ".node-badge" : ".flow-card-type")).toHaveText("Knowledge search");

      // The template: text first, then the search's passages put where the cursor is.
      if (!phone) await flowCard(page, 2).click();
      // By role: a label's text would include the textarea's value once it has one.
      const template = fields(2).getByRole("textbox", { name: "Template", exact: true });
      await template.fill("Answer:  (from the handbook)");
      await template.focus();
      await template.press("Control+Home");
      for (let i = 0; i < "Answer: ".length; i++) await template.press("ArrowRight");
      const insert = fields(2).getByRole("button", { name: "Insert a variable" });
      if (phone) {
        await insert.click();
        await fields(2).getByRole("menuitem", { name: "{{Search docs → passages}}" }).click();
      } else {
        // By the keyboard: Tab to the menu button, Enter opens it, End reaches the last variable.
        await page.keyboard.press("Tab");
        await expect(insert).toBeFocused();
        await page.keyboard.press("Enter");
        await expect(fields(2).getByRole("menuitem").first()).toBeFocused();
        await page.keyboard.press("End");
        await expect(fields(2).getByRole("menuitem", { name: "{{Search docs → passages}}" })).toBeFocused();
        await page.keyboard.press("Enter");
      }
      await expect(template).toHaveValue("Answer: {{nodes.search.output}} (from the handbook)");
      await expect(template).toBeFocused();

      if (!phone) await flowCard(page, 3).click();
      await fields(3).getByRole("button", { name: "Insert a variable" }).click();
      await fields(3).getByRole("menuitem", { name: "{{Template → text}}" }).click();
      await expect(fields(3).getByLabel("Final value template")).toHaveValue("{{nodes.template.output}}");
      await expect(page.getByTestId("flow-feedback")).toContainText("The flow is complete and ready to publish.");
      await expect(page.getByTestId("save-state")).toHaveText("Saved");
      await screenshot(page, `workbench-flow-${viewport.name}`);

      // The preview runs the draft with sample input; the picked variable's value is in the output.
      if (phone) await page.getByRole("tab", { name: "Preview" }).click();
      const preview = page.getByRole("region", { name: "Preview" });
      await preview.getByRole("textbox", { name: "Message" }).fill("refunds");
      await preview.getByRole("button", { name: "Send" }).click();
      const answer = preview.getByTestId("message-assistant").first();
      await expect(answer).toContainText("Answer: ");
      await expect(answer).toContainText("Refunds are paid within 14 days.");
      await expect(answer).toContainText("(from the handbook)");
      if (phone) await page.getByRole("tab", { name: "Edit" }).click();

      // Deleting the template leaves the output reading a node that is gone: kept in the browser, not
      // sent. Undoing the deletion brings the node back, with its text and connections, and saves.
      if (phone) {
        await fields(2).getByRole("button", { name: "Delete Template" }).click();
        await expect(page.getByTestId("flow-node")).toHaveCount(3);
        await expect(page.getByTestId("save-state")).toHaveText("Not saved (kept in this browser)");
        await page.getByRole("button", { name: "Undo" }).click();
        await expect(page.getByTestId("flow-node")).toHaveCount(4);
        await expect(fields(2).locator(".node-title")).toHaveText("Template");
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
