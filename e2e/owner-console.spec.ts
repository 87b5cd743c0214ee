// The owner's week in the console, at a desk (1440×900) and on a phone (390×844): read what one
// person changed in the Audit log (picked by name, each event a sentence, its details on demand),
// and test a webhook endpoint (a signed ping to a receiver started here, both sides shown).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { addMember, api, screenshot, seedDemo, signIn, VIEWPORTS } from "./fixtures";

async function noSidewaysScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test("the audit log reads as sentences, filtered by the person picked by name", async ({ page }) => {
  const demo = await seedDemo();
  const bea = { email: `bea-${Date.now()}@example.test`, password: "bea-password-0123456789" };
  await addMember(demo.organization.id, bea, "admin");
  await signIn(page, bea);
  const provisioned = await page.request.post("/api/trpc/endUsers.provision", {
    data: { email: `carol-${Date.now()}@example.test`, fullName: "Carol" },
  });
  expect(provisioned.ok()).toBe(true);
  await api(page.request, demo.orgKey.secret, "POST", "/end-users", {
    email: `dave-${Date.now()}@example.test`,
    fullName: "Dave",
  });
  await signIn(page, demo.login);

  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    await page.goto("/audit-log");
    const events = page.getByRole("region", { name: "Audit events" });
    await expect(events).toContainText("added the end user Dave");
    await page.getByLabel("Person").selectOption({ label: `${bea.email} (admin)` });
    await expect(page).toHaveURL(/actorId=/);
    await expect(events.getByRole("listitem").first()).toContainText(`${bea.email} added the end user Carol`);
    await expect(events).not.toContainText("Dave");
    await expect(events.getByRole("listitem")).toHaveCount(2); // Carol's creation and Bea's sign-in
    await events.getByRole("button", { name: "Details" }).first().click();
    const details = events.getByRole("table");
    await expect(details.getByRole("row", { name: /Full name/ })).toContainText("Carol");
    await expect(events.getByRole("button", { name: "Copy request id" })).toBeVisible();
    await noSidewaysScroll(page);
    await screenshot(page, "owner-audit-log");
    // Back to everyone, from the Person select.
    await page.getByLabel("Person").selectOption({ label: "Anyone" });
    await expect(events).toContainText("Dave");
  }
});

test("a webhook endpoint gets a signed test event, and the page shows what was sent and answered", async ({ page }) => {
  const received: { headers: Record<string, string>; body: string }[] = [];
  const receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({
        headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
        body: Buffer.concat(chunks).toString("utf8"),
      });
      response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/atrium`;
    const demo = await seedDemo();
    const created = await api(page.request, demo.orgKey.secret, "POST", "/webhook-endpoints", {
      url,
      eventTypes: ["end_user.created"],
    });
    await signIn(page, demo.login);
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page.goto("/webhooks");
      await page
        .getByRole("region", { name: "Webhook endpoints" })
        .getByRole("button", { name: "Send test event" })
        .click();
      const test = page.getByRole("region", { name: "Test event" });
      await test.getByRole("button", { name: "Send test event" }).click();
      await expect(test.getByRole("status")).toHaveText(/The endpoint answered 200 in \d+ ms\./);
      await expect(test.getByTestId("webhook-test-result")).toContainText('"ok": true');
      await expect(test.getByTestId("webhook-test-result")).toContainText("webhook-signature: v1,");
      const event = new Webhook(created.secret).verify(received.at(-1)!.body, received.at(-1)!.headers) as any;
      expect(event.type).toBe("ping");
      await noSidewaysScroll(page);
      await screenshot(page, "owner-webhook-test");
    }
    expect(received).toHaveLength(2);
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
});
