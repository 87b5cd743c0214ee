// Issue 46's crawl grouping on a knowledgebase's page, at both sizes: a crawl's pages are listed
// under the crawl, with its bounds, its refresh and its last run, apart from the other sources.
// The crawl is started through the API. The server fetches content from public addresses only
// (no test allowance reaches it through a door), so it starts on a host of the reserved `.invalid`
// domain, which never resolves: its robots.txt cannot be read, the start page fails and says why,
// and the crawl finishes; what the page shows of it is the same as for one that found pages. The
// start page's own page names the crawl by its start URL and leads back.
import { expect, test } from "@playwright/test";
import { api, screenshot, seriousA11yViolations, signedInDemo, VIEWPORTS } from "./fixtures";

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("a crawl's pages are grouped under it with its bounds and last run", async ({ page }) => {
      const { orgKey } = await signedInDemo(page);
      const key = orgKey.secret;
      const { knowledgebase } = await api(page.request, key, "POST", "/knowledgebases", { name: "Product docs" });
      const kb = `/knowledgebases/${knowledgebase.id}`;
      await api(page.request, key, "POST", `${kb}/sources`, {
        name: "Returns note",
        contentMarkdown: "Returns are accepted within 30 days.",
      });
      const startUrl = `https://docs-${viewport.name}.atrium.invalid/start`;
      const added = await api(page.request, key, "POST", `${kb}/sources`, {
        url: startUrl,
        refresh: "weekly",
        crawl: { maxPages: 3, sameHost: true, maxDepth: 1 },
      });
      expect(added.crawl).toMatchObject({ maxPages: 3, maxDepth: 1 });
      await expect
        .poll(async () => (await api(page.request, key, "GET", kb)).crawls[0]?.status, { timeout: 30_000 })
        .toBe("done");

      await page.goto(`/knowledge/${knowledgebase.id}`);
      const crawl = page.getByRole("region", { name: `Crawl of ${startUrl}`, exact: true });
      await expect(crawl.getByRole("heading", { name: `Crawl of ${startUrl}` })).toBeVisible();
      await expect(crawl).toContainText("up to 3 pages, 1 link deep, same host, robots.txt honoured");
      await expect(crawl).toContainText("refreshed weekly");
      await expect(crawl).toContainText(/last run .+, finished .+/);
      // The start page is the crawl's, failed with its reason; the pasted note is not.
      const pages = crawl.getByTestId("source-row");
      await expect(pages).toHaveCount(1);
      await expect(pages).toContainText(startUrl);
      await expect(pages.locator(".failure-reason")).not.toBeEmpty();
      const others = page.getByRole("region", { name: "Sources table", exact: true }).getByTestId("source-row");
      await expect(others).toHaveCount(1);
      await expect(others).toContainText("Returns note");

      expect(await seriousA11yViolations(page)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await crawl.scrollIntoViewIfNeeded();
      await screenshot(page, "knowledge-crawl");

      // The page's own page names its crawl by the start URL, and leads back to the group.
      await pages.getByRole("link").first().click();
      const found = page.getByRole("link", { name: `the crawl of ${startUrl}` });
      await expect(found).toBeVisible();
      await screenshot(page, "knowledge-crawl-source");
      await found.click();
      await expect(crawl).toBeVisible();
    });
  });
}
