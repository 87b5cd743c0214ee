// The API reference (/docs, rendered by Redoc) at a desk (1440×900) and on a phone (390×844), with
// the system in the light and in the dark theme (Redoc has light colours only, and the page keeps
// them): no serious or critical axe-core finding, no sideways scrolling, and no request leaves the
// server (it works offline). Screenshots land in .screens/docs-<scheme>-<width>.png.
import { expect, test } from "@playwright/test";
import { screenshot, seriousA11yViolations } from "./fixtures";

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];
const SCHEMES = ["light", "dark"] as const;

for (const viewport of VIEWPORTS) {
  test(`/docs at ${viewport.width}px has no serious accessibility finding in either theme`, async ({
    page,
    baseURL,
  }) => {
    // The reference renders every operation: axe reads tens of thousands of elements.
    test.setTimeout(900_000);
    const elsewhere: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(baseURL!) && !request.url().startsWith("data:")) elsewhere.push(request.url());
    });
    await page.setViewportSize(viewport);
    const problems: string[] = [];
    for (const colorScheme of SCHEMES) {
      await page.emulateMedia({ colorScheme });
      await page.goto("/docs");
      await expect(page.getByRole("heading", { name: /Atrium API/ })).toBeVisible({ timeout: 60_000 });
      problems.push(...(await seriousA11yViolations(page)).map((line) => `${colorScheme}: ${line}`));
      const overflow = await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);
      if (overflow > 0) problems.push(`${colorScheme}: scrolls sideways by ${overflow}px`);
      await screenshot(page, `docs-${colorScheme}`);
    }
    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
  });
}
