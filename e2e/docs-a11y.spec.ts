// The API reference (/docs, rendered by Redoc from GET /api/v1/openapi.json) at a desk (1440×900)
// and on a phone (390×844), with no sign-in: no serious or critical axe-core finding, no sideways
// scrolling, no request leaving the server (it works offline), and no Content-Security-Policy
// violation (Redoc loads its code-split bundle under the page's policy). Loading the reference is
// the slowest page load of the suite, so these two tests are the only ones that make it. Redoc has light colours only and the page keeps them in a dark system theme
// (src/app/theme.css). axe runs at the desk size on the whole page but the reference's operations after
// the first dozen sections: every operation repeats one structure, and walking all of them (50,000
// elements) took over three minutes; the phone size checks the layout and the offline load. Screenshots
// land in .screens/docs-<scheme>-<width>.png.
import { expect, test } from "@playwright/test";
import { seriousA11yViolations } from "./fixtures";

// Its tests are independent and each is long: the two workers share them instead of one worker
// taking the whole file.
test.describe.configure({ mode: "parallel" });

/** Redoc's sections after the introduction and the first operations of Meta, Models and End users. */
const REPEATED_OPERATIONS = ".api-content > div:nth-child(n+13)";

const CASES = [
  { viewport: { width: 1440, height: 900 }, schemes: ["light"] as const, axe: true },
  { viewport: { width: 390, height: 844 }, schemes: ["light"] as const, axe: false },
];

for (const { viewport, schemes, axe } of CASES) {
  test(`/docs at ${viewport.width}px: ${axe ? "no serious accessibility finding, " : ""}no sideways scrolling, offline, within its CSP`, async ({
    page,
    baseURL,
  }) => {
    // Every operation is on the page: loading and laying out tens of thousands of elements is slow.
    test.setTimeout(900_000);
    const elsewhere: string[] = [];
    const violations: string[] = [];
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) =>
        console.error(`Content Security Policy violation: ${event.violatedDirective} ${event.blockedURI}`),
      );
    });
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to (execute|load|apply|connect)/i.test(message.text()))
        violations.push(message.text());
    });
    page.on("request", (request) => {
      // Redoc's search worker starts from a blob: of this origin, held in memory.
      const local = [baseURL!, `blob:${baseURL}`, "data:"];
      if (!local.some((prefix) => request.url().startsWith(prefix))) elsewhere.push(request.url());
    });
    await page.setViewportSize(viewport);
    const problems: string[] = [];
    for (const colorScheme of schemes) {
      await page.emulateMedia({ colorScheme });
      await page.goto("/docs");
      await expect(page).not.toHaveURL(/sign-in/);
      await expect(page.getByRole("heading", { name: /Atrium API/ })).toBeVisible({ timeout: 120_000 });
      await expect(page.getByText("/end-users/{endUserId}").first()).toBeAttached();
      if (axe)
        problems.push(
          ...(await seriousA11yViolations(page, REPEATED_OPERATIONS)).map((line) => `${colorScheme}: ${line}`),
        );
      const overflow = await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);
      if (overflow > 0) problems.push(`${colorScheme}: scrolls sideways by ${overflow}px`);
      // The first screen only: the whole reference is far taller than a screenshot can be.
      await page.screenshot({ path: `.screens/docs-${colorScheme}-${viewport.width}.png` });
    }
    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
    expect(violations).toEqual([]);
  });
}
