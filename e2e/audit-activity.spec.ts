// The audit log where an admin works: an item's Recent activity at the bottom of its page, linked
// to the Audit log filtered to it, and the Audit log's export of what its filters select.
import { expect, test } from "@playwright/test";
import { api, seedDemo, signIn } from "./fixtures";

const SHOTS = process.env.AUDIT_SCREENSHOTS_DIR;

test("an end user's page shows its recent activity, linked to the filtered Audit log, which exports it", async ({
  page,
}) => {
  const demo = await seedDemo();
  const created = await api(page.request, demo.orgKey.secret, "POST", "/end-users", {
    email: `carol-${Date.now()}@example.test`,
    fullName: "Carol",
  });
  const endUserId = created.endUser.id as string;
  await api(page.request, demo.orgKey.secret, "PATCH", `/end-users/${endUserId}`, { fullName: "Carol Danvers" });
  await signIn(page, demo.login);

  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    await page.goto(`/end-users/${endUserId}`);
    const panel = page.getByRole("region", { name: "Recent activity" });
    await expect(panel).toContainText("End user edited: Full name");
    await expect(panel).toContainText("End user created");
    if (SHOTS) {
      await panel.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/end-user-activity-${viewport.width}.png` });
    }
  }

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.getByRole("link", { name: "See everything in the Audit log" }).click();
  await expect(page).toHaveURL(new RegExp(`/audit-log\\?targetId=${endUserId}`));
  // Each event as a sentence, with the end user's name.
  await expect(page.getByRole("region", { name: "Audit events" })).toContainText(
    "changed Carol Danvers’s full name from “Carol” to “Carol Danvers”",
  );
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/audit-log-1440.png` });
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Export CSV" }).click(),
  ]);
  const csv = await (await download.createReadStream()).toArray();
  const lines = Buffer.concat(csv).toString("utf8").trim().split("\r\n");
  expect(lines[0]).toMatch(/^id,occurredAt,/);
  expect(lines.slice(1).map((line) => line.split(",")[6])).toEqual(["end_user.update", "end_user.create"]);
  await page.setViewportSize({ width: 390, height: 844 });
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/audit-log-390.png`, fullPage: true });
});
