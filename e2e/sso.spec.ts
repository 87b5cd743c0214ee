// Single sign-on in Chromium, against a real OpenID provider (oidc-provider, with its development
// login and consent screens) started by the test: an end user signs in to a portal through it, a
// member signs in to the console through it, and an unknown address gets a readable refusal.
import { expect, test } from "@playwright/test";
import { E2E_PORT } from "../playwright.config";
import type { FakeOidc } from "../tests/fake-oidc";
import { admin, api, seedDemo } from "./fixtures";
import { connectSso, startOidcProvider } from "./sso-fixtures";

const suffix = Math.random().toString(36).slice(2, 8);
const domain = `contoso-${suffix}.example`;
let provider: FakeOidc;

test.beforeAll(async () => {
  provider = await startOidcProvider({
    ann: { email: `ann@${domain}`, email_verified: true },
    bob: { email: `bob@${domain}`, email_verified: true },
    stranger: { email: `stranger@${domain}`, email_verified: true },
  });
});
test.afterAll(async () => provider?.close());

async function signInAtProvider(page: import("@playwright/test").Page, login: string) {
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
}

test("end users sign in to a portal and members to the console with the organization's provider", async ({
  page,
  request,
}) => {
  const demo = await seedDemo();
  const org = demo.organization.id;
  await connectSso(org, provider, domain);
  const { portal } = await admin("portal", "create", "--org", org, "--name", `Help ${suffix}`);
  await admin("portal", "update", "--portal", portal.id, "--sign-in", "both");
  await api(request, demo.orgKey.secret, "POST", "/end-users", { email: `ann@${domain}`, fullName: "Ann Lee" });
  await admin("member", "add", "--org", org, "--email", `bob@${domain}`, "--role", "admin");

  await page.goto(`/p/${portal.slug}/sign-in`);
  await page.getByRole("link", { name: "Continue with Contoso" }).click();
  await signInAtProvider(page, "ann");
  await expect(page).toHaveURL(new RegExp(`/p/${portal.slug}$`));
  await expect(page.getByRole("heading", { level: 1 })).not.toHaveText(/Sign in/);

  await page.context().clearCookies();
  await page.goto(`/p/${portal.slug}/sign-in`);
  await page.getByRole("link", { name: "Continue with Contoso" }).click();
  await signInAtProvider(page, "stranger");
  await expect(page).toHaveURL(/\/sign-in\?sso_error=/);
  await expect(page.getByTestId("sso-error")).toHaveText(/cannot sign in here/);

  // A new browser session, at the provider too (it would otherwise remember "stranger").
  await page.context().clearCookies();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(`bob@${domain}`);
  await page.getByRole("button", { name: "Continue with single sign-on" }).click();
  await signInAtProvider(page, "bob");
  await expect(page).toHaveURL(new RegExp(`127.0.0.1:${E2E_PORT}/$`));
  await expect(page.getByRole("navigation", { name: "Console" })).toBeVisible();
});
