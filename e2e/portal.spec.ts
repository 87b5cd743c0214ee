// End users at work, at desktop and phone size: an admin provisions alice with a small plan and a
// grant to the Support app in the Help Center portal; alice signs in with a code from the outbox,
// sees exactly her app, chats (streamed), watches her credits fall, is refused plainly at zero,
// reopens her conversation, and is signed out when the admin revokes her. Axe checks each page.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { admin, api, latestSignInCode, screenshot, seedDemo, seriousA11yViolations, signIn } from "./fixtures";

const ALICE = "alice@customer.example";
const ACCENT = "#0b7285";
const VIEWPORTS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
];

/** A published app answering from a knowledgebase page through one agent (whose starters the portal shows). */
async function publishApp(request: APIRequestContext, key: string, name: string, starters: string[]) {
  const { knowledgebase } = await api(request, key, "POST", "/knowledgebases", { name: `${name} handbook` });
  await api(request, key, "POST", `/knowledgebases/${knowledgebase.id}/pages`, {
    title: "Refund policy",
    markdown: "Refunds are paid within 14 days of the request. Shipping costs are not refunded.",
  });
  const { agent } = await api(request, key, "POST", "/agents", {
    name: `${name} agent`,
    description: "Invoices, refunds and payments",
    knowledge: [{ knowledgebaseId: knowledgebase.id }],
    conversationStarters: starters,
  });
  await api(request, key, "POST", `/agents/${agent.id}/publish`, {});
  const { app } = await api(request, key, "POST", "/apps", {
    name,
    description: `${name} answers questions about orders and refunds.`,
    members: [{ id: agent.id, kind: "agent" }],
    orchestrationMode: "supervisor",
    api: { greeting: `Hi! ${name} here. How can I help?` },
  });
  await api(request, key, "POST", `/apps/${app.id}/publish`, {});
  return app.id as string;
}

/** The outcome's set-up, seeded through the API and the CLI: Support granted in Help Center, Billing not granted. */
async function provision(request: APIRequestContext, slug: string, email: string) {
  const demo = await seedDemo();
  const key = demo.orgKey.secret;
  const supportId = await publishApp(request, key, "Support", ["How long do refunds take?"]);
  const billingId = await publishApp(request, key, "Billing", []);
  const plan = await admin<{ tierPlan: { id: string } }>(
    "plan",
    "create",
    "--org",
    demo.organization.id,
    "--name",
    "Starter",
    "--credits",
    "3",
  );
  const { portal } = await api(request, key, "POST", "/portals", {
    name: "Help Center",
    slug,
    greeting: "Ask us anything about your orders.",
    accentColor: ACCENT,
  });
  const { endUser } = await api(request, key, "POST", "/end-users", {
    email,
    fullName: "Alice Martin",
    tierPlanIds: [plan.tierPlan.id],
    grants: [{ targetKind: "app", targetId: supportId, deploymentId: portal.id, effect: "allow" }],
  });
  return { demo, key, supportId, billingId, portalId: portal.id as string, endUserId: endUser.id as string };
}

/** Follows a console navigation link, through the Menu button on a phone. */
async function consoleNav(page: Page, name: string) {
  const menu = page.getByRole("button", { name: "Menu" });
  if ((await menu.isVisible()) && (await menu.getAttribute("aria-expanded")) !== "true") await menu.click();
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name }).click();
}

async function expectAccessible(page: Page) {
  // Not waited for: a portal page is never without its title, even mid-navigation.
  expect(await page.title()).not.toBe("");
  expect(await seriousA11yViolations(page)).toEqual([]);
}

