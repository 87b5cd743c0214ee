// Issue 46 in the browser, at desktop and phone size: an end user attaches a PDF in the portal
// with the paperclip, sees it as a chip (name, size) while it uploads, asks about it, and gets an
// answer that quotes the PDF and cites it; the citation opens the attached file's passage, and
// the sent question shows the file it carried. Axe checks each state.
import { expect, test, type Page } from "@playwright/test";
import { pdfWithContent } from "../tests/pdf-fixtures";
import { provisionPortalUser, screenshot, seriousA11yViolations, VIEWPORTS } from "./fixtures";

const PHRASE = "The Falcon drill carries a warranty of seven years from the date of purchase.";

/** A Help app answering with the built-in model, a portal, and an end user granted the app there. */
async function provision(page: Page, slug: string, email: string) {
  return provisionPortalUser(page, {
    slug,
    email,
    agent: { name: "Product helper", description: "Questions about products and their manuals" },
    app: {
      name: "Product help",
      orchestrationMode: "supervisor",
      api: { greeting: "Attach a manual and ask me about it." },
    },
  });
}

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("an end user attaches a PDF and gets an answer that cites it", async ({ page }) => {
      test.setTimeout(120_000);
      const slug = `attach-${viewport.name}`;
      const { appId } = await provision(page, slug, `alice.attach.${viewport.name}@customer.example`);
      await page.goto(`/p/${slug}/apps/${appId}`);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Product help");

      // The paperclip opens the file picker; the PDF becomes a chip with its name and size.
      const chooser = page.waitForEvent("filechooser");
      await page.getByRole("button", { name: "Attach files" }).click();
      await (
        await chooser
      ).setFiles({
        name: "drill-manual.pdf",
        mimeType: "application/pdf",
        buffer: Buffer.from(pdfWithContent(`BT /F1 12 Tf 72 720 Td (${PHRASE}) Tj ET`)),
      });
      const chip = page.getByTestId("attachment-chip");
      await expect(chip).toContainText("drill-manual.pdf");
      await expect(chip).toContainText(/\d+ bytes/);
      await expect(chip.locator("progress")).toHaveCount(0);
      await expect(chip.getByRole("button", { name: "Remove drill-manual.pdf" })).toBeVisible();
      expect(await seriousA11yViolations(page)).toEqual([]);
      await screenshot(page, "portal-chat-attached");

      const box = page.getByRole("textbox", { name: "Message" });
      await box.fill("How long is the warranty on the Falcon drill?");
      await box.press("Enter");
      const answer = page.getByTestId("message-assistant").last();
      await expect(answer).toContainText("warranty of seven years");
      // The chip went with the question; the question shows the file it carried.
      await expect(chip).toHaveCount(0);
      await expect(page.getByTestId("sent-files")).toContainText("drill-manual.pdf");

      // The answer cites the attachment; its citation opens the PDF's passage.
      const sources = answer.getByRole("list", { name: "Sources" });
      await expect(sources).toContainText("Drill manual");
      const columnWidth = (await box.boundingBox())!.width;
      await sources.getByRole("button").first().click();
      const panel = page.getByTestId("citation-panel");
      await expect(panel).toContainText("Source 1 · Attached file");
      if (viewport.name === "desktop") {
        // Beside the panel the conversation keeps its width, and nothing of it is under the panel.
        expect((await box.boundingBox())!.width).toBeCloseTo(columnWidth, 0);
        const { x: panelLeft } = (await panel.boundingBox())!;
        for (const part of [answer, box]) {
          const { x, width } = (await part.boundingBox())!;
          expect(x + width).toBeLessThanOrEqual(panelLeft);
        }
      }
      await expect(panel).toContainText("seven years from the date of purchase");
      expect(await seriousA11yViolations(page)).toEqual([]);
      await screenshot(page, "portal-chat-attachment-cited");
      await page.keyboard.press("Escape");

      // A file chats do not take is refused in words and never uploaded.
      await page.getByTestId("attachment-picker").setInputFiles({
        name: "tool.exe",
        mimeType: "application/octet-stream",
        buffer: Buffer.from([0x4d, 0x5a, 0x90, 0x00]),
      });
      await expect(page.getByTestId("composer-refused-file")).toContainText("tool.exe can't be attached");
      await expect(chip).toHaveCount(0);
      await screenshot(page, "portal-chat-attachment-refused");
    });
  });
}
