// The light and the dark theme (the system's prefers-color-scheme) on the portal an end user sees
// and the console pages around them, at a desk (1440×900) and on a phone (390×844): no serious or
// critical axe-core findings (contrast included) and no sideways scrolling in either theme.
// Screenshots of every state land in .screens/theme-<state>-<scheme>-<width>.png.
import { expect, test, type Page } from "@playwright/test";
import { api, latestSignInCode, provisionPortalUser, screenshot, seriousA11yViolations, signIn } from "./fixtures";

// Its tests are independent and each is long: the two workers share them instead of one worker
// taking the whole file.
test.describe.configure({ mode: "parallel" });

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];
const SCHEMES = ["light", "dark"] as const;

/** A portal with a teal accent, an app answering from a page, and an end user with two credits. */
async function provision(page: Page, width: number) {
  const slug = `themes-${width}`;
  const email = `theme.${width}@customer.example`;
  const { demo, endUserId } = await provisionPortalUser(page, {
    slug,
    email,
    // The end user signs in through the form, in both themes.
    signedIn: false,
    prepare: async ({ orgKey }) => {
      // First, so that every event below is delivered to it: a closed local port, so its deliveries fail.
      await api(page.request, orgKey.secret, "POST", "/webhook-endpoints", {
        url: "http://127.0.0.1:9/atrium",
        eventTypes: ["*"],
        description: "Billing system",
      });
      const { knowledgebase } = await api(page.request, orgKey.secret, "POST", "/knowledgebases", {
        name: "Handbook",
      });
      await api(page.request, orgKey.secret, "POST", `/knowledgebases/${knowledgebase.id}/pages`, {
        title: "Refund policy",
        markdown: "Refunds are paid within 14 days of the request. Shipping costs are not refunded.",
      });
      return { knowledge: [{ knowledgebaseId: knowledgebase.id }] };
    },
    agent: { name: "Support agent", conversationStarters: ["How long do refunds take?"] },
    app: {
      name: "Support",
      description: "Answers questions about orders and refunds.",
      orchestrationMode: "supervisor",
    },
    plan: { name: "Starter", credits: 2 },
    portal: { accentColor: "#0b7285" },
  });
  return { demo, slug, email, endUserId };
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
