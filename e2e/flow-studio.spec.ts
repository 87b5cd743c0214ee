// Issue 52, the console side of flows: the canvas-first editor. At a desk a builder meets an empty
// flow with how to begin (no internal type names), builds a branching flow from the node library
// (a condition whose branches are connections), runs it from the editor and reads each node's
// result on its card and a step's output in the inspector; Delete and undo work from the keyboard.
// On a phone the same flow is a list of steps, each opened, added, moved and deleted, and run.
import { expect, test, type Page } from "@playwright/test";
import { api, canvasAtRest, draftNodes, flowCard, screenshot, signedInDemo, VIEWPORTS } from "./fixtures";

/** Connects a node's dot (a condition's named one) to another node by clicking one, then the other. */
async function connect(page: Page, from: number, to: number, handle?: string) {
  const card = flowCard(page, from);
  await (
    handle ? card.locator(`.react-flow__handle[data-handleid="${handle}"]`) : card.locator(".react-flow__handle.source")
  ).click();
  await flowCard(page, to).locator(".react-flow__handle.target").click();
}

/** No two cards on the canvas overlap: a card that grows with its run's result covers none below it. */
async function expectNoCardCovered(page: Page) {
  const boxes = await page
    .locator(".react-flow__node")
    .evaluateAll((cards) =>
      cards
        .map((card) => card.getBoundingClientRect())
        .map(({ left, right, top, bottom }) => ({ left, right, top, bottom })),
    );
  for (const [i, a] of boxes.entries())
    for (const b of boxes.slice(i + 1))
      expect(
        a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top,
        JSON.stringify([a, b]),
      ).toBe(true);
}

