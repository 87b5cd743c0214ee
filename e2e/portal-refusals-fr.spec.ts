// The portal's refusals in French: a browser asking for French reads every refusal the server
// sends in French, worded by its code (src/components/portal/portal-errors.ts), never the
// server's English: a file the server refuses by its content, then a turn refused because the organization's credits ran out. File
// sizes are written the French way.
import { expect, test, type Page } from "@playwright/test";
import { admin, provisionPortalUser, screenshot, seriousA11yViolations } from "./fixtures";

test.use({ locale: "fr-FR" });

/** An app answering with the built-in model, a portal, and an end user with credits, signed in. */
async function provision(page: Page, slug: string, email: string) {
  const { appId, demo } = await provisionPortalUser(page, {
    slug,
    email,
    agent: { name: "Helper", description: "Questions about products" },
    app: { name: "Aide" },
    plan: { name: "Essai", credits: 20 },
    portal: { name: "Centre d'aide" },
  });
  return { appId, organizationId: demo.organization.id };
}

test("a French browser reads the server's refusals in French, sizes too", async ({ page }) => {
  test.setTimeout(120_000);
  const slug = `refus-${Date.now()}`;
  const { appId, organizationId } = await provision(page, slug, `alice.refus.${Date.now()}@client.example`);
  await page.goto(`/p/${slug}/apps/${appId}`);
  await expect(page.locator("html")).toHaveAttribute("lang", "fr");

  // Named like a PDF, so the browser lets it go; the server reads its content and refuses it.
  await page.getByTestId("attachment-picker").setInputFiles({
    name: "notes.pdf",
    mimeType: "application/pdf",
    // Neither a PDF's signature nor readable text.
    buffer: Buffer.from(Array.from({ length: 2000 }, (_, i) => (i * 37 + 128) % 256)),
  });
  const chip = page.getByTestId("attachment-chip");
  await expect(chip).toContainText("notes.pdf");
  await expect(chip).toContainText(/\d,\d\s?ko|\d+\s?ko/);
  const refusal = chip.getByRole("alert");
  await expect(refusal).toHaveText(/^notes\.pdf ne peut pas être joint\u00a0: joignez un fichier PDF/);
  await expect(refusal).not.toContainText("attach");
  expect(await seriousA11yViolations(page)).toEqual([]);
  await screenshot(page, "portal-fr-refused-file");
  await chip.getByRole("button", { name: "Retirer notes.pdf" }).click();

  // Alice still has credits, the organization has none left: the server refuses the turn.
  await admin("org", "update", "--org", organizationId, "--credits", "0");
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill("Quels sont vos horaires ?");
  await box.press("Enter");
  const main = page.getByRole("main");
  await expect(main.getByText("Il n'y a plus de crédits pour le moment.").first()).toBeVisible();
  await expect(main).not.toContainText(/organization|credits/);
  expect(await seriousA11yViolations(page)).toEqual([]);
  await screenshot(page, "portal-fr-out-of-credits");
});
