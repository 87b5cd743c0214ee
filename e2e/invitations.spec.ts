// Invitations as people live them, at a desk (1440×900) and on a phone (390×844): the owner
// invites by email, reads the mail in the outbox, the invitee opens the link in a browser of
// their own, chooses a password and lands in the console; the same link is refused a second
// time, and a revoked invitation's link is refused too. Axe checks every new page.
import { expect, test, type Browser, type Page } from "@playwright/test";
import { ROLE_SUMMARIES } from "../src/schemas/permissions";
import { screenshot, seriousA11yViolations, signedInDemo } from "./fixtures";

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];

async function expectAxeClean(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle");
  expect(await seriousA11yViolations(page)).toEqual([]);
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
}

async function invite(page: Page, email: string, role: keyof typeof ROLE_SUMMARIES): Promise<void> {
  await page.goto("/members");
  const form = page.locator("form", { has: page.getByRole("heading", { name: "Invite a member" }) });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Role").selectOption(role);
  // The picker says in one line what the chosen role may do.
  await expect(form.getByText(ROLE_SUMMARIES[role], { exact: true })).toBeVisible();
  await form.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByTestId("invitation-row").filter({ hasText: email })).toBeVisible();
}

/** The invitation link in the newest outbox mail to `email`, read in the console's Outbox page. */
async function linkFromOutbox(page: Page, email: string, name: string): Promise<string> {
  await page.goto("/outbox");
  const message = page.getByTestId("outbox-message").filter({ hasText: email }).first();
  await message.locator("summary").click();
  const text = await message.locator("pre").innerText();
  if (name) await screenshot(page, name);
  const link = text.split("\n").find((line) => line.includes("/invite/"));
  expect(link).toBeTruthy();
  return link!.trim();
}

async function freshPage(browser: Browser, viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport, baseURL: test.info().project.use.baseURL });
  return context.newPage();
}

for (const viewport of VIEWPORTS) {
  test.describe(`invitations at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test("an invitee opens the mailed link, sets a password and lands in the console; the link works once", async ({
      page,
      browser,
    }) => {
      const demo = await signedInDemo(page);
      const email = `invitee-${viewport.width}-${Date.now()}@example.test`;
      await invite(page, email, "admin");
      // Axe reads the page itself, not the toast still fading in over it.
      await page.reload();
      await expect(page.getByTestId("invitation-row").filter({ hasText: email })).toBeVisible();
      await expectAxeClean(page);
      await screenshot(page, "invitations-members");
      const link = await linkFromOutbox(page, email, "invitations-outbox");
      expect(link.startsWith("http://127.0.0.1:")).toBe(true);

      const invitee = await freshPage(browser, viewport);
      await invitee.goto(link);
      await expect(invitee.getByRole("heading", { level: 1, name: `Join ${demo.organization.name}` })).toBeVisible();
      await expect(invitee.getByLabel("Email")).toHaveValue(email);
      await expectAxeClean(invitee);
      await screenshot(invitee, "invitations-accept");
      await invitee.getByLabel("Choose a password").fill("a-long-enough-passphrase");
      await invitee.getByLabel("Repeat the password").fill("a-long-enough-passphrase");
      await invitee.getByRole("button", { name: "Set password and join" }).click();
      await expect(invitee).toHaveURL(/\/$/);
      await expect(invitee.getByRole("heading", { level: 1 })).toBeVisible();
      const me = await (await invitee.request.get("/api/trpc/auth.me")).json();
      expect(me.result.data.member).toMatchObject({ email, role: "admin" });
      await invitee.context().close();

      // The same link, a second time, in another fresh browser.
      const again = await freshPage(browser, viewport);
      await again.goto(link);
      await expect(again.getByRole("heading", { level: 1, name: "This link can no longer be used" })).toBeVisible();
      await expect(again.getByText("already used")).toBeVisible();
      await expectAxeClean(again);
      await screenshot(again, "invitations-used");
      await again.context().close();

      // The owner's list no longer shows it; the new admin is a member.
      await page.goto("/members");
      await expect(page.getByTestId("member-row").filter({ hasText: email })).toBeVisible();
      await expect(page.getByTestId("invitation-row").filter({ hasText: email })).toHaveCount(0);
    });

    test("a revoked invitation's link is refused", async ({ page, browser }) => {
      await signedInDemo(page);
      const email = `revoked-${viewport.width}-${Date.now()}@example.test`;
      await invite(page, email, "viewer");
      const link = await linkFromOutbox(page, email, "");
      await page.goto("/members");
      await page
        .getByTestId("invitation-row")
        .filter({ hasText: email })
        .getByRole("button", { name: "Revoke" })
        .click();
      await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
      await expect(page.getByTestId("invitation-row").filter({ hasText: email })).toHaveCount(0);

      const invitee = await freshPage(browser, viewport);
      await invitee.goto(link);
      await expect(invitee.getByRole("heading", { level: 1, name: "This link can no longer be used" })).toBeVisible();
      await expect(invitee.getByText("withdrawn")).toBeVisible();
      await expectAxeClean(invitee);
      await screenshot(invitee, "invitations-revoked");
      await invitee.context().close();
    });
  });
}
