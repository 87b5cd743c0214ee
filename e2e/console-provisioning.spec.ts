// An admin reasons about provisioning and inspects knowledge, at a desk and on a phone: opens an
// end user and sees their access and why, adds a group member by email, ends a portal admission,
// edits a plan, searches a knowledgebase and opens a source's detail. Screenshots land in .screens/.
import { expect, test, type Page } from "@playwright/test";
import { admin, api, screenshot as fullPage, seedDemo, signIn } from "./fixtures";

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];

/** A screenshot, once the page is checked not to scroll sideways. */
async function screenshot(page: Page, name: string) {
  expect(
    await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth),
    `${name} scrolls sideways`,
  ).toBeLessThanOrEqual(0);
  await fullPage(page, name);
}

for (const viewport of VIEWPORTS) {
  test(`provisioning and knowledge at ${viewport.width}×${viewport.height}: access and why, a plan edited, search, a source's detail`, async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await page.setViewportSize(viewport);
    const { login, orgKey, organization } = await seedDemo();
    const key = orgKey.secret;
    const { tierPlan } = await admin<{ tierPlan: { id: string; groupId: string } }>(
      "plan",
      "create",
      "--org",
      organization.id,
      "--name",
      "Starter",
      "--credits",
      "50",
      "--with-group",
    );
    const { knowledgebase } = await api(page.request, key, "POST", "/knowledgebases", { name: "Handbook" });
    await api(page.request, key, "POST", `/knowledgebases/${knowledgebase.id}/pages`, {
      title: "Refund policy",
      markdown: "Refunds are paid within 14 days.",
    });
    await api(page.request, key, "POST", `/knowledgebases/${knowledgebase.id}/sources`, {
      name: "Shipping guide",
      contentMarkdown: "# Shipping\n\n## Returns\n\nReturned parcels are refunded once they arrive at the warehouse.\n",
    });
    const { agent } = await api(page.request, key, "POST", "/agents", { name: "Billing agent" });
    await api(page.request, key, "POST", `/agents/${agent.id}/publish`, {});
    const { app } = await api(page.request, key, "POST", "/apps", {
      name: "Helpdesk",
      members: [{ id: agent.id, kind: "agent" }],
      orchestrationMode: "supervisor",
    });
    await api(page.request, key, "POST", `/apps/${app.id}/publish`, {});
    const { portal } = await api(page.request, key, "POST", "/portals", { name: "Service Desk" });
    await api(page.request, key, "POST", `/user-groups/${tierPlan.groupId}/grants`, {
      targetKind: "app",
      targetId: app.id,
    });
    const { userGroup } = await api(page.request, key, "POST", "/user-groups", { name: "Support staff" });
    await api(page.request, key, "POST", `/portals/${portal.id}/admissions`, { groupId: userGroup.id });
    const { endUser } = await api(page.request, key, "POST", "/end-users", {
      email: `grace-${viewport.width}@example.com`,
      fullName: "Grace Hopper",
      tierPlanIds: [tierPlan.id],
      groupIds: [userGroup.id],
      grants: [{ targetKind: "app", targetId: app.id, deploymentId: portal.id }],
    });
    await signIn(page, login);

    // The end user's access on one page: plans, groups, portals, each app and why.
    await page.goto(`/end-users/${endUser.id}`);
    const access = page.getByTestId("effective-access");
    await expect(access.getByTestId("access-plan")).toHaveText("Starter · 50 of 50 credits left");
    await expect(access.getByRole("link", { name: "Support staff" })).toBeVisible();
    await expect(access.getByTestId("access-portal")).toHaveText(["Service Desk"]);
    const row = access.getByTestId("access-row");
    await expect(row).toContainText("Helpdesk");
    await expect(row).toContainText("Every portal");
    await expect(row).toContainText("Own grant");
    await expect(row).toContainText("in Service Desk");
    await expect(row.getByRole("link", { name: "Plan Starter" })).toBeVisible();
    await expect(access.getByTestId("access-grant")).toHaveCount(2);
    await screenshot(page, "provisioning-end-user");

    // The group lists the portals it is admitted to; a member is added by typing part of their email.
    const { endUser: ada } = await api(page.request, key, "POST", "/end-users", {
      email: `ada-${viewport.width}@example.com`,
      fullName: "Ada Lovelace",
    });
    await page.goto(`/groups/${userGroup.id}`);
    await expect(page.getByTestId("group-portal")).toHaveText([/Service Desk/]);
    await page.getByRole("searchbox", { name: "Add a member by email" }).fill("ada-");
    await page.getByRole("button", { name: `ada-${viewport.width}@example.com Ada Lovelace` }).click();
    await expect(page.getByRole("link", { name: `ada-${viewport.width}@example.com` })).toHaveAttribute(
      "href",
      `/end-users/${ada.id}`,
    );
    await screenshot(page, "provisioning-group");

    // The portal lists the groups admitted to it; an admission ends after the confirm dialog.
    await page.goto(`/portals/${portal.id}`);
    const admitted = page.getByTestId("portal-group");
    await expect(admitted).toHaveText([/Support staff/]);
    await admitted.getByRole("button", { name: "Remove" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Remove from portal" }).click();
    await expect(page.getByText("No user group is admitted yet")).toBeVisible();
    await screenshot(page, "provisioning-portal");

    // A portal created from the list opens on its own page, with its settings.
    await page.getByRole("link", { name: "Portals" }).first().click();
    const created = page.getByRole("form", { name: "Create a portal" });
    await created.getByLabel("Name").fill(`Partners ${viewport.width}`);
    await created.getByRole("button", { name: "Create portal" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Partners ${viewport.width}`);
    expect(page.url()).toMatch(/\/portals\/[0-9a-f-]{36}$/);

    // A plan edited: renamed, more credits for its subscriber, asked first.
    await page.goto("/plans");
    const planRow = page.getByTestId("plan-row").filter({ hasText: "Starter" });
    await expect(planRow.getByTestId("plan-subscribers")).toHaveText("1");
    await planRow.getByRole("button", { name: "Edit Starter" }).click();
    await page.getByLabel("Name").last().fill("Starter Plus");
    await page.getByLabel("Monthly credits").last().fill("80");
    await screenshot(page, "provisioning-plan-edit");
    await page.getByRole("button", { name: "Save plan" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Change credits" }).click();
    await expect(page.getByTestId("plan-row").filter({ hasText: "Starter Plus" })).toContainText("80");
    await page.goto(`/end-users/${endUser.id}`);
    await expect(page.getByTestId("access-plan")).toHaveText("Starter Plus · 80 of 80 credits left");

    // Knowledge: search pages and documents, open a source's detail.
    await page.goto(`/knowledge/${knowledgebase.id}`);
    await expect(page.getByTestId("source-row").filter({ hasText: "Ready" })).toHaveCount(1, { timeout: 20_000 });
    const search = page.getByRole("search");
    await search.getByLabel("Words to find").fill("refunded OR refunds");
    await search.getByLabel("Documents too (1 credit)").check();
    await search.getByRole("button", { name: "Search" }).click();
    const results = page.getByTestId("search-results");
    await expect(results.getByRole("link", { name: "Refund policy" })).toBeVisible();
    await expect(results.getByRole("link", { name: "Shipping guide" })).toBeVisible();
    // The passage reads as the page does, without the markdown's heading marks.
    await expect(results).toContainText("Returned parcels");
    await expect(results).not.toContainText("##");
    await screenshot(page, "knowledge-search");
    await results.getByRole("link", { name: "Shipping guide" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Shipping guide");
    await expect(page.getByTestId("source-status")).toHaveText("Ready");
    await expect(page.getByTestId("source-text")).toContainText("Returned parcels");
    await expect(page.getByTestId("source-chunk").first()).toContainText("Shipping > Returns");
    await screenshot(page, "knowledge-source");
  });
}
