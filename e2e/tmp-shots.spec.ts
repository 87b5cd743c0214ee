import { expect, test } from "@playwright/test";
import { admin, api, latestSignInCode, seedDemo, seriousA11yViolations } from "./fixtures";

for (const width of [1440, 390]) {
  test(`your data at ${width}`, async ({ page }) => {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    const demo = seedDemo();
    const key = demo.orgKey.secret;
    const { agent } = await api(page.request, key, "POST", "/agents", { name: "Support agent" });
    await api(page.request, key, "POST", `/agents/${agent.id}/publish`, {});
    const { app } = await api(page.request, key, "POST", "/apps", { name: "Support", members: [{ id: agent.id, kind: "agent" }], orchestrationMode: "supervisor" });
    await api(page.request, key, "POST", `/apps/${app.id}/publish`, {});
    const plan = admin<{ tierPlan: { id: string } }>("plan", "create", "--org", demo.organization.id, "--name", "Starter", "--credits", "20");
    const slug = `shots-${width}`;
    await api(page.request, key, "POST", "/portals", { name: "Help Center", slug });
    const email = `shots.${width}@customer.example`;
    await api(page.request, key, "POST", "/end-users", { email, fullName: "Alice Martin", tierPlanIds: [plan.tierPlan.id], grants: [{ targetKind: "app", targetId: app.id, effect: "allow" }] });
    await page.goto(`/p/${slug}/sign-in`);
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Send me a code" }).click();
    await page.getByLabel("6-digit code").fill(await latestSignInCode(demo.organization.id, email));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Hello, Alice Martin");
    await page.goto(`/p/${slug}/conversations`);
    await expect(page.getByText("Your data")).toBeVisible();
    await page.screenshot({ path: `.screens/tmp-yourdata-${width}.png`, fullPage: true });
    await page.getByRole("button", { name: "Email me a link" }).click();
    await page.waitForTimeout(1500);
    await page.screenshot({ path: `.screens/tmp-yourdata-mailed-${width}.png`, fullPage: true });
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
}