async function signInWithCode(page: Page, slug: string, organizationId: string, email: string) {
  await page.goto(`/p/${slug}`);
  await expect(page).toHaveURL(new RegExp(`/p/${slug}/sign-in`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Sign in to Help Center");
  await expect(page).toHaveTitle("Sign in · Help Center");
  // The title is in the <head> the server sends, not streamed into the body after it.
  const html = await (await page.request.get(`/p/${slug}/sign-in`)).text();
  expect(html.slice(0, html.indexOf("</head>"))).toContain("<title>Sign in · Help Center</title>");
  await expectAccessible(page);
  await screenshot(page, "portal-sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Send me a code" }).click();
  const codeBox = page.getByLabel("6-digit code");
  await expect(codeBox).toHaveAttribute("autocomplete", "one-time-code");
  await expectAccessible(page);
  await screenshot(page, "portal-sign-in-code");

  // A wrong code is refused plainly; the right one from the outbox signs alice in.
  const code = await latestSignInCode(organizationId, email);
  await codeBox.fill(code === "000000" ? "111111" : "000000");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("main").getByRole("alert")).toHaveText(
    "That code is wrong or has expired. Request a new one.",
  );
  await codeBox.fill(code);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/p/${slug}$`));
}

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });
    // Her own email per size: codes are capped per email (5 an hour, whatever the address).
    const alice = viewport.name === "desktop" ? ALICE : "alice.phone@customer.example";

    test("alice signs in with an outbox code, chats with her one app, runs out of credits, comes back to her conversation, and is signed out on revocation", async ({
      page,
    }) => {
      test.setTimeout(120_000);
      const slug = viewport.name === "desktop" ? "help-center" : `help-center-${viewport.name}`;
      const { demo, key, endUserId } = await provision(page.request, slug, alice);
      await signInWithCode(page, slug, demo.organization.id, alice);

      // Home: the greeting, exactly the granted app, her credits.
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Hello, Alice Martin");
      await expect(page.getByText("Ask us anything about your orders.")).toBeVisible();
      await expect(page.getByTestId("portal-app")).toHaveCount(1);
      await expect(page.getByTestId("portal-app").getByRole("heading")).toHaveText("Support");
      await expect(page.getByTestId("credits-left")).toHaveText("3 credits left");
      await expect(page).toHaveTitle("Apps · Help Center");
      await expect(page.getByRole("banner")).toHaveCSS("border-bottom-color", "rgb(11, 114, 133)"); // the portal's accent
      await expectAccessible(page);
      await screenshot(page, "portal-home");

      // A conversation starter opens the chat and sends itself; the reply streams in.
      await page.getByRole("button", { name: "How long do refunds take?" }).click();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Support");
      await expect(page.getByTestId("message-assistant").last()).toContainText("14 days");
      await expect(page).toHaveURL(/\?c=[0-9a-f-]{36}$/);
      await expect(page.getByTestId("chat-credits-left")).toHaveText("2 credits left");
      await expectAccessible(page);
      await screenshot(page, "portal-chat");

      const message = page.getByRole("textbox", { name: "Message" });
      await message.fill("Are shipping costs refunded?");
      await message.press("Enter");
      await expect(page.getByTestId("message-assistant")).toHaveCount(2);
      await expect(page.getByTestId("chat-credits-left")).toHaveText("1 credit left");
      await message.fill("And how do I ask for one?");
      await page.getByRole("button", { name: "Send", exact: true }).click();
      await expect(page.getByTestId("message-assistant")).toHaveCount(3);

      // At zero: the composer says why and when they come back; what she types is kept, and she
      // can ask the organization for more.
      const blocked = page.getByTestId("out-of-credits");
      await expect(blocked).toContainText(/You've used all your credits\. They renew on \d{1,2} \w+ \d{4}\./);
      await message.fill("One more question, please.");
      await expect(page.getByRole("button", { name: "Send", exact: true })).toBeDisabled();
      await expect(message).toHaveValue("One more question, please.");
      await expect(page.getByTestId("message-assistant")).toHaveCount(3);
      await expectAccessible(page);
      await screenshot(page, "portal-chat-no-credits");
      await blocked.getByRole("button", { name: "Ask for more credits" }).click();
      await blocked.getByRole("textbox", { name: /Why you need more credits/ }).fill("Exam week");
      await blocked.getByRole("button", { name: "Send request" }).click();
      await expect(blocked.getByRole("status")).toContainText("Request sent");

      // The admin sees the request and gives a bonus credit; she goes on.
      const requests = await api(page.request, key, "GET", `/end-users/${endUserId}/credit-requests`);
      expect(requests.creditRequests[0]).toMatchObject({ status: "open", message: "Exam week" });
      const planId = (await api(page.request, key, "GET", `/end-users/${endUserId}`)).endUser.subscriptions[0]
        .tierPlanId;
      await api(page.request, key, "POST", `/end-users/${endUserId}/tier-plans/${planId}/bonus-credits`, {
        credits: 1,
      });
      await page.reload();
      await expect(page.getByTestId("chat-credits-left")).toHaveText("1 credit left");
      await expect(page.getByTestId("out-of-credits")).toHaveCount(0);

      // Her conversations, newest first; the earlier one reopens with its messages.
      await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Conversations" }).click();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your conversations");
      const conversations = page.getByTestId("portal-conversation");
      await expect(conversations).toHaveCount(1);
      await expect(conversations.first()).toContainText("Support");
      await expectAccessible(page);
      await screenshot(page, "portal-conversations");
      await conversations.first().getByRole("link").click();
      await expect(page.getByTestId("message-assistant")).toHaveCount(3);
      await expect(page.getByTestId("message-user").first()).toHaveText("How long do refunds take?");

      // The home page shows the credits spent.
      await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Apps" }).click();
      await expect(page.getByTestId("credits-left")).toHaveText("1 credit left");

      // The admin revokes alice: her open session ends at once.
      await api(page.request, key, "POST", `/end-users/${endUserId}/revoke`, {});
      await page.reload();
      await expect(page).toHaveURL(new RegExp(`/p/${slug}/sign-in\\?reason=ended$`));
      await expect(page.getByRole("main").getByRole("status")).toHaveText(
        "Your session has ended. Sign in again to continue.",
      );
      await screenshot(page, "portal-signed-out");
    });

    test("an end user with no usable app may sign in and is told so; sign-out ends the session; code requests are throttled", async ({
      page,
    }) => {
      const slug = `no-apps-${viewport.name}`;
      const demo = await seedDemo();
      await api(page.request, demo.orgKey.secret, "POST", "/portals", { name: "Help Center", slug });
      await api(page.request, demo.orgKey.secret, "POST", "/end-users", { email: alice, fullName: "Alice Martin" });
      await signInWithCode(page, slug, demo.organization.id, alice);
      await expect(page.getByTestId("no-apps")).toContainText("There is no app for you here yet.");
      await expect(page.getByTestId("credits-left")).toHaveText("0 credits left");
      await expectAccessible(page);
      await screenshot(page, "portal-home-no-apps");
      await page.getByRole("button", { name: "Sign out" }).click();
      await expect(page).toHaveURL(new RegExp(`/p/${slug}/sign-in$`));
      await page.goto(`/p/${slug}`);
      await expect(page).toHaveURL(new RegExp(`/p/${slug}/sign-in$`));

      // Asking for codes too often is throttled, and the page says how long to wait.
      await page.getByLabel("Email").fill("bob@customer.example");
      await page.getByRole("button", { name: "Send me a code" }).click();
      const again = page.getByRole("button", { name: "Send a new code" });
      const refusal = page.getByRole("main").getByRole("alert");
      // The address may be throttled already by the earlier tests, on the first request.
      for (let i = 0; i < 10; i++) {
        await expect(again.or(refusal).first()).toBeVisible();
        if (await refusal.isVisible()) break;
        await expect(again).toBeEnabled();
        await again.click();
      }
      await expect(refusal).toHaveText(/^Too many attempts\. Try again in \d+ (seconds?|minutes?)\.$/);
      await screenshot(page, "portal-sign-in-throttled");
    });

    test("the console: portal link and settings, the outbox, an end user's effective access and credits, executions by end user", async ({
      page,
    }) => {
      test.setTimeout(120_000);
      const slug = `console-${viewport.name}`;
      const { demo, supportId, billingId, endUserId } = await provision(page.request, slug, alice);
      // Alice signs in and has one turn through the portal's own door (its HTTP API, not clicks).
      const door = page.request;
      expect(
        (await door.post("/api/portal/trpc/auth.requestCode", { data: { portal: slug, email: alice } })).ok(),
      ).toBe(true);
      const code = await latestSignInCode(demo.organization.id, alice);
      expect(
        (await door.post("/api/portal/trpc/auth.verifyCode", { data: { portal: slug, email: alice, code } })).ok(),
      ).toBe(true);
      const turn = await door.post(`/api/portal/${slug}/apps/${supportId}/conversation`, {
        data: { message: "How long do refunds take?" },
      });
      expect(turn.headers()["content-type"]).toContain("text/event-stream");
      expect(await turn.text()).toContain("event: done");
      await signIn(page, demo.login);

      await page.goto("/portals");
      const row = page.getByTestId("portal-row").filter({ hasText: "Help Center" });
      await expect(row.getByTestId("portal-link")).toHaveText(`${new URL(page.url()).origin}/p/${slug}`);
      await expectAccessible(page);
      await screenshot(page, "console-portals");
      await row.getByRole("link", { name: "Help Center" }).click();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Help Center");
      await page.getByLabel("Greeting").fill("Welcome to the Help Center.");
      const addApp = page.getByRole("searchbox", { name: "Add an app" });
      await addApp.fill("bill");
      await page.getByRole("button", { name: "Billing" }).click();
      // Billing is listed now, so searching its name again offers nothing.
      await addApp.fill("bill");
      await expect(page.getByRole("list", { name: "Add an app: matches" })).toHaveText("Nothing matches.");
      // Enter pressed before the server has answered the next search still adds what was typed.
      await page.route(/apps\.list.*Supp/, async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 800));
        await route.continue();
      });
      await addApp.fill("Supp");
      await addApp.press("Enter");
      await expect(page.getByTestId("featured-app")).toHaveText([/Billing/, /Support/]);
      await page.getByRole("button", { name: "Move Support up" }).click();
      await expect(page.getByTestId("featured-app")).toHaveText([/Support/, /Billing/]);
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await expect(page.getByRole("status")).toHaveText("Saved.");
      await screenshot(page, "console-portal-settings");
      const stored = await api(page.request, demo.orgKey.secret, "GET", "/portals?limit=200");
      const saved = stored.portals.find((p: { slug: string }) => p.slug === slug);
      expect(saved.greeting).toBe("Welcome to the Help Center.");
      expect(saved.featuredAppIds).toEqual([supportId, billingId]);

      await consoleNav(page, "Outbox");
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Outbox");
      await expect(page.getByTestId("outbox-message").first()).toContainText(alice);
      await expectAccessible(page);
      await screenshot(page, "console-outbox");

      await page.goto(`/end-users/${endUserId}`);
      await expect(page.getByTestId("access-row")).toHaveCount(1);
      await expect(page.getByTestId("access-row")).toContainText("Support");
      await expect(page.getByTestId("access-row")).toContainText("Help Center");
      await expect(page.getByTestId("subscription-row")).toContainText("1 / 3");
      // A grant by the app's name, limited to a portal chosen by name.
      await page.getByRole("combobox", { name: "Portal of the grant" }).selectOption({ label: "Help Center only" });
      await page.getByRole("searchbox", { name: "Grant an app" }).fill("Bil");
      await page.getByRole("button", { name: "Billing" }).click();
      await expect(page.getByTestId("access-row")).toHaveCount(2);
      await expect(page.getByTestId("access-row").filter({ hasText: "Billing" })).toContainText("Help Center");
      await expectAccessible(page);
      await screenshot(page, "console-end-user");
      // Her ledger's charge opens that run's trace.
      const charge = page.getByTestId("ledger-entry").filter({ hasText: "Run charged" });
      await expect(charge).toHaveCount(1);
      await charge.getByRole("link", { name: /its trace/ }).click();
      await expect(page).toHaveURL(new RegExp(`endUser=${endUserId}&run=[0-9a-f-]{36}`));
      await expect(page.getByRole("dialog", { name: /^Trace/ })).toBeVisible();

      await page.goto("/executions");
      await page.getByRole("searchbox", { name: "End user" }).fill(alice.split("@")[0]! + "@");
      await page.getByRole("button", { name: alice }).click();
      await expect(page).toHaveURL(new RegExp(`endUser=${endUserId}`));
      await expect(page.getByTestId("end-user-filter")).toHaveText(alice);
      await expect(page.getByTestId("execution-row")).toHaveCount(1);
      await expect(page.getByTestId("execution-end-user")).toHaveText(alice);
      await expect(page.getByTestId("execution-row")).toContainText("in Help Center");
      await page.getByLabel("Portal").selectOption({ label: "Help Center" });
      await expect(page).toHaveURL(/portal=[0-9a-f-]{36}/);
      await expect(page.getByTestId("execution-row")).toHaveCount(1);
      await screenshot(page, "console-executions");
    });
  });
}
