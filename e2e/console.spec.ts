import { expect, test } from "@playwright/test";
import { addMember, seedDemo, signedInDemo, signIn } from "./fixtures";

test("a wrong password shows an error and does not sign in", async ({ page }) => {
  const { login } = await seedDemo();
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.getByLabel("Email").fill(login.email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password." })).toBeVisible();
  await page.goto("/keys");
  await expect(page).toHaveURL(/\/sign-in$/);
});

test("sign in, create an organization key, see its secret once, revoke it, sign out", async ({ page }) => {
  const { login, organization } = await seedDemo();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(login.email);
  await page.getByLabel("Password").fill(login.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(organization.name);

  await page.getByRole("navigation").getByRole("link", { name: "API keys" }).click();
  await page.getByLabel("Name").fill("CRM sync");
  await page.getByLabel(/^Organization/).check();
  await page.getByRole("button", { name: "Create key" }).click();

  const secret = page.getByTestId("new-key-secret");
  await expect(secret).toHaveText(/^sk_org_[A-Za-z0-9_-]{40,}$/);
  const value = (await secret.textContent())!;
  const row = page.getByTestId("key-row").filter({ hasText: "CRM sync" });
  await expect(row).toContainText(value.slice(0, 12));
  await expect(row).toContainText("Active");

  const works = await page.request.get("/api/v1/models", { headers: { Authorization: `Bearer ${value}` } });
  expect(works.status()).toBe(200);

  await page.getByRole("button", { name: "Done" }).click();
  await expect(secret).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId("key-row").filter({ hasText: "CRM sync" })).toBeVisible();
  expect(await page.content()).not.toContain(value);

  await row.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
  await expect(row).toContainText("Revoked");
  const refused = await page.request.get("/api/v1/models", { headers: { Authorization: `Bearer ${value}` } });
  expect(refused.status()).toBe(401);
  expect((await refused.json()).error.code).toBe("api_key_revoked");

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto("/keys");
  await expect(page).toHaveURL(/\/sign-in$/);
});

test("an admin invites a member, changes settings, and the API follows the switch", async ({ page }) => {
  const { orgKey } = await signedInDemo(page);

  await page.goto("/members");
  await page.getByLabel("Email").fill("new.person@example.com");
  await page.getByRole("combobox", { name: "Role", exact: true }).selectOption("viewer");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText("Invitation sent to new.person@example.com.")).toBeVisible();
  await expect(page.getByTestId("invitation-row").filter({ hasText: "new.person@example.com" })).toBeVisible();

  await page.goto("/settings");
  // The operator's limits read as facts beside the form; the switches are grouped by what they open.
  const limits = page.getByRole("region", { name: "Plan and limits" });
  await expect(limits.getByRole("definition").nth(1)).toHaveText(/^[\d,]+$/);
  await expect(page.getByRole("group", { name: "Ways in" }).getByRole("checkbox")).toHaveCount(3);
  await page.getByLabel(/Developer API/).uncheck();
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Settings saved.")).toBeVisible();
  const refused = await page.request.get("/api/v1/models", { headers: { Authorization: `Bearer ${orgKey.secret}` } });
  expect((await refused.json()).error.code).toBe("api_disabled");
});

// The API reference's page (/docs), rendered from the OpenAPI document with no sign-in: e2e/docs-a11y.spec.ts.
test("the OpenAPI document is served with no sign-in", async ({ request }) => {
  const document = await request.get("/api/v1/openapi.json");
  expect(document.status()).toBe(200);
  expect((await document.json()).paths["/end-users"]).toBeTruthy();
});

test("on a phone the members list is a card per member: a long email keeps one or two lines, its role and actions below", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const { login, organization } = await seedDemo();
  const email = "maximilian.von.longname-hausen@northwind-customer-success.example";
  await addMember(organization.id, { email, password: "a-long-passphrase" }, "member");
  await signIn(page, login);
  await page.goto("/members");
  const card = page.getByTestId("member-row").filter({ hasText: email });
  const emailCell = card.getByRole("cell").first();
  const lineHeight = await emailCell.evaluate((cell) => parseFloat(getComputedStyle(cell).lineHeight) || 24);
  const box = await emailCell.boundingBox();
  // The header's label above the email is one more line.
  expect(box!.height).toBeLessThanOrEqual(lineHeight * 3.5);
  await expect(card.getByRole("combobox", { name: `Role of ${email}` })).toBeVisible();
  const remove = await card.getByRole("button", { name: "Remove" }).boundingBox();
  expect(remove!.x + remove!.width).toBeLessThanOrEqual(390);
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  expect(await card.evaluate((row) => row.getBoundingClientRect().right)).toBeLessThanOrEqual(390);
});

test("empty lists say what to do next, and an editor opened from a dead link says so and leads back", async ({
  page,
}) => {
  await signedInDemo(page);
  for (const [path, text] of [
    ["/groups", "No groups yet: create one above"],
    ["/portals", "No portals yet: create one above"],
    ["/plans", "No plans yet: create one above"],
    ["/agents", "No agents yet: name the first one above"],
    ["/executions", "No runs yet: each conversation turn"],
    ["/webhooks", "No endpoints yet: add one above"],
    ["/end-users", "No end users yet: provision the first one above"],
  ] as const) {
    await page.goto(path);
    await expect(page.getByText(text)).toBeVisible();
  }
  // No pager with nowhere to go.
  await expect(page.getByRole("button", { name: "Next" })).toHaveCount(0);
  await page.goto("/executions");
  await page.getByRole("link", { name: "Try an app in Chat" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Chat");

  await page.goto("/agents/00000000-0000-4000-8000-000000000000");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Agent not opened");
  await expect(page.getByRole("main").getByRole("alert")).toContainText("No agent with that id");
  await page.getByRole("link", { name: "Find it among all agents" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Agents");
});
