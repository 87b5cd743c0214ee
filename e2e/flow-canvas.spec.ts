// Issue 15, point 6 (and point 3's flow part): a builder edits a flow on the studio's canvas, which
// changes the same draft as its list of steps. Connections are the nodes' data.next, places their
// data.position; an invalid connection is shown (a step back up the canvas drawn round the cards),
// kept in the browser and saved once fixed. On a phone the list stands in for the canvas. The old
// address, /flows/{id}, lands in the studio.
import { expect, test, type Page } from "@playwright/test";
import { api, canvasAtRest, draftNodes, flowCard, screenshot, signedInDemo } from "./fixtures";

/** Draws a connection from one node's lower dot to another node's upper dot (click one, then the other). */
async function connect(page: Page, from: number, to: number) {
  await flowCard(page, from).locator(".react-flow__handle.source").click();
  await flowCard(page, to).locator(".react-flow__handle.target").click();
}

test.describe("at a desk", () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test("a builder adds a node on the canvas, connects it, configures it, sees it saved and finds it after a reload", async ({
    page,
  }) => {
    // Two reloads and a switch of view: on a loaded machine (and a server's cold first pages) over a minute.
    test.slow();
    const demo = await signedInDemo(page);
    const key = demo.orgKey.secret;
    const flow = (
      await api(page.request, key, "POST", "/flows", {
        name: "Triage",
        inputs: [{ key: "topic", label: "Topic" }],
        nodes: [
          { id: "start", type: "trigger_start", data: {} },
          { id: "out", type: "output", data: { value: "{{inputs.topic}}" } },
        ],
      })
    ).flow;
    await page.goto(`/flows/${flow.id}`);
    await expect(page).toHaveURL(`/flows/${flow.id}/studio`);
    await expect(page.getByRole("button", { name: "Canvas", exact: true })).toHaveAttribute("aria-pressed", "true");
    await expect(flowCard(page, 0)).toContainText("Start");
    await expect(flowCard(page, 1)).toContainText("Out");

    await page.getByRole("navigation", { name: "Node library" }).getByRole("button", { name: "Add Template" }).click();
    await expect(flowCard(page, 2)).toContainText("Template");
    const selectedNode = page.getByRole("complementary", { name: "Inspector" });
    await selectedNode.getByRole("textbox", { name: "Template", exact: true }).fill("Summary of {{inputs.topic}}");
    await expect(flowCard(page, 2)).toContainText("Summary of");

    // The new card brought every card into view; a handle that moves under the click is missed.
    await canvasAtRest(page);
    await connect(page, 0, 2);
    await connect(page, 2, 1);
    await flowCard(page, 0).click();
    await expect(selectedNode.getByLabel("Node id")).toHaveValue("start");
    await selectedNode.getByRole("button", { name: "Disconnect Out" }).click();
    await expect(selectedNode.getByTestId("runs-next")).toHaveText("Then runs: Template");
    await flowCard(page, 1).click();
    await selectedNode.getByLabel("Final value template").fill("{{nodes.template.output}}");
    await expect(page.getByTestId("flow-feedback")).toContainText("The flow is complete and ready to publish.");
    await expect(page.getByTestId("save-state")).toHaveText("Saved");
    await screenshot(page, "flow-canvas");

    const saved = await draftNodes(page, key, flow.id);
    expect(saved.map((node) => [node.id, node.data.next])).toEqual([
      ["start", "template"],
      ["out", undefined],
      ["template", "out"],
    ]);
    expect(saved[2]!.data.template).toBe("Summary of {{inputs.topic}}");
    for (const node of saved) expect(node.data.position).toEqual({ x: expect.any(Number), y: expect.any(Number) });

    // A node dragged elsewhere keeps its place.
    const before = (await flowCard(page, 1).boundingBox())!;
    await page.mouse.move(before.x + 40, before.y + 12);
    await page.mouse.down();
    await page.mouse.move(before.x + 240, before.y + 12, { steps: 10 });
    await page.mouse.up();
    await expect(page.getByTestId("save-state")).toHaveText("Saved");
    await expect
      .poll(async () => ((await draftNodes(page, key, flow.id))[1]!.data.position as { x: number }).x)
      .toBeGreaterThan((saved[1]!.data.position as { x: number }).x + 100);

    await page.reload();
    await expect(flowCard(page, 2)).toContainText("Summary of");
    await expect(page.locator(".react-flow__edge")).toHaveCount(2);
    await expect(page.getByTestId("restored-edits")).toHaveCount(0);
    // The same steps as a list at a desk (in the URL), each edited in the inspector.
    await page.getByRole("button", { name: "List", exact: true }).click();
    await expect(page).toHaveURL(/view=list/);
    await expect(page.getByTestId("flow-step")).toHaveCount(3);
    await expect(page.getByTestId("flow-step").nth(0)).toContainText("then Template");
    await page.getByRole("button", { name: "Open Template" }).click();
    await expect(selectedNode.getByRole("textbox", { name: "Template", exact: true })).toHaveValue(
      "Summary of {{inputs.topic}}",
    );
    await screenshot(page, "flow-studio-list-desk");
    await page.reload();
    await expect(page.getByTestId("flow-step")).toHaveCount(3);
  });

  test("an invalid connection shows why, is kept in the browser across a reload, and saves once undone", async ({
    page,
  }) => {
    const demo = await signedInDemo(page);
    const key = demo.orgKey.secret;
    const flow = (
      await api(page.request, key, "POST", "/flows", {
        name: "Loop",
        nodes: [
          { id: "start", type: "trigger_start", data: {} },
          { id: "a", type: "template", data: { template: "a" } },
          { id: "b", type: "template", data: { template: "b" } },
          { id: "out", type: "output", data: { value: "{{nodes.b.output}}" } },
        ],
      })
    ).flow;
    page.on("dialog", (dialog) => void dialog.accept());
    await page.goto(`/flows/${flow.id}/studio`);
    await expect(flowCard(page, 2)).toContainText("b");
    await canvasAtRest(page);

    await connect(page, 2, 1);
    await expect(page.getByTestId("flow-feedback")).toContainText("cycle");
    // The step back up goes round the right of both cards (not under a → b), marked as the cycle it closes.
    const back = page.locator(".react-flow__edge.back");
    await expect(back).toHaveCount(1);
    await expect(back).toHaveClass(/cycle/);
    await expect(back).toContainText("back to A");
    const [loop, forward] = [
      (await back.locator("path.react-flow__edge-path").boundingBox())!,
      (await flowCard(page, 1).boundingBox())!,
    ];
    expect(loop.x + loop.width).toBeGreaterThan(forward.x + forward.width + 20);
    await expect(page.getByTestId("save-state")).toHaveText("Not saved (kept in this browser)");
    await expect(page.getByTestId("save-problem")).toContainText("cycle");
    await expect(flowCard(page, 1).locator(".flow-card")).toHaveClass(/bad/);
    await screenshot(page, "flow-canvas-invalid");
    expect((await draftNodes(page, key, flow.id))[2]!.data.next).toBeUndefined();

    await page.reload();
    await expect(page.getByTestId("restored-edits")).toBeVisible();
    await expect(page.getByTestId("save-problem")).toContainText("cycle");
    await flowCard(page, 2).click();
    const selectedNode = page.getByRole("complementary", { name: "Inspector" });
    await selectedNode.getByRole("button", { name: "Disconnect A" }).click();
    await expect(page.getByTestId("save-state")).toHaveText("Saved");
    await expect(page.getByTestId("save-problem")).toHaveCount(0);
    expect((await draftNodes(page, key, flow.id))[2]!.data.next).toBe("out");
    await page.reload();
    await expect(page.getByTestId("restored-edits")).toHaveCount(0);
    await expect(page.getByTestId("flow-feedback")).toContainText("The flow is complete and ready to publish.");
  });
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the list of steps stands in for the canvas, edits the same draft, and nothing scrolls sideways", async ({
    page,
  }) => {
    const demo = await signedInDemo(page);
    const flow = (
      await api(page.request, demo.orgKey.secret, "POST", "/flows", {
        name: "Triage",
        nodes: [
          { id: "start", type: "trigger_start", data: { position: { x: 0, y: 0 } } },
          { id: "out", type: "output", data: { value: "done", position: { x: 300, y: 200 } } },
        ],
      })
    ).flow;
    await page.goto(`/flows/${flow.id}`);
    await expect(page).toHaveURL(`/flows/${flow.id}/studio`);
    await expect(page.getByTestId("flow-canvas")).toHaveCount(0);
    await expect(page.getByTestId("flow-step")).toHaveCount(2);
    await page.getByRole("button", { name: "Open Out" }).click();
    const sheet = page.getByRole("dialog", { name: "Step settings" });
    await sheet.getByLabel("Final value template").fill("done, by phone");
    await sheet.getByRole("button", { name: "Close step settings" }).click();
    await expect(page.getByTestId("save-state")).toHaveText("Saved");
    const saved = await draftNodes(page, demo.orgKey.secret, flow.id);
    expect(saved[1]!.data).toEqual({ value: "done, by phone", position: { x: 300, y: 200 } });
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(
      0,
    );
    await screenshot(page, "flow-canvas-phone");
  });
});
