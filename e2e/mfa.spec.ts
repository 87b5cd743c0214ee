// Two-step verification as members live it, at a desk (1440×900) and on a phone (390×844): a
// member turns on an authenticator app from their account page and signs in with its code; an
// owner requires a second factor on the Security page and a member without one is walked through
// setting it up at sign-in. Codes come from otplib, as from the member's phone.
import { expect, test, type Browser, type Page } from "@playwright/test";
import { generate } from "otplib";
import { addMember, screenshot, seedDemo, seriousA11yViolations, signIn, VIEWPORTS } from "./fixtures";

async function expectAxeClean(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle");
  expect(await seriousA11yViolations(page)).toEqual([]);
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
}

/** The code of the step after now: the step of the enrollment's code is used up. */
function nextCode(secret: string): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });
}

async function freshPage(browser: Browser, viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport, baseURL: test.info().project.use.baseURL });
  return context.newPage();
}

async function passwordStep(page: Page, login: { email: string; password: string }): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(login.email);
  await page.getByLabel("Password").fill(login.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Scans (reads) the QR code's key, types the current code and checks the ten recovery codes. */
async function setUpAuthenticator(page: Page, shot: string): Promise<string> {
  await expect(page.getByRole("img", { name: /QR code/ })).toBeVisible();
  await expectAxeClean(page);
  await screenshot(page, `${shot}-qr`);
  const secret = (await page.getByTestId("totp-secret").innerText()).trim();
  await page.getByLabel("2. Enter the six-digit code it shows").fill(await generate({ secret }));
  await page.getByRole("button", { name: "Turn on" }).click();
  await expect(page.getByTestId("recovery-codes").getByRole("listitem")).toHaveCount(10);
  await expectAxeClean(page);
  await screenshot(page, `${shot}-recovery-codes`);
  return secret;
}

for (const viewport of VIEWPORTS) {
  test.describe(`two-step verification at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });
    // Four axe passes a test, each a few seconds on a busy machine.
    test.slow();

    test("a member turns on an authenticator app and signs in with its code", async ({ page, browser }) => {
      const demo = await seedDemo();
      const login = {
        email: `totp-${viewport.width}-${Date.now()}@example.test`,
        password: "a-long-enough-passphrase",
      };
      await addMember(demo.organization.id, login, "member");
      await signIn(page, login);

      await page.goto("/account");
      await expect(page.getByTestId("mfa-state")).toContainText("Off");
      await page.getByRole("button", { name: "Set up an authenticator app" }).click();
      const secret = await setUpAuthenticator(page, "mfa-account");
      await page.getByRole("button", { name: "Done" }).click();
      await expect(page.getByTestId("mfa-state")).toContainText("10 of 10 recovery codes left");

      const later = await freshPage(browser, viewport);
      await passwordStep(later, login);
      await expect(later.getByRole("heading", { level: 1, name: "Two-step verification" })).toBeVisible();
      await expectAxeClean(later);
      await screenshot(later, "mfa-sign-in-code");
      await later.getByLabel("Code from your authenticator app").fill("000000");
      await later.getByRole("button", { name: "Verify and sign in" }).click();
      await expect(later.getByRole("form", { name: "Second factor" }).getByRole("alert")).toContainText("not right");
      await later.getByLabel("Code from your authenticator app").fill(await nextCode(secret));
      await later.getByRole("button", { name: "Verify and sign in" }).click();
      await expect(later).toHaveURL(/\/$/);
      const me = await (await later.request.get("/api/trpc/auth.me")).json();
      expect(me.result.data.member.email).toBe(login.email);
      await later.context().close();
    });

    test("an owner requires a second factor and a member without one sets it up at sign-in", async ({
      page,
      browser,
    }) => {
      const demo = await seedDemo();
      await signIn(page, demo.login);
      const login = {
        email: `walked-${viewport.width}-${Date.now()}@example.test`,
        password: "a-long-enough-passphrase",
      };
      await addMember(demo.organization.id, login, "member");

      await page.goto("/security");
      await expect(page.getByTestId("require-mfa-state")).toContainText("Optional");
      await page.getByRole("button", { name: "Require two-step verification" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Require" }).click();
      await expect(page.getByTestId("require-mfa-state")).toContainText("Required");
      await page.reload();
      await expect(page.getByTestId("mfa-member-row").filter({ hasText: login.email })).toContainText(
        "set up at next sign-in",
      );

      const member = await freshPage(browser, viewport);
      await passwordStep(member, login);
      await expect(member.getByRole("heading", { level: 1, name: "Set up two-step verification" })).toBeVisible();
      await screenshot(member, "mfa-required-start");
      await member.getByRole("button", { name: "Set up an authenticator app" }).click();
      await setUpAuthenticator(member, "mfa-required");
      await member.getByRole("button", { name: "Continue" }).click();
      await expect(member).toHaveURL(/\/$/);
      await member.context().close();

      await page.reload();
      await expect(page.getByTestId("mfa-member-row").filter({ hasText: login.email })).toContainText(
        "On · 10 recovery codes left",
      );
      await expect(page.getByRole("region", { name: "Latest sign-ins, newest first" })).toContainText(
        "Password + authenticator",
      );
      await screenshot(page, "security");
      await expectAxeClean(page);
    });
  });
}
