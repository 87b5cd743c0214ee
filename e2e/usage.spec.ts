// The owner's Monday (issue 30), at a desk and on a phone: the home page shows last week's credits
// and turns by day against the week before, what the organization holds, the top apps, the end users closest to their limits, failures linking to the
// failing runs and refused turns linking to the refused list; an app's and a portal's page show
// their own usage, an idle app says how to get some. Axe checks every page with charts.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { admin, api, screenshot, seedDemo, seriousA11yViolations, signIn } from "./fixtures";

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];
const ALICE = "alice@customer.example";

/** A published app whose transaction answers from a flow; `outputSchema` decides whether the reply fits. */
async function quotesApp(request: APIRequestContext, key: string, name: string, outputSchema: Record<string, unknown>) {
  const { flow } = await api(request, key, "POST", "/flows", {
    name: `${name} flow`,
    inputs: [{ key: "item", label: "Item", type: "text", required: true }],
    nodes: [
      { id: "start", type: "trigger_start", data: {} },
      { id: "out", type: "output", data: { value: '{"item": "{{inputs.item}}"}' } },
    ],
  });
  await api(request, key, "POST", `/flows/${flow.id}/publish`, {});
  const { app } = await api(request, key, "POST", "/apps", {
    name,
    members: [{ id: flow.id, kind: "flow" }],
    orchestrationMode: "sequential",
    api: {
      transactionEnabled: true,
      inputSchema: { type: "object", properties: { item: { type: "string" } } },
      outputSchema,
    },
  });
  await api(request, key, "POST", `/apps/${app.id}/publish`, {});
  return app.id as string;
}

/**
 * A week's work, made now: two turns of Helpdesk by the organization, a transaction that fits and
 * one whose reply does not (a failure), and alice (1 credit) in the Help Center: one turn, then one
 * refused for lack of credits. Idle is published and never run.
 */
async function busyWeek(request: APIRequestContext) {
  const demo = await seedDemo();
  const key = demo.orgKey.secret;
  const { agent } = await api(request, key, "POST", "/agents", { name: "Helpdesk agent" });
  await api(request, key, "POST", `/agents/${agent.id}/publish`, {});
  const { app } = await api(request, key, "POST", "/apps", {
    name: "Helpdesk",
    members: [{ id: agent.id, kind: "agent" }],
    orchestrationMode: "supervisor",
  });
  await api(request, key, "POST", `/apps/${app.id}/publish`, {});
  const { app: idle } = await api(request, key, "POST", "/apps", {
    name: "Idle",
    members: [{ id: agent.id, kind: "agent" }],
    orchestrationMode: "supervisor",
  });
  const quotesId = await quotesApp(request, key, "Quotes", { type: "object", required: ["item"] });
  const strictId = await quotesApp(request, key, "Strict quotes", { type: "object", required: ["total"] });
  const plan = await admin<{ tierPlan: { id: string } }>(
    "plan",
    "create",
    "--org",
    demo.organization.id,
    "--name",
    "Starter",
    "--credits",
    "1",
  );
  const { portal } = await api(request, key, "POST", "/portals", { name: "Help Center" });
  const { endUser } = await api(request, key, "POST", "/end-users", {
    email: ALICE,
    fullName: "Alice Martin",
    tierPlanIds: [plan.tierPlan.id],
    grants: [{ targetKind: "app", targetId: app.id, deploymentId: portal.id }],
  });

  const first = await api(request, key, "POST", `/apps/${app.id}/conversation`, {
    message: "How long do refunds take?",
  });
  await api(request, key, "POST", `/apps/${app.id}/conversation`, {
    message: "And shipping?",
    conversation_id: first.conversation_id,
  });
  await api(request, key, "POST", `/apps/${quotesId}/transaction`, { input: { item: "widget" } });
  const invalid = await request.post(`/api/v1/apps/${strictId}/transaction`, {
    headers: { Authorization: `Bearer ${key}` },
    data: { input: { item: "widget" } },
  });
  expect(invalid.status()).toBe(502);
  const forAlice = { endUserId: endUser.id, portalId: portal.id };
  await api(request, key, "POST", `/apps/${app.id}/conversation`, { message: "Hello", ...forAlice });
  const refused = await request.post(`/api/v1/apps/${app.id}/conversation`, {
    headers: { Authorization: `Bearer ${key}` },
    data: { message: "Again", ...forAlice },
  });
  expect(refused.status()).toBe(402);
  return { demo, appId: app.id as string, idleId: idle.id as string, portalId: portal.id as string };
}

async function expectAccessible(page: Page) {
  await expect(page).not.toHaveTitle("");
  expect(await seriousA11yViolations(page)).toEqual([]);
}

/** The chart has loaded (recharts comes after the page) and drawn its bars. */
async function expectChart(page: Page) {
  await expect(page.getByTestId("usage-chart").locator("svg.recharts-surface").first()).toBeVisible();
}

