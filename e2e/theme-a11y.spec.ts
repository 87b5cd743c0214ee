// The light and the dark theme (the system's prefers-color-scheme) on the portal an end user sees
// and the console pages around them, at a desk (1440×900) and on a phone (390×844): no serious or
// critical axe-core findings (contrast included) and no sideways scrolling in either theme.
// Screenshots of every state land in .screens/theme-<state>-<scheme>-<width>.png.
import { expect, test, type Page } from "@playwright/test";
import { admin, api, latestSignInCode, screenshot, seedDemo, seriousA11yViolations, signIn } from "./fixtures";

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];
const SCHEMES = ["light", "dark"] as const;

/** A portal with a teal accent, an app answering from a page, and an end user with two credits. */
async function provision(page: Page, width: number) {
  const demo = seedDemo();
  const key = demo.orgKey.secret;
  // First, so that every event below is delivered to it: a closed local port, so its deliveries fail.
  await api(page.request, key, "POST", "/webhook-endpoints", {
    url: "http://127.0.0.1:9/atrium",
    eventTypes: ["*"],
    description: "Billing system",
  });
  const { knowledgebase } = await api(page.request, key, "POST", "/knowledgebases", { name: "Handbook" });
  await api(page.request, key, "POST", `/knowledgebases/${knowledgebase.id}/pages`, {
    title: "Refund policy",
    markdown: "Refunds are paid within 14 days of the request. Shipping costs are not refunded.",
  });
  const { agent } = await api(page.request, key, "POST", "/agents", {
    name: "Support agent",
    knowledge: [{ knowledgebaseId: knowledgebase.id }],
    conversationStarters: ["How long do refunds take?"],
  });
  await api(page.request, key, "POST", `/agents/${agent.id}/publish`, {});
  const { app } = await api(page.request, key, "POST", "/apps", {
    name: "Support",
    description: "Answers questions about orders and refunds.",
    members: [{ id: agent.id, kind: "agent" }],
    orchestrationMode: "supervisor",
  });
  await api(page.request, key, "POST", `/apps/${app.id}/publish`, {});
  const plan = admin<{ tierPlan: { id: string } }>(
    "plan",
    "create",
    "--org",
    demo.organization.id,
    "--name",
    "Starter",
    "--credits",
    "2",
  );
  const slug = `themes-${width}`;
  const { portal } = await api(page.request, key, "POST", "/portals", {
    name: "Help Center",
    slug,
    accentColor: "#0b7285",
  });
  const email = `theme.${width}@customer.example`;
  const { endUser } = await api(page.request, key, "POST", "/end-users", {
    email,
    fullName: "Alice Martin",
    tierPlanIds: [plan.tierPlan.id],
    grants: [{ targetKind: "app", targetId: app.id, deploymentId: portal.id, effect: "allow" }],
  });
  return { demo, slug, email, endUserId: endUser.id as string };
}

/** The page as it is now in each theme: axe's serious findings, sideways scrolling, a screenshot. */
async function checkThemes(page: Page, name: string): Promise<string[]> {
  const problems: string[] = [];
  // A client navigation (the chat's URL naming its conversation) swaps the title in: wait for the page to settle.
  await expect(page).toHaveTitle(/\S/);
  for (const colorScheme of SCHEMES) {
    await page.emulateMedia({ colorScheme });
    problems.push(...(await seriousA11yViolations(page)).map((line) => `${name} (${colorScheme}): ${line}`));
    const overflow = await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);
    if (overflow > 0) problems.push(`${name} (${colorScheme}): scrolls sideways by ${overflow}px`);
    await screenshot(page, `theme-${name}-${colorScheme}`);
  }
  return problems;
}

for (const viewport of VIEWPORTS) {
  test(`portal and console in the light and dark themes at ${viewport.width}×${viewport.height}: no serious axe findings`, async ({
    page,
  }) => {
    test.setTimeout(300_000);
    await page.setViewportSize(viewport);
    const { demo, slug, email, endUserId } = await provision(page, viewport.width);
    const problems: string[] = [];

    await page.goto(`/p/${slug}/sign-in`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Sign in to Help Center");
    problems.push(...(await checkThemes(page, "portal-sign-in")));
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Send me a code" }).click();
    await page.getByLabel("6-digit code").fill(await latestSignInCode(demo.organization.id, email));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();

    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Hello, Alice Martin");
    await expect(page.getByTestId("credits-left")).toHaveText("2 credits left");
    problems.push(...(await checkThemes(page, "portal-home")));

    // An answer with its sources, then the cited passage in its panel.
    await page.getByRole("button", { name: "How long do refunds take?" }).click();
    await expect(page.getByTestId("message-assistant").last()).toContainText("14 days");
    await expect(page.getByRole("list", { name: "Sources" })).toBeVisible();
    // The new conversation's id goes in the URL after the reply; the page's title is swapped with it.
    await expect(page).toHaveURL(/\?c=/);
    problems.push(...(await checkThemes(page, "portal-chat")));
    await page.getByRole("list", { name: "Sources" }).getByRole("button").first().click();
    await expect(page.getByTestId("citation-panel")).toBeVisible();
    problems.push(...(await checkThemes(page, "portal-citation")));
    await page.getByRole("button", { name: "Close the source" }).click();

    // The last credit spent: the composer says why and when they come back.
    const message = page.getByRole("textbox", { name: "Message" });
    await message.fill("Are shipping costs refunded?");
    await message.press("Enter");
    await expect(page.getByTestId("out-of-credits")).toBeVisible();
    problems.push(...(await checkThemes(page, "portal-out-of-credits")));

    await signIn(page, demo.login);
    const consolePages: [string, string][] = [
      ["/", "console-home"],
      [`/end-users/${endUserId}`, "console-end-user"],
      ["/audit-log", "console-audit-log"],
      ["/webhooks", "console-webhooks"],
    ];
    for (const [path, name] of consolePages) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await page.waitForLoadState("networkidle");
      problems.push(...(await checkThemes(page, name)));
    }
    await page.getByRole("button", { name: "Deliveries" }).click();
    await expect(page.getByRole("heading", { name: "Deliveries", level: 3 })).toBeVisible();
    await page.waitForLoadState("networkidle");
    problems.push(...(await checkThemes(page, "console-webhook-deliveries")));
    expect(problems).toEqual([]);
  });
}
