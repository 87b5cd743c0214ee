// Issue 49's "How it is checked": an owner's week in the console, at a desk (1440×900) and on a
// phone (390×844). She reads the home, finds Alice by name and why she cannot use the Billing
// app, gives her a bonus and sees it in her ledger, opens the run behind a charge full width,
// reads what Bea changed in the Audit log (picked by name, a sentence), sends a webhook test
// event and tests the single sign-on connection; Alice is told of her bonus in the portal. Axe
// finds nothing serious on the pages she reads, in the light and the dark theme; nothing scrolls
// sideways. (The CSV import with its dry run has its own walk: e2e/end-user-import.spec.ts.)
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import type { FakeOidc } from "../tests/fake-oidc";
import { addMember, admin, api, portalSignIn, screenshot, seedDemo, seriousA11yViolations, signIn } from "./fixtures";
import { connectSso, startOidcProvider } from "./sso-fixtures";

const VIEWPORTS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
];

let provider: FakeOidc;
let receiver: http.Server;
const received: string[] = [];

test.beforeAll(async () => {
  provider = await startOidcProvider();
  receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push(Buffer.concat(chunks).toString("utf8"));
      response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
});
test.afterAll(async () => {
  await provider?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** Nothing serious for axe in either theme, and no sideways scrolling; a screenshot of each. */
async function readable(page: Page, name: string) {
  const problems: string[] = [];
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    problems.push(...(await seriousA11yViolations(page)).map((line) => `${name} (${colorScheme}): ${line}`));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    if (overflow > 0) problems.push(`${name} (${colorScheme}): scrolls sideways by ${overflow}px`);
    await screenshot(page, `owner-week-${name}-${colorScheme}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
  expect(problems).toEqual([]);
}

/** An organization as an owner finds it on Monday: apps, a plan, a portal, Alice with a run behind her, Bea. */
async function week(page: Page, viewport: string) {
  const demo = await seedDemo();
  const key = demo.orgKey.secret;
  const org = demo.organization.id;
  const { agent } = await api(page.request, key, "POST", "/agents", {
    name: "Support agent",
    description: "Opening hours and refunds",
  });
  await api(page.request, key, "POST", `/agents/${agent.id}/publish`, {});
  const members = [{ id: agent.id, kind: "agent" }];
  const { app: support } = await api(page.request, key, "POST", "/apps", { name: "Support", members });
  await api(page.request, key, "POST", `/apps/${support.id}/publish`, {});
  // Granted to Alice but never published: why she cannot use it is the week's first question.
  const { app: billing } = await api(page.request, key, "POST", "/apps", { name: "Billing", members });
  const plan = await admin<{ tierPlan: { id: string } }>(
    "plan",
    "create",
    "--org",
    org,
    "--name",
    "Starter",
    "--credits",
    "20",
  );
  const slug = `week-${viewport}-${Date.now()}`;
  const { portal } = await api(page.request, key, "POST", "/portals", { name: "Help Center", slug });
  const alice = `alice.${viewport}.${Date.now()}@customer.example`;
  const { endUser } = await api(page.request, key, "POST", "/end-users", {
    email: alice,
    fullName: "Alice Martin",
    tierPlanIds: [plan.tierPlan.id],
    grants: [
      { targetKind: "app", targetId: support.id, deploymentId: portal.id },
      { targetKind: "app", targetId: billing.id },
    ],
  });
  // Alice asked something: one charge on her ledger, with its run.
  await api(page.request, key, "POST", `/apps/${support.id}/conversation`, {
    message: "When are you open?",
    endUserId: endUser.id,
    portalId: portal.id,
  });
  await api(page.request, key, "POST", "/webhook-endpoints", {
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/atrium`,
    eventTypes: ["end_user.created"],
  });
  await connectSso(org, provider, `week-${viewport}.example`);
  // Bea, an admin, adds Carol during the week.
  const bea = { email: `bea.${viewport}.${Date.now()}@example.test`, password: "bea-password-0123456789" };
  await addMember(org, bea, "admin");
  await signIn(page, bea);
  const provisioned = await page.request.post("/api/trpc/endUsers.provision", {
    data: { email: `carol.${viewport}.${Date.now()}@example.test`, fullName: "Carol Diaz" },
  });
  expect(provisioned.ok(), await provisioned.text()).toBe(true);
  return { demo, alice, endUserId: endUser.id as string, bea, slug };
}

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("the owner's week: home, Alice found by name and why, a bonus in her ledger, a run's trace, the audit log by person, webhook and SSO tests", async ({
      page,
    }) => {
      test.setTimeout(240_000);
      const { demo, alice, endUserId, bea, slug } = await week(page, viewport.name);
      await signIn(page, demo.login);

      // Monday: the home.
      await page.goto("/");
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(demo.organization.name);
      await readable(page, `home-${viewport.name}`);

      // Alice, found by her name.
      await page.goto("/end-users");
      await page.getByLabel("Search by email or name").fill("martin");
      await page.getByRole("button", { name: "Search", exact: true }).click();
      const row = page.getByTestId("end-user-row");
      await expect(row).toHaveCount(1);
      await expect(row).toContainText("Starter");
      await row.getByRole("link", { name: alice }).click();
      await expect(page).toHaveURL(new RegExp(`/end-users/${endUserId}`));

      // Why she cannot use Billing: it is granted, but not published.
      await expect(page.getByTestId("access-row")).toHaveCount(1);
      await expect(page.getByTestId("access-row")).toContainText("Support");
      await expect(page.getByTestId("access-grant").filter({ hasText: "Billing" })).toContainText("App not published");

      // A bonus, at once in her ledger.
      await page.getByRole("spinbutton", { name: "Bonus credits" }).fill("25");
      await page.getByLabel("Reason (optional)").fill("Sorry for the outage");
      await page.getByRole("button", { name: "Give bonus credits" }).click();
      const latest = page.getByTestId("ledger-entry").first();
      await expect(latest).toContainText("+25");
      await expect(latest).toContainText("Sorry for the outage");
      await readable(page, `end-user-${viewport.name}`);

      // The run behind her charge, in a drawer as wide as the screen allows, nothing sideways.
      const charge = page.getByTestId("ledger-entry").filter({ hasText: "Run charged" });
      await expect(charge).toHaveCount(1);
      await charge.getByRole("link", { name: /its trace/ }).click();
      await expect(page).toHaveURL(new RegExp(`run=[0-9a-f-]{36}`));
      const trace = page.getByRole("dialog", { name: /^Trace/ });
      await expect(trace).toBeVisible();
      await expect(trace.getByRole("list", { name: "Trace steps" })).toBeVisible();
      const box = (await trace.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
      expect(box.width).toBeGreaterThanOrEqual(Math.min(viewport.width, 640) - 40);
      const sideways = await trace.evaluate((element) => element.scrollWidth - element.clientWidth);
      expect(sideways).toBeLessThanOrEqual(0);
      await readable(page, `trace-${viewport.name}`);
      await page.getByRole("button", { name: "Close the trace" }).click();

      // What Bea changed, read as a sentence, her picked by name.
      await page.goto("/audit-log");
      const events = page.getByRole("region", { name: "Audit events" });
      await page.getByLabel("Person").selectOption({ label: `${bea.email} (admin)` });
      await expect(page).toHaveURL(/actorId=/);
      await expect(events.getByRole("listitem").first()).toContainText(`${bea.email} added the end user Carol Diaz`);
      await expect(events).not.toContainText("bonus");
      // And the owner's own week: the bonus she gave.
      const owner = page.getByLabel("Person").locator("option", { hasText: demo.login.email });
      await page.getByLabel("Person").selectOption({ label: (await owner.textContent())!.trim() });
      await expect(events).toContainText("gave Alice Martin 25 bonus credits");
      await readable(page, `audit-${viewport.name}`);

      // A webhook test event: what was sent and what came back.
      const before = received.length;
      await page.goto("/webhooks");
      await page
        .getByRole("region", { name: "Webhook endpoints" })
        .getByRole("button", { name: "Send test event" })
        .click();
      const testEvent = page.getByRole("region", { name: "Test event" });
      await testEvent.getByRole("button", { name: "Send test event" }).click();
      await expect(testEvent.getByRole("status")).toHaveText(/The endpoint answered 200 in \d+ ms\./);
      await expect(testEvent.getByTestId("webhook-test-result")).toContainText('"ok": true');
      expect(received.length).toBe(before + 1);
      await readable(page, `webhook-${viewport.name}`);

      // The single sign-on connection answers discovery.
      await page.goto("/directory");
      await page.getByRole("button", { name: "Test connection" }).click();
      await expect(page.getByTestId("sso-test-ok")).toHaveText(
        new RegExp(`Connected: ${provider.issuer.replace(/[.]/g, "\\.")} answered discovery in \\d+ ms\\.`),
      );
      await screenshot(page, `owner-week-sso-${viewport.name}`);

      // Alice is told of her bonus in the portal.
      await page.context().clearCookies();
      await portalSignIn(page.request, slug, demo.organization.id, alice);
      await page.goto(`/p/${slug}`);
      const notice = page.getByTestId("bonus-notice");
      await expect(notice).toContainText(`${demo.organization.name} gave you 25 bonus credits on your Starter plan.`);
      await expect(notice).toContainText("Sorry for the outage");
      await readable(page, `portal-bonus-${viewport.name}`);
    });
  });
}
