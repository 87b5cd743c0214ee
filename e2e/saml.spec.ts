// SAML single sign-on in Chromium, against a real identity provider (samlify, tests/fake-saml.ts)
// started by the test: a member signs in to the console through it from the sign-in page's button,
// at a desk and on a phone, and finds it named on the Security page.
import { expect, test } from "@playwright/test";
import { startFakeSamlIdp, type FakeSamlIdp } from "../tests/fake-saml";
import { admin, seedDemo, VIEWPORTS } from "./fixtures";

// The admin CLI checks the provider's URL under the server's address rules (it listens on 127.0.0.1).
process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";

let idp: FakeSamlIdp;

test.beforeAll(async () => {
  idp = await startFakeSamlIdp();
});
test.afterAll(async () => idp?.close());

for (const viewport of VIEWPORTS) {
  test(`a member signs in to the console through the organization's SAML provider (${viewport.name})`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    const domain = `fabrikam-${viewport.name}-${Math.random().toString(36).slice(2, 8)}.example`;
    const demo = await seedDemo();
    const org = demo.organization.id;
    // By its settings, not its metadata URL: the provider runs in this process, which the CLI's
    // synchronous run would keep from answering.
    const certificateFile = "tests/fixtures/saml/idp-cert.pem";
    await admin(
      ...["sso", "set-saml", "--org", org, "--entity-id", idp.entityId, "--sso-url", idp.ssoUrl],
      ...["--certificate-file", certificateFile, "--domains", domain, "--name", "Fabrikam"],
    );
    await admin("member", "add", "--org", org, "--email", `bob@${domain}`, "--role", "owner");

    await page.goto("/sign-in");
    await page.getByLabel("Email").fill(`bob@${domain}`);
    await page.getByRole("button", { name: "Continue with single sign-on" }).click();
    await expect(page.getByRole("heading", { name: "Sign in to the fake IdP" })).toBeVisible();
    await page.getByLabel("Email").fill(`bob@${domain}`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/$/);
    await expect(page.getByRole("heading", { level: 1 })).not.toHaveText(/Sign in/);
    // On a phone the console's navigation is behind its menu button.
    if (viewport.name === "desktop") await expect(page.getByRole("navigation", { name: "Console" })).toBeVisible();
    // Bob, an owner, finds the connection on the Security page with its protocol.
    await page.goto("/security");
    await expect(page.getByTestId("sso-connection")).toHaveText(`Fabrikam (SAML 2.0) · ${domain}`);
  });
}
