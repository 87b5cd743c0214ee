// Issue 15's builder persona: a member (not an admin) signs in, makes a knowledgebase, builds an
// agent on it with the knowledgebase picker, puts the agent in an app, publishes both and chats
// with the app, then reads the passage it used in the run's trace; the console never offers them
// what only admins may do (hidden, or disabled with who may). At a desk (1440×900) and on a
// phone (390×844).
import { expect, test, type Page } from "@playwright/test";
import { addMember, admin, api, createFromList, screenshot, seedDemo, seriousA11yViolations, signIn } from "./fixtures";

const VIEWPORTS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
];

async function expectTidy(page: Page) {
  expect(await seriousA11yViolations(page)).toEqual([]);
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
}

for (const viewport of VIEWPORTS) {
  test.describe(`a builder at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("builds an agent on a knowledgebase, an app, publishes and chats; admin-only actions are not offered", async ({
      page,
    }) => {
      test.setTimeout(180_000);
      const demo = await seedDemo();
      const email = `builder.${viewport.name}@example.com`;
      const password = "a-builder-passphrase";
      await addMember(demo.organization.id, { email, password }, "member");
      await page.goto("/sign-in");
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(demo.organization.name);

      // Knowledge: a knowledgebase made in the console; its page written through the API.
      await page.goto("/knowledge");
      await page.getByRole("form", { name: "Create a knowledgebase" }).getByLabel("Name").fill("Guest handbook");
      await page.getByRole("button", { name: "Create knowledgebase" }).click();
      await expect(page.getByRole("link", { name: "Guest handbook" })).toBeVisible();
      const { knowledgebases } = await api(page.request, demo.orgKey.secret, "GET", "/knowledgebases?q=guest");
      await api(page.request, demo.orgKey.secret, "POST", `/knowledgebases/${knowledgebases[0].id}/pages`, {
        title: "Breakfast",
        markdown: "Breakfast is served from **7 to 10** in the garden room.",
      });

      // The agent, with the knowledgebase picked by name.
      await page.goto("/agents");
      await createFromList(page, "agent", "Concierge");
      await page.getByRole("searchbox", { name: "Attach a knowledgebase" }).fill("guest");
      await page.getByRole("button", { name: /^Guest handbook/ }).click();
      await expect(
        page.getByTestId("attached-knowledgebase").getByRole("link", { name: "Guest handbook" }),
      ).toBeVisible();
      await expect(page.getByTestId("save-state")).toHaveText("Saved");
      // Deleting is for admins: the button is there, disabled, saying who may.
      await expect(page.getByRole("button", { name: "Delete agent" })).toBeDisabled();
      await expect(page.getByText("Admins and above only")).toBeVisible();
      await page.getByRole("button", { name: "Publish agent" }).click();
      await expect(page.getByTestId("version-1")).toContainText("Live");
      // The version's actions are whole and on screen, at a desk and on a phone (a card per version).
      const diff = (await page
        .getByTestId("version-1")
        .getByRole("button", { name: "Compare with draft" })
        .boundingBox())!;
      expect(diff.x + diff.width).toBeLessThanOrEqual(viewport.width);
      await expectTidy(page);
      await screenshot(page, `persona-agent-${viewport.name}`);

      // The app, with the agent as its member, published.
      await page.goto("/apps");
      await createFromList(page, "app", "Front desk");
      await page.getByRole("searchbox", { name: "Add a member" }).fill("conc");
      await page.getByRole("button", { name: /^Concierge/ }).click();
      await expect(page.getByTestId("app-member")).toHaveCount(1);
      await expect(page.getByTestId("save-state")).toHaveText("Saved");
      await page.getByRole("button", { name: "Publish app" }).click();
      await expect(page.getByTestId("version-1")).toContainText("Live");
      await expectTidy(page);
      await screenshot(page, `persona-app-${viewport.name}`);

      // Chat with it, from the chat index.
      await page.goto("/chat");
      await page.getByRole("link", { name: "Front desk" }).click();
      await page.getByRole("textbox", { name: "Message" }).fill("When is breakfast served?");
      await page.getByRole("button", { name: "Send", exact: true }).click();
      const answer = page.getByTestId("message-assistant").last();
      await expect(answer.locator("strong")).toHaveText("7 to 10");
      // The answer's actions on one line at either size (on a phone their icons speak for them).
      const actions = answer.getByRole("group", { name: "Answer actions" }).getByRole("button");
      await expect(actions).toHaveCount(5);
      const tops = await actions.evaluateAll((buttons) => buttons.map((b) => b.getBoundingClientRect().top));
      expect(new Set(tops).size).toBe(1);
      await expectTidy(page);
      await screenshot(page, `persona-chat-${viewport.name}`);

      // The run's trace shows the passage the agent received: its page (linked) and how it starts.
      await page.goto("/executions");
      await page.getByTestId("execution-row").first().getByRole("button", { name: "Trace" }).click();
      // The trace opens in a drawer as wide as the screen allows: nothing scrolls sideways, not even inside it.
      const drawer = page.getByRole("dialog", { name: /^Trace/ });
      await expect(drawer.getByTestId("execution-trace")).toBeVisible();
      expect(await drawer.evaluate((box) => box.scrollWidth - box.clientWidth)).toBeLessThanOrEqual(0);
      const trace = await drawer.getByTestId("execution-trace").boundingBox();
      expect(trace!.x + trace!.width).toBeLessThanOrEqual(viewport.width);
      await page.getByTestId("trace-passages").first().locator("summary").click();
      const passage = page.getByTestId("trace-passage").first();
      await expect(passage.getByRole("link", { name: "Breakfast" })).toHaveAttribute(
        "href",
        new RegExp(`/knowledge/${knowledgebases[0].id}\\?page=`),
      );
      await expect(passage).toContainText("Breakfast is served from **7 to 10** in the garden room.");
      await expectTidy(page);
      await screenshot(page, `persona-trace-${viewport.name}`);
      await page.keyboard.press("Escape");
      await expect(drawer).toHaveCount(0);

      // What only admins do is not offered: no Outbox or Model providers in the navigation, no invitations, no new plans or portals.
      if (viewport.name === "phone") await page.getByRole("button", { name: "Menu" }).click();
      const navigation = page.getByRole("navigation", { name: "Console" });
      await expect(navigation.getByRole("link", { name: "Members" })).toBeVisible();
      await expect(navigation.getByRole("link", { name: "Outbox" })).toHaveCount(0);
      await expect(navigation.getByRole("link", { name: "Model providers" })).toHaveCount(0);
      await page.goto("/members");
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Members");
      await expect(page.getByRole("button", { name: /Invite/ })).toHaveCount(0);
      await page.goto("/plans");
      await expect(page.getByText("Admins and owners create, edit and archive plans.")).toBeVisible();
      await expect(page.getByRole("form", { name: "Create a tier plan" })).toHaveCount(0);
      await page.goto("/portals");
      await expect(page.getByRole("form", { name: "Create a portal" })).toHaveCount(0);
      await expectTidy(page);
      await screenshot(page, `persona-portals-${viewport.name}`);
    });
  });
}

test("accounts: a member changes their own password in the console; an admin resets it and the mailed link sets a new one", async ({
  page,
  browser,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const demo = await seedDemo();
  const email = "pat@example.com";
  await addMember(demo.organization.id, { email, password: "the-first-passphrase" }, "member");
  await signIn(page, { email, password: "the-first-passphrase" });
  await page.goto("/account");
  await page.getByLabel("Current password").fill("the-first-passphrase");
  await page.getByLabel("New password", { exact: true }).fill("the-second-passphrase");
  await page.getByLabel("Repeat the new password").fill("the-second-passphrase");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("Password changed.")).toBeVisible();
  expect(
    (await page.request.post("/api/trpc/auth.signIn", { data: { email, password: "the-second-passphrase" } })).ok(),
  ).toBe(true);

  const owner = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await signIn(owner, demo.login);
  await owner.goto("/members");
  await owner
    .getByRole("row", { name: new RegExp(email) })
    .getByRole("button", { name: "Reset password" })
    .click();
  await owner.getByRole("dialog").getByRole("button", { name: "Reset password" }).click();
  await expect(owner.getByText(`A link to choose a new password was sent to ${email}.`)).toBeVisible();
  await expect(owner.locator("code.secret")).toHaveCount(0);
  await owner.close();
  expect(
    (await page.request.post("/api/trpc/auth.signIn", { data: { email, password: "the-second-passphrase" } })).ok(),
  ).toBe(false);

  // The member opens the mailed link in a browser of their own and chooses a new password.
  const { messages } = await admin<{ messages: { to: string; text: string }[] }>(
    "mail",
    "list",
    "--org",
    demo.organization.id,
  );
  const link = messages
    .find((message) => message.to === email)!
    .text.split("\n")
    .find((line) => line.includes("/invite/"))!;
  const member = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await member.goto(link.trim());
  await expect(member.getByRole("heading", { level: 1, name: /New password for/ })).toBeVisible();
  await member.getByLabel("Choose a password").fill("the-third-passphrase");
  await member.getByLabel("Repeat the password").fill("the-third-passphrase");
  await member.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(member).toHaveURL(/\/$/);
  await member.close();
  expect(
    (await page.request.post("/api/trpc/auth.signIn", { data: { email, password: "the-third-passphrase" } })).ok(),
  ).toBe(true);
});
