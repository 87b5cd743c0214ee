import { expect, test } from "@playwright/test";
import { admin, seedDemo, signIn } from "./fixtures";

test("provision an end user with a plan in the console, see the subscription, revoke the user", async ({ page }) => {
  const { login, organization } = seedDemo();
  admin("plan", "create", "--org", organization.id, "--name", "Gold", "--credits", "500");
  await signIn(page, login);

  await page.goto("/");
  await page.getByRole("navigation").getByRole("link", { name: "End users" }).click();
  await page.getByLabel("Email", { exact: true }).fill("grace@example.com");
  await page.getByLabel("Full name").fill("Grace Hopper");
  await page.getByLabel(/Gold/).check();
  await page.getByRole("button", { name: "Provision" }).click();
  await expect(page.getByRole("status")).toContainText("Created grace@example.com");

  await page.getByRole("search").getByLabel("Search by email").fill("grace@");
  await page.getByRole("search").getByRole("button", { name: "Search" }).click();
  await page.getByTestId("end-user-row").getByRole("link", { name: "grace@example.com" }).click();

  await expect(page.getByRole("heading", { level: 1 })).toHaveText("grace@example.com");
  const subscription = page.getByTestId("subscription-row");
  await expect(subscription).toContainText("Gold");
  await expect(subscription).toContainText("active");
  await expect(subscription).toContainText("0 / 500");
  await expect(page.getByTestId("revoked-at")).toHaveText("no");

  await page.getByRole("button", { name: "Revoke access" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke access" }).click();
  await expect(page.getByTestId("revoked-at")).not.toHaveText("no");
  await expect(page.getByTestId("revoked-at")).toHaveText(/\d/);

  await page.getByRole("main").getByRole("link", { name: "End users" }).click();
  await expect(page.getByTestId("end-user-row").filter({ hasText: "grace@example.com" })).toContainText("Revoked");
});