for (const viewport of VIEWPORTS) {
  test(`the owner's Monday at ${viewport.width}×${viewport.height}: usage on the home, app and portal pages, linked to the runs`, async ({
    page,
  }) => {
    test.setTimeout(300_000);
    await page.setViewportSize(viewport);
    const { demo, appId, idleId, portalId } = await busyWeek(page.request);
    await signIn(page, demo.login);

    // Home: last week by day, its numbers those of GET /usage.
    await page.goto("/");
    const usage = page.getByRole("region", { name: "Usage", exact: true });
    await expect(usage.getByRole("combobox", { name: "Range" })).toHaveValue("7");
    await expectChart(page);
    // The credits chart, beside the tokens by model.
    const creditsChart = usage.getByTestId("usage-chart").filter({ hasText: "Credits and turns by day (UTC)" });
    await expect(creditsChart).toContainText("turns 3");
    await expect(usage.getByTestId("usage-chart").filter({ hasText: "Tokens by day (UTC)" })).toBeVisible();
    // Each total beside the week before, when nothing ran.
    await expect(usage.getByRole("link", { name: /Turns/ })).toContainText("3 more than the 7 days before");
    await expect(page.getByTestId("credits-left")).toHaveText(/^[\d,]+ credits left$/);
    await expect(page.getByTestId("credits-left")).toHaveAttribute("href", "/settings");
    const holdings = page.getByRole("region", { name: "In this organization" });
    await expect(holdings.getByRole("link", { name: "4 apps" })).toHaveAttribute("href", "/apps");
    await expect(holdings.getByRole("link", { name: "1 end user" })).toHaveAttribute("href", "/end-users");
    await expect(usage.getByTestId("usage-failures")).toContainText("1");
    await expect(usage.getByTestId("usage-refused")).toContainText("1");
    const topApps = usage.getByRole("region", { name: "Top apps" });
    await expect(topApps.getByRole("link", { name: "Helpdesk" })).toBeVisible();
    await expect(topApps.getByRole("link", { name: "Strict quotes" })).toBeVisible();
    await expect(
      usage
        .getByRole("region", { name: "End users closest to their limits" })
        .getByRole("link", { name: "Alice Martin" }),
    ).toBeVisible();
    await expect(usage.getByRole("progressbar", { name: `${ALICE}: credits used` })).toHaveAttribute("value", "1");
    await expectAccessible(page);
    await screenshot(page, "usage-home");

    // Failures lead to the failing run.
    await usage.getByTestId("usage-failures").click();
    await expect(page).toHaveURL(/\/executions\?status=failures$/);
    await expect(page.getByTestId("execution-row")).toHaveCount(1);
    await expect(page.getByTestId("execution-row")).toContainText("Output invalid");
    await expect(page.getByTestId("execution-item")).toContainText("Strict quotes");
    await expectAccessible(page);
    await screenshot(page, "usage-failures");

    // Refused turns lead to the refused list: alice, out of credits, nothing charged, no trace.
    await page.goBack();
    await page.getByRole("region", { name: "Usage", exact: true }).getByTestId("usage-refused").click();
    await expect(page).toHaveURL(/\/executions\?status=refused$/);
    const refusal = page.getByTestId("refusal-row");
    await expect(refusal).toHaveCount(1);
    await expect(refusal).toContainText("insufficient_credits");
    await expect(refusal.getByTestId("refusal-end-user")).toHaveText(ALICE);
    await expect(refusal).toContainText("in Help Center");
    await expect(refusal).toContainText("plan Starter");
    await expect(refusal.getByRole("link", { name: "Helpdesk" })).toBeVisible();
    await expect(refusal.getByRole("button", { name: "Trace" })).toHaveCount(0);
    await page.getByRole("combobox", { name: "Why" }).selectOption("insufficient_credits");
    await expect(page).toHaveURL(/status=refused&code=insufficient_credits/);
    await expect(page.getByTestId("refusal-row")).toHaveCount(1);
    await expectAccessible(page);
    await screenshot(page, "usage-refused");

    // Helpdesk's own page: its three turns and its refusal, linked to its refused runs.
    await page.goto(`/apps/${appId}`);
    const appUsage = page.getByRole("region", { name: "Usage", exact: true });
    await expectChart(page);
    await expect(appUsage).toContainText("3 turns");
    await expect(appUsage.getByTestId("usage-chart")).toContainText("This app's credits and turns by day (UTC)");
    await expectAccessible(page);
    await screenshot(page, "usage-app");
    await appUsage.getByTestId("scoped-usage-refused").click();
    await expect(page).toHaveURL(new RegExp(`/executions\\?item=${appId}&itemKind=app&status=refused$`));
    await expect(page.getByTestId("refusal-row")).toHaveCount(1);

    // An app that never ran says how to get usage.
    await page.goto(`/apps/${idleId}`);
    await expect(page.getByRole("region", { name: "Usage", exact: true }).getByTestId("usage-empty")).toContainText(
      "Nothing ran in this range",
    );
    await expectAccessible(page);
    await screenshot(page, "usage-app-empty");

    // The Help Center's page: alice's turn and her refusal only; a wider range keeps them.
    await page.goto(`/portals/${portalId}`);
    const portalUsage = page.getByRole("region", { name: "Usage", exact: true });
    await expectChart(page);
    await expect(portalUsage).toContainText("1 turn,");
    await expect(portalUsage.getByTestId("scoped-usage-refused")).toHaveText("1 refused");
    await portalUsage.getByRole("combobox", { name: "Range" }).selectOption("90");
    await expect(page).toHaveURL(/from=\d{4}-\d{2}-\d{2}&to=\d{4}-\d{2}-\d{2}/);
    await expect(portalUsage).toContainText("1 turn,");
    await expectAccessible(page);
    await screenshot(page, "usage-portal");
  });
}