test.describe("at a desk", () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test("a builder builds a branching flow from the library, runs it and reads each node's result on the canvas", async ({
    page,
  }) => {
    const demo = await signedInDemo(page);
    const key = demo.orgKey.secret;
    const { flow } = await api(page.request, key, "POST", "/flows", {
      name: "Triage",
      inputs: [{ key: "tier", label: "Tier", type: "select", options: ["gold", "silver"], required: true }],
    });
    await page.goto(`/flows/${flow.id}/studio`);
    const studio = page.getByTestId("flow-studio");
    await expect(studio.getByTestId("empty-flow")).toContainText("Start your flow");
    await expect(studio).not.toContainText("trigger_start");
    await screenshot(page, "flow-studio-empty");

    await studio.getByRole("button", { name: "Add a Start step" }).click();
    await expect(flowCard(page, 0)).toContainText("Start");
    const library = page.getByRole("navigation", { name: "Node library" });
    // Grouped and searchable; the start is not offered twice.
    await expect(library.getByRole("region", { name: "Logic" })).toBeVisible();
    await expect(library.getByRole("button", { name: "Add Start" })).toHaveCount(0);
    await library.getByRole("searchbox", { name: "Search nodes" }).fill("cond");
    await expect(library.getByRole("button")).toHaveCount(1);
    await library.getByRole("button", { name: "Add Condition" }).dragTo(page.getByTestId("flow-canvas"), {
      targetPosition: { x: 500, y: 600 },
    });
    await expect(flowCard(page, 1)).toContainText("Condition");
    await library.getByRole("searchbox", { name: "Search nodes" }).fill("");
    const inspector = page.getByRole("complementary", { name: "Inspector" });
    for (const [index, value] of [
      [2, "Gold service for {{inputs.tier}}"],
      [3, "Standard service"],
    ] as const) {
      await library.getByRole("button", { name: "Add Output" }).click();
      await expect(flowCard(page, index)).toContainText("Output");
      await inspector.getByLabel("Final value template").fill(value);
    }
    await canvasAtRest(page);

    // Two branches drawn from the condition's dot that adds one, then named and given a rule.
    await connect(page, 1, 2, "add");
    await connect(page, 1, 3, "add");
    await flowCard(page, 1).click();
    const branches = inspector.getByTestId("condition-fields").locator("fieldset");
    await expect(branches).toHaveCount(2);
    await branches.nth(0).getByLabel("Branch name").fill("Gold");
    await branches.nth(0).getByLabel("When").selectOption({ label: "Tier" });
    await branches.nth(0).getByLabel("Value").fill("gold");
    await branches.nth(1).getByLabel("Branch name").fill("Others");
    await expect(page.locator(".react-flow__edge").filter({ hasText: "Gold" })).toHaveCount(1);
    await expect(page.locator(".react-flow__edge").filter({ hasText: "Others" })).toHaveCount(1);
    await expect(page.getByTestId("flow-feedback")).toContainText("The flow is complete and ready to publish.");
    await expect(page.getByTestId("save-state")).toHaveText("Saved");
    const saved = await draftNodes(page, key, flow.id);
    expect(saved.map((node) => node.type)).toEqual(["trigger_start", "condition", "output", "output"]);
    expect(saved[1]!.data.branches).toEqual([
      { name: "Gold", when: { "==": [{ var: "inputs.tier" }, "gold"] }, next: "output" },
      { name: "Others", when: true, next: "output2" },
    ]);

    // Delete removes the selected node (and its branch); Ctrl+Z brings both back.
    await flowCard(page, 3).click();
    await page.keyboard.press("Delete");
    await expect(page.locator(".react-flow__node")).toHaveCount(3);
    await page.keyboard.press("Control+z");
    await expect(page.locator(".react-flow__node")).toHaveCount(4);
    await expect(page.locator(".react-flow__edge").filter({ hasText: "Others" })).toHaveCount(1);
    await expect(page.locator(".react-flow__minimap")).toBeVisible();
    await page.getByRole("button", { name: "Fit View" }).click();

    // A test run from a form of the flow's inputs; each node shows how it ran.
    await page.getByRole("button", { name: "Test run" }).click();
    await expect(page.getByTestId("save-state")).toHaveText("Saved");
    await inspector.getByLabel("Tier (required)").selectOption("gold");
    await inspector.getByRole("button", { name: "Run the flow" }).click();
    await expect(inspector.getByTestId("test-run-answer")).toContainText("Gold service for gold");
    await expect(inspector.getByTestId("test-run-cost")).toContainText(/1 credit · \d+ tokens in, \d+ out/);
    await expect(flowCard(page, 2).getByTestId("node-result")).toContainText("Ran");
    await expect(flowCard(page, 2).getByTestId("node-result")).toContainText(/\d+ ms/);
    await expect(flowCard(page, 3).getByTestId("node-result")).toContainText("Not run");
    // The card says the way the condition took; its whole output is in the inspector once selected.
    await expect(flowCard(page, 1).getByTestId("node-result")).toContainText('took branch "Gold"');
    await flowCard(page, 1).click();
    const stepRun = inspector.getByRole("region", { name: "Last test run" });
    await expect(stepRun).toContainText("Ran");
    await expect(stepRun.getByLabel("Output")).toHaveText("Gold");
    await expectNoCardCovered(page);
    await screenshot(page, "flow-studio-run");

    // The JSON of the same inputs stays one click away (the card's click selected the condition).
    await inspector.getByRole("tab", { name: "Test run" }).click();
    await inspector.getByLabel("Advanced: edit as JSON").check();
    expect(JSON.parse(await inspector.getByLabel("Flow inputs as JSON").inputValue())).toEqual({ tier: "gold" });

    // The long form is a drawer: the flow's settings, tests, publishing and versions.
    await page.getByRole("button", { name: "Settings" }).click();
    const drawer = page.getByRole("dialog", { name: "Flow settings" });
    await expect(drawer.getByRole("button", { name: "Publish flow" })).toBeVisible();
    await screenshot(page, "flow-studio-settings");
    await drawer.getByRole("button", { name: "Close flow settings" }).click();
    await expect(drawer).toBeHidden();
  });
});

