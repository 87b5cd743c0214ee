// The owner's week with end users: import 200 of them from CSV (a dry run first, nothing written
// until applied), find one in the list by plan, give her bonus credits and see them in her
// ledger; she is told in the portal, where her plan shows its price and what it includes.
import { expect, test, type Page } from "@playwright/test";
import { api, latestSignInCode, screenshot, seedDemo, seriousA11yViolations, signIn, VIEWPORTS } from "./fixtures";

const ALICE = "alice@import.example";

async function expectAccessible(page: Page) {
  await expect(page).not.toHaveTitle("");
  expect(await seriousA11yViolations(page)).toEqual([]);
}

test("import 200 end users with a dry run, give a bonus, and the end user is told", async ({ page }) => {
  test.setTimeout(240_000);
  const demo = await seedDemo();
  const key = demo.orgKey.secret;
  const { tierPlan } = await api(page.request, key, "POST", "/tier-plans", {
    name: "Pro",
    creditAllowance: 50,
    description: "For people who chat every day.",
    priceAmount: 2900,
    priceCurrency: "USD",
    priceInterval: "month",
    features: ["50 credits a month", "Every support app"],
  });
  await api(page.request, key, "POST", "/user-groups", { name: "Beta testers" });
  const slug = `imported-${Date.now()}`;
  await api(page.request, key, "POST", "/portals", { name: "Help Center", slug });
  const rows = [
    `${ALICE},Alice Martin,Pro,Beta testers`,
    ...Array.from({ length: 199 }, (_, i) => `person${i}@import.example,Person ${i},Pro,`),
  ];
  const csv = ["email,name,plan,groups", ...rows].join("\n");

  await signIn(page, demo.login);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/end-users");
  await page.getByRole("button", { name: "Import CSV" }).click();
  await page
    .getByLabel("CSV file")
    .setInputFiles({ name: "people.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Dry run" }).click();
  await expect(page.getByTestId("import-summary")).toHaveText(
    "Dry run, nothing written: 200 to create, 0 to update, 0 unchanged, 0 refused.",
  );
  // Nothing written yet.
  expect((await api(page.request, key, "GET", "/end-users?limit=1")).endUsers).toEqual([]);
  await expectAccessible(page);
  await screenshot(page, "end-users-import-dry-run");

  await page.getByRole("button", { name: "Apply 200 changes" }).click();
  await expect(page.getByTestId("import-summary")).toHaveText(
    "Applied: 200 created, 0 updated, 0 unchanged, 0 refused.",
  );
  await page.getByRole("button", { name: "Close", exact: true }).click();

  // The list at a glance, filtered by plan (the filter lives in the URL).
  await page.getByRole("combobox", { name: /^Plan( |$)/ }).selectOption({ label: "Pro" });
  await expect(page).toHaveURL(new RegExp(`plan=${tierPlan.id}`));
  await page.getByLabel("Search by email").fill("alice@");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const row = page.getByTestId("end-user-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Pro");
  await expect(row).toContainText("50");
  await expect(row).toContainText("Beta testers");
  await expect(row).toContainText("Never");

  // Alice's page: a bonus, then her ledger shows it.
  await row.getByRole("link", { name: ALICE }).click();
  await page.getByRole("spinbutton", { name: "Bonus credits" }).fill("25");
  await page.getByLabel("Reason (optional)").fill("Thanks for testing the beta");
  await page.getByRole("button", { name: "Give bonus credits" }).click();
  const latest = page.getByTestId("ledger-entry").first();
  await expect(latest).toContainText("+25");
  await expect(latest).toContainText("Thanks for testing the beta");

  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    // One import is one transaction: its end users share a creation time, so she is found by email.
    await page.goto("/end-users?query=alice");
    await expect(page.getByTestId("end-user-row").first()).toBeVisible();
    await page.getByRole("checkbox", { name: `Select ${ALICE}` }).check();
    await expect(page.getByRole("group", { name: "Bulk actions" })).toContainText("1 end user selected");
    await expectAccessible(page);
    await screenshot(page, "end-users-list");
    await page.goto("/plans");
    await expect(page.getByTestId("plan-row")).toContainText("$29.00 a month");
    await screenshot(page, "plans");
  }

  // Alice signs in to the portal: told of her bonus, with her plan's price and what it includes.
  // Her portal session lives beside the owner's console session in this browser.
  const portalPage = page;
  for (const viewport of VIEWPORTS) {
    await portalPage.setViewportSize(viewport);
    if (viewport.name === "desktop") {
      await portalPage.goto(`/p/${slug}`);
      await portalPage.getByLabel("Email").fill(ALICE);
      await portalPage.getByRole("button", { name: "Send me a code" }).click();
      await portalPage.getByLabel("6-digit code").fill(await latestSignInCode(demo.organization.id, ALICE));
      await portalPage.getByRole("button", { name: "Sign in", exact: true }).click();
      await expect(portalPage).toHaveURL(new RegExp(`/p/${slug}$`));
    } else {
      await portalPage.reload();
    }
    const notice = portalPage.getByTestId("bonus-notice");
    await expect(notice).toContainText(`${demo.organization.name} gave you 25 bonus credits on your Pro plan.`);
    await expect(notice).toContainText("Thanks for testing the beta");
    await expect(portalPage.getByTestId("plan-price")).toHaveText(/\$29\.00 a month/);
    await expect(portalPage.getByTestId("credits-left")).toHaveText("75 credits left");
    await expectAccessible(portalPage);
    await screenshot(portalPage, "portal-bonus");
  }
  await portalPage.getByRole("button", { name: "Got it" }).click();
  await expect(portalPage.getByTestId("bonus-notice")).toHaveCount(0);
  await portalPage.reload();
  await expect(portalPage.getByTestId("credits-left")).toBeVisible();
  await expect(portalPage.getByTestId("bonus-notice")).toHaveCount(0);
});
