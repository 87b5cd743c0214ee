import { expect, test } from "@playwright/test";
import { admin, api, seedDemo, signIn } from "./fixtures";

test("provision an end user with a plan and a group found by name in the console, see the subscription, revoke the user", async ({
  page,
}) => {
  const { login, organization, orgKey } = await seedDemo();
  await admin("plan", "create", "--org", organization.id, "--name", "Gold", "--credits", "500");
  for (const name of ["Night shift", "Front-desk staff"])
    await api(page.request, orgKey.secret, "POST", "/user-groups", { name });
  await signIn(page, login);

  await page.goto("/");
  await page.getByRole("navigation").getByRole("link", { name: "End users" }).click();
  await page.getByLabel("Email", { exact: true }).fill("grace@example.com");
  // The name field stops where the server's limit is, instead of a refusal after the click.
  await page.getByLabel("Full name").pressSequentially("x".repeat(205), { delay: 0 });
  await expect(page.getByLabel("Full name")).toHaveValue("x".repeat(200));
  await page.getByLabel("Full name").fill("Grace Hopper");
  await page.getByLabel(/Gold/).check();
  // Groups are searched on the server by name, not listed in full.
  const groupSearch = page.waitForRequest(
    (request) => request.url().includes("userGroups.list") && decodeURIComponent(request.url()).includes('"q":"front"'),
  );
  await page.getByLabel("Add to a group").fill("front");
  await groupSearch;
  await expect(page.getByRole("list", { name: "Add to a group: matches" }).getByRole("button")).toHaveText([
    "Front-desk staff 0 members",
  ]);
  await page.getByRole("button", { name: /Front-desk staff/ }).click();
  await expect(page.getByTestId("chosen-group")).toContainText("Front-desk staff");
  await page.getByRole("button", { name: "Provision" }).click();
  await expect(page.getByRole("status")).toContainText("Created grace@example.com");

  await page.getByRole("search").getByLabel("Search by email").fill("grace@");
  await page.getByRole("search").getByRole("button", { name: "Search" }).click();
  await page.getByTestId("end-user-row").getByRole("link", { name: "grace@example.com" }).click();

  await expect(page.getByRole("heading", { level: 1 })).toHaveText("grace@example.com");
  const subscription = page.getByTestId("subscription-row");
  await expect(subscription).toContainText("Gold");
  await expect(subscription).toContainText("Active");
  await expect(subscription).toContainText("Console");
  await expect(subscription).toContainText("0 / 500");
  await expect(page.getByTestId("revoked-at")).toHaveText("No");
  await expect(page.getByTestId("effective-access").getByRole("link", { name: "Front-desk staff" })).toBeVisible();

  await page.getByRole("button", { name: "Revoke access" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke access" }).click();
  await expect(page.getByTestId("revoked-at")).toHaveText(/^Today, \d{1,2}:\d{2}/);

  await page.getByRole("main").getByRole("link", { name: "End users" }).click();
  await expect(page.getByTestId("end-user-row").filter({ hasText: "grace@example.com" })).toContainText("Revoked");
});
