// Issue 31's outcome at a desk (1440×900) and on a phone (390×844): the bell lists a new review
// and an end user's request for more credits, the request opens from it and is granted, the review
// is approved from the Notifications page, and both are gone; Ctrl+K (or the search button on a
// phone) and "ali" lead to alice's page. Axe on the open bell, the page and the open palette.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { admin, api, latestSignInCode, screenshot, seedDemo, seriousA11yViolations, signIn } from "./fixtures";

const VIEWPORTS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
];

/** A published app of one agent, for the portal alice signs in to. */
async function publishApp(request: APIRequestContext, key: string): Promise<string> {
  const { agent } = await api(request, key, "POST", "/agents", { name: "Support agent" });
  await api(request, key, "POST", `/agents/${agent.id}/publish`, {});
  const { app } = await api(request, key, "POST", "/apps", {
    name: "Support",
    members: [{ id: agent.id, kind: "agent" }],
    orchestrationMode: "supervisor",
  });
  await api(request, key, "POST", `/apps/${app.id}/publish`, {});
  return app.id as string;
}

async function expectAccessible(page: Page) {
  await expect(page).not.toHaveTitle("");
  expect(await seriousA11yViolations(page)).toEqual([]);
}

for (const viewport of VIEWPORTS) {
  test(`the bell, the Notifications page and the palette on a ${viewport.name}`, async ({ page }) => {
    test.setTimeout(180_000);
    await page.setViewportSize(viewport);
    const demo = await seedDemo();
    const key = demo.orgKey.secret;
    const slug = `notify-${viewport.name}`;
    const alice = `alice.${viewport.name}@customer.example`;
    const appId = await publishApp(page.request, key);
    const plan = await admin<{ tierPlan: { id: string } }>(
      "plan",
      "create",
      "--org",
      demo.organization.id,
      "--name",
      "Starter",
      "--credits",
      "3",
    );
    const { portal } = await api(page.request, key, "POST", "/portals", { name: "Help Center", slug });
    const { endUser } = await api(page.request, key, "POST", "/end-users", {
      email: alice,
      fullName: "Alice Martin",
      tierPlanIds: [plan.tierPlan.id],
      grants: [{ targetKind: "app", targetId: appId, deploymentId: portal.id, effect: "allow" }],
    });
    // A page proposed by an agent while its writes are reviewed: a review waits.
    await admin("org", "update", "--org", demo.organization.id, "--review-agent-writes", "true");
    const { knowledgebase } = await api(page.request, key, "POST", "/knowledgebases", { name: "Handbook" });
    await api(page.request, key, "POST", `/knowledgebases/${knowledgebase.id}/pages`, {
      title: "Returns policy",
      markdown: "Returns within 30 days.",
    });
    // Alice asks for more credits from the portal's own door.
    expect(
      (await page.request.post("/api/portal/trpc/auth.requestCode", { data: { portal: slug, email: alice } })).ok(),
    ).toBe(true);
    const code = await latestSignInCode(demo.organization.id, alice);
    expect(
      (
        await page.request.post("/api/portal/trpc/auth.verifyCode", { data: { portal: slug, email: alice, code } })
      ).ok(),
    ).toBe(true);
    expect(
      (
        await page.request.post("/api/portal/trpc/credits.request", { data: { portal: slug, message: "Exam week" } })
      ).ok(),
    ).toBe(true);

    await signIn(page, demo.login);
    await page.goto("/");
    const bell = page.getByRole("button", { name: /^Notifications/ });
    await expect(bell).toHaveAccessibleName("Notifications, 2 unread");
    await bell.click();
    const panel = page.getByRole("region", { name: "Latest notifications" });
    await expect(panel.getByTestId("notification")).toHaveCount(2);
    await expect(panel).toContainText("Returns policy");
    await expect(panel).toContainText("Alice Martin");
    await expectAccessible(page);
    await screenshot(page, "notifications-bell");

    // The request opens from the bell, on alice's page, where the credits are given.
    await panel.getByRole("link", { name: /Asks for more credits/ }).click();
    await expect(page).toHaveURL(new RegExp(`/end-users/${endUser.id}$`));
    await page.getByLabel("Bonus credits").fill("5");
    await page.getByRole("button", { name: "Give bonus credits" }).click();
    await expect(page.getByText(/5 bonus credits added/)).toBeVisible();

    // The review, from the Notifications page: opening it marked it read.
    await page.goto("/notifications");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Notifications");
    const items = page.getByRole("main").getByTestId("notification");
    await expect(items).toHaveCount(1);
    await expectAccessible(page);
    await screenshot(page, "notifications-page");
    await items.getByRole("link", { name: /Review waiting/ }).click();
    await expect(page).toHaveURL(/\/reviews\/[0-9a-f-]+$/);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
    await expect(page.getByText(/^Approved:/)).toBeVisible();

    await page.goto("/notifications");
    await expect(page.getByRole("main").getByText("Nothing waits for you.")).toBeVisible();
    await expect(bell).toHaveAccessibleName("Notifications");

    // The kinds emailed are chosen on the account page: credit requests are on for an owner.
    await page.goto("/account");
    const emails = page.getByRole("region", { name: "Notification emails" });
    await expect(emails.getByRole("checkbox", { name: "Credit requests" })).toBeChecked();
    await expectAccessible(page);
    await screenshot(page, "notifications-account");
    // The box follows the saved choice: it turns on once the server has it.
    const reviews = emails.getByRole("checkbox", { name: "Pending reviews" });
    await reviews.click();
    await expect(page.getByText("Email choices saved.")).toBeVisible();
    await expect(reviews).toBeChecked();
    // Axe reads a toast mid-animation as low contrast: the palette is checked once it has gone.
    await expect(page.getByText("Email choices saved.")).toBeHidden({ timeout: 15_000 });

    // The palette: Ctrl+K at a desk, the search button on a phone.
    if (viewport.name === "desktop") await page.keyboard.press("Control+k");
    else await page.getByRole("button", { name: /^Search/ }).click();
    const palette = page.getByRole("dialog", { name: "Search and go to" });
    await expect(palette).toBeVisible();
    const box = palette.getByRole("combobox");
    await expect(box).toBeFocused();
    await box.fill("ali");
    const option = palette.getByRole("option", { name: /Alice Martin/ });
    await expect(option).toBeVisible();
    await expect(option).toHaveAttribute("aria-selected", "true");
    await expectAccessible(page);
    await screenshot(page, "palette-open");
    await box.press("Enter");
    await expect(page).toHaveURL(new RegExp(`/end-users/${endUser.id}$`));
    await expect(page.getByRole("heading", { level: 1 })).toContainText(alice);

    // Go-to shortcuts work by keyboard alone.
    await page.keyboard.press("Control+k");
    await box.fill("execu");
    await box.press("Enter");
    await expect(page).toHaveURL(/\/executions$/);

    // On a slow connection the bar and the skeleton show while the next page is on its way.
    // Next.js prefetches the links in view on a desktop, which would make the navigation instant:
    // every page fetch is slowed (prefetches too) and the page reloaded, so the click has to wait.
    await page.route(/_rsc=/, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await route.continue();
    });
    await page.reload();
    // A click before React has hydrated the link would be a plain page load, which shows no bar.
    await page.waitForFunction(() => {
      const link = document.querySelector("nav a[href='/agents']");
      return link !== null && Object.keys(link).some((key) => key.startsWith("__reactProps"));
    });
    const menu = page.getByRole("button", { name: "Menu" });
    if (await menu.isVisible()) await menu.click();
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Agents" }).click();
    await expect(page.locator(".nav-progress")).toHaveClass(/busy/, { timeout: 1000 });
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Agents", { timeout: 15_000 });
    await expect(page.locator(".nav-progress")).not.toHaveClass(/busy/);
  });
}