test.describe("every step's settings, at a desk", () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test("each node type is edited in the inspector: an approval's message and time to decide; the kind is a choice", async ({
    page,
  }) => {
    const demo = await signedInDemo(page);
    const key = demo.orgKey.secret;
    const { flow } = await api(page.request, key, "POST", "/flows", {
      name: "Refunds",
      inputs: [{ key: "amount", label: "Amount", type: "number" }],
      nodes: [{ id: "start", type: "trigger_start", data: {} }],
    });
    await page.goto(`/flows/${flow.id}/studio`);
    const library = page.getByRole("navigation", { name: "Node library" });
    const inspector = page.getByRole("complementary", { name: "Inspector" });

    await library.getByRole("button", { name: "Add Approval" }).click();
    await expect(flowCard(page, 1)).toContainText("Approval");
    await inspector.getByRole("textbox", { name: "Message for the approvers" }).fill("Refund ");
    await inspector.getByRole("button", { name: "Insert a variable" }).click();
    await inspector.getByRole("menuitem", { name: "{{Amount}}" }).click();
    const minutes = inspector.getByLabel("Time to decide (minutes)");
    await expect(minutes).toHaveAttribute("max", "10080");
    await minutes.fill("90");
    await expect(inspector.getByTestId("approval-rules")).toContainText("rejected, or not decided in time");
    await expect(page.getByTestId("save-state")).toHaveText("Saved");
    await screenshot(page, "flow-studio-approval");
    expect((await draftNodes(page, key, flow.id))[1]!.data).toMatchObject({
      message: "Refund {{inputs.amount}}",
      timeoutMinutes: 90,
    });
    // Emptied, the time is left to the default (24 hours) rather than written as nothing.
    await minutes.fill("");
    await expect(page.getByTestId("save-state")).toHaveText("Saved");
    await expect.poll(async () => "timeoutMinutes" in (await draftNodes(page, key, flow.id))[1]!.data).toBe(false);

    // Every other type opens with its own fields.
    const expected: [string, string][] = [
      ["LLM", "Prompt template"],
      ["Knowledge search", "Query template"],
      ["Template", "Template"],
      ["Set variable", "Variable name"],
      ["Loop", "Items at once (1–5)"],
      ["HTTP request", "URL template"],
      ["Code", "JavaScript (the body of a function of input)"],
      ["Output", "Final value template"],
    ];
    for (const [type, field] of expected) {
      await library.getByRole("button", { name: `Add ${type}` }).click();
      await expect(inspector.locator(".node-badge")).toHaveText(type);
      await expect(inspector.getByLabel(field, { exact: true })).toBeVisible();
    }
    await library.getByRole("button", { name: "Add LLM" }).click();
    const model = inspector.getByLabel("Model", { exact: true });
    await expect(model).toHaveValue("");
    await expect(model.locator("option").first()).toHaveText("The built-in model (default)");
    await library.getByRole("button", { name: "Add Set variable" }).click();
    await expect(inspector.getByLabel(/Or a JSON Logic expression/)).toBeVisible();
    await library.getByRole("button", { name: "Add Condition" }).click();
    await expect(inspector.getByTestId("condition-fields")).toBeVisible();

    // The flow's kind is picked from the kinds the schema knows, not typed.
    await page.getByRole("button", { name: "Settings" }).click();
    const drawer = page.getByRole("dialog", { name: "Flow settings" });
    const kind = drawer.getByRole("combobox", { name: "Kind" });
    await expect(kind).toHaveValue("form");
    await expect(kind.locator("option")).toHaveText(["Form"]);
    await expect(drawer.getByTestId("last-change")).toBeVisible();
    await screenshot(page, "flow-studio-kind");
  });
});

