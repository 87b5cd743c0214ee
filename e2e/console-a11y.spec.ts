// Every console page at a desk (1440×900) and on a phone (390×844): no serious or critical
// axe-core findings, and the page never scrolls sideways. Screenshots land in .screens/.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { admin, screenshot, seriousA11yViolations, signedInDemo } from "./fixtures";

// Its tests are independent and each is long: the two workers share them instead of one worker
// taking the whole file.
test.describe.configure({ mode: "parallel" });

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];

async function post(request: APIRequestContext, key: string, path: string, data: unknown) {
  const response = await request.post(`/api/v1${path}`, { headers: { Authorization: `Bearer ${key}` }, data });
  if (!response.ok()) throw new Error(`POST ${path}: ${response.status()} ${await response.text()}`);
  return response.json();
}

/** One of everything a console page shows, so detail pages have something to render. */
async function seedEverything(request: APIRequestContext, organizationId: string, key: string) {
  await admin("plan", "create", "--org", organizationId, "--name", "Gold", "--credits", "500");
  const { knowledgebase } = await post(request, key, "/knowledgebases", { name: "Handbook" });
  await post(request, key, `/knowledgebases/${knowledgebase.id}/pages`, {
    title: "Refund policy",
    markdown: "Refunds are paid within 14 days.",
  });
  const { source } = await post(request, key, `/knowledgebases/${knowledgebase.id}/sources`, {
    name: "Shipping guide",
    contentMarkdown: "# Shipping\n\nParcels arrive in 3 days.",
  });
  const { agent } = await post(request, key, "/agents", {
    name: "Billing agent",
    knowledge: [{ knowledgebaseId: knowledgebase.id }],
  });
  await post(request, key, `/agents/${agent.id}/publish`, {});
  const { flow } = await post(request, key, "/flows", { name: "Triage" });
  const { app } = await post(request, key, "/apps", {
    name: "Helpdesk",
    members: [{ id: agent.id, kind: "agent" }],
    orchestrationMode: "supervisor",
  });
  await post(request, key, `/apps/${app.id}/publish`, {});
  const { endUser } = await post(request, key, "/end-users", { email: "grace@example.com", fullName: "Grace Hopper" });
  const { userGroup } = await post(request, key, "/user-groups", { name: "Support staff" });
  const { portal } = await post(request, key, "/portals", { name: "Support portal" });
  // With agent writes reviewed, a key's page edit waits in the review queue.
  await admin("org", "update", "--org", organizationId, "--review-agent-writes", "true");
  const proposed = await post(request, key, `/knowledgebases/${knowledgebase.id}/pages`, {
    title: "Shipping",
    markdown: "Shipping takes 3 days.",
  });
  return {
    knowledgebase,
    source,
    agent,
    flow,
    app,
    endUser,
    userGroup,
    portal,
    reviewPath: proposed.reviewPath as string,
  };
}

async function check(page: Page, path: string, name: string): Promise<string[]> {
  await page.goto(path);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await page.waitForLoadState("networkidle");
  const problems = (await seriousA11yViolations(page)).map((line) => `${path}: ${line}`);
  const overflow = await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);
  if (overflow > 0) problems.push(`${path}: scrolls sideways by ${overflow}px`);
  const title = await page.title();
  if (!/ · Atrium$/.test(title)) problems.push(`${path}: title "${title}" does not name the page`);
  const current = await page.locator('nav[aria-label="Console"] a[aria-current="page"]').allTextContents();
  if (current.length > 1)
    problems.push(`${path}: ${current.length} navigation links claim to be the current page (${current.join(", ")})`);
  await screenshot(page, `a11y-${name}`);
  return problems;
}

for (const viewport of VIEWPORTS) {
  test(`every console page at ${viewport.width}×${viewport.height}: no serious axe findings, no sideways scrolling, its own title, one current link`, async ({
    page,
  }) => {
    test.setTimeout(300_000);
    await page.setViewportSize(viewport);
    await page.goto("/sign-in");
    const signInProblems = await check(page, "/sign-in", "sign-in");

    const { orgKey, organization } = await signedInDemo(page);
    const seeded = await seedEverything(page.request, organization.id, orgKey.secret);
    const pages: [string, string][] = [
      ["/", "home"],
      ["/end-users", "end-users"],
      [`/end-users/${seeded.endUser.id}`, "end-user"],
      ["/plans", "plans"],
      ["/groups", "groups"],
      [`/groups/${seeded.userGroup.id}`, "group"],
      ["/portals", "portals"],
      [`/portals/${seeded.portal.id}`, "portal"],
      ["/outbox", "outbox"],
      ["/knowledge", "knowledge"],
      [`/knowledge/${seeded.knowledgebase.id}`, "knowledgebase"],
      [`/knowledge/${seeded.knowledgebase.id}/sources/${seeded.source.id}`, "source"],
      ["/reviews", "reviews"],
      [seeded.reviewPath, "review"],
      ["/agents", "agents"],
      [`/agents/${seeded.agent.id}`, "agent"],
      ["/flows", "flows"],
      [`/flows/${seeded.flow.id}/studio`, "flow"],
      ["/apps", "apps"],
      [`/apps/${seeded.app.id}`, "app"],
      ["/chat", "chat"],
      [`/chat/${seeded.app.id}`, "chat-app"],
      ["/executions", "executions"],
      ["/keys", "keys"],
      ["/mcp", "mcp"],
      ["/members", "members"],
      ["/directory", "directory"],
      ["/settings", "settings"],
      ["/settings/providers", "providers"],
      ["/settings/integrations", "integrations"],
      ["/account", "account"],
    ];
    const problems = [...signInProblems];
    for (const [path, name] of pages) problems.push(...(await check(page, path, name)));
    expect(problems).toEqual([]);
  });
}

test("on a phone the navigation folds behind the Menu button and opens to every area", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signedInDemo(page);
  await page.goto("/");
  const navigation = page.getByRole("navigation", { name: "Console" });
  await expect(navigation).toBeHidden();
  await page.getByRole("button", { name: "Menu" }).click();
  await navigation.getByRole("link", { name: "End users" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("End users");
  await expect(page).toHaveTitle("End users · Atrium");
  await expect(navigation).toBeHidden();
});

test("the skip link moves keyboard focus past the navigation to the page", async ({ page }) => {
  await signedInDemo(page);
  await page.goto("/keys");
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.locator("main")).toBeFocused();
});

test("a detail page names its tab while it loads, and when what it shows is not there", async ({ page }) => {
  await signedInDemo(page);
  // The end user's read is held until the loading state has been looked at.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/api\/trpc\/[^?]*endUsers\.get/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto("/end-users/00000000-0000-4000-8000-000000000000");
  await expect(page.getByRole("status").filter({ hasText: "Loading…" })).toBeVisible();
  await expect(page).toHaveTitle("End user · Atrium");
  release();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("End user");
  await expect(page.getByRole("main").getByRole("alert")).toContainText("No end user with that id.");
  await expect(page).toHaveTitle("End user · Atrium");
  await page.getByRole("main").getByRole("link", { name: "End users" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("End users");
});