for (const viewport of VIEWPORTS) {
  test.describe(`a version compared with the draft, ${viewport.name}`, () => {
    test.use({ viewport });

    test("the steps added and changed since the version are marked, and those removed named", async ({ page }) => {
      const demo = await signedInDemo(page);
      const key = demo.orgKey.secret;
      const start = { id: "start", type: "trigger_start", data: {} };
      const out = { id: "out", type: "output", data: { value: "{{nodes.greet.output}}" } };
      const { flow } = await api(page.request, key, "POST", "/flows", {
        name: "Greeter",
        nodes: [
          start,
          { id: "greet", type: "template", data: { template: "Hi" } },
          { id: "bye", type: "template", data: { template: "Bye" } },
          out,
        ],
      });
      await api(page.request, key, "POST", `/flows/${flow.id}/publish`, {});
      await api(page.request, key, "PATCH", `/flows/${flow.id}/draft`, {
        nodes: [
          start,
          { id: "greet", type: "template", data: { template: "Hello" } },
          { id: "more", type: "template", data: { template: "More" } },
          out,
        ],
      });
      // On the canvas at a desk, in the list of steps on a phone.
      const step = (index: number) =>
        viewport.name === "desktop" ? flowCard(page, index) : page.getByTestId("flow-step").nth(index);
      await page.goto(`/flows/${flow.id}/studio`);
      // The draft is shown: its second step now leads to the added one.
      await expect(step(1)).toContainText(viewport.name === "desktop" ? "Hello" : "then More");
      await page.getByRole("button", { name: "Settings" }).click();
      const drawer = page.getByRole("dialog", { name: "Flow settings" });
      await drawer.getByRole("button", { name: "Compare with draft" }).click();
      await expect(drawer.getByTestId("version-changes")).toBeVisible();
      await drawer.getByRole("button", { name: "Close flow settings" }).click();

      const note = page.getByTestId("compare-on-canvas");
      await expect(note).toContainText("Since version 1: 1 added, 1 changed");
      await expect(note).toContainText("removed: Bye");
      await expect(step(1).getByTestId("node-change")).toHaveText("Changed");
      await expect(step(2).getByTestId("node-change")).toHaveText("Added");
      await expect(page.getByTestId("node-change")).toHaveCount(2);
      await screenshot(page, `flow-studio-compare-${viewport.name}`);
      await note.getByRole("button", { name: "Stop comparing" }).click();
      await expect(page.getByTestId("node-change")).toHaveCount(0);
    });
  });
}

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the steps are a readable list: a step is opened and edited, added, moved and deleted", async ({ page }) => {
    const demo = await signedInDemo(page);
    const key = demo.orgKey.secret;
    const { flow } = await api(page.request, key, "POST", "/flows", {
      name: "Greeter",
      inputs: [{ key: "name", label: "Name" }],
      nodes: [
        { id: "start", type: "trigger_start", data: {} },
        { id: "greet", type: "template", data: { title: "Greeting", template: "Hi" } },
        { id: "out", type: "output", data: { value: "{{nodes.greet.output}}" } },
      ],
    });
    await page.goto(`/flows/${flow.id}/studio`);
    const steps = page.getByTestId("flow-step");
    await expect(steps).toHaveCount(3);
    await expect(page.getByTestId("flow-canvas")).toHaveCount(0);
    await expect(steps.nth(1)).toContainText("then Out");

    await page.getByRole("button", { name: "Open Greeting" }).click();
    const sheet = page.getByRole("dialog", { name: "Step settings" });
    await sheet.getByRole("textbox", { name: "Template", exact: true }).fill("Hello {{inputs.name}}");
    await sheet.getByRole("button", { name: "Close step settings" }).click();
    await expect(page.getByTestId("save-state")).toHaveText("Saved");
    expect((await draftNodes(page, key, flow.id))[1]!.data.template).toBe("Hello {{inputs.name}}");

    await page.getByRole("button", { name: "Add a step" }).click();
    await page.getByRole("dialog", { name: "Add a step" }).getByRole("button", { name: "Add Template" }).click();
    await expect(sheet).toBeVisible();
    await sheet.getByRole("textbox", { name: "Template", exact: true }).fill("Bye");
    await sheet.getByRole("button", { name: "Close step settings" }).click();
    await expect(steps).toHaveCount(4);
    await page.getByRole("button", { name: "Move Template up" }).click();
    await expect(steps.nth(2)).toContainText("Template");
    await expect(page.getByTestId("save-state")).toHaveText("Saved");
    expect((await draftNodes(page, key, flow.id)).map((node) => node.id)).toEqual([
      "start",
      "greet",
      "template",
      "out",
    ]);
    await screenshot(page, "flow-studio-steps");
    await page.getByRole("button", { name: "Delete Template" }).click();
    await expect(steps).toHaveCount(3);
    await expect(page.getByTestId("save-state")).toHaveText("Saved");
    expect((await draftNodes(page, key, flow.id)).map((node) => node.id)).toEqual(["start", "greet", "out"]);
    const studio = page.getByTestId("flow-studio");
    expect(await studio.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);

    // A test run from its sheet; the list says how each step ran, a step's sheet shows its output.
    await page.getByRole("button", { name: "Test run" }).click();
    const run = page.getByRole("dialog", { name: "Test run" });
    await run.getByRole("textbox", { name: "Name" }).fill("Ada");
    await run.getByRole("button", { name: "Run the flow" }).click();
    await expect(run.getByTestId("test-run-answer")).toContainText("Hello Ada");
    await run.getByRole("button", { name: "Close test run" }).click();
    await expect(steps.nth(1)).toContainText("Ran");
    await expect(steps.nth(1)).toContainText("Hello Ada");
    await screenshot(page, "flow-studio-steps-ran");
    await page.getByRole("button", { name: "Open Greeting" }).click();
    const stepRun = sheet.getByRole("region", { name: "Last test run" });
    await expect(stepRun.getByLabel("Output")).toHaveText("Hello Ada");
    await screenshot(page, "flow-studio-step-run");
  });
});
