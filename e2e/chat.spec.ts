import { expect, test, type APIRequestContext } from "@playwright/test";
import { admin, FIRST_VISIT, signedInDemo } from "./fixtures";

async function post(request: APIRequestContext, key: string, path: string, data: unknown) {
  const response = await request.post(`/api/v1${path}`, { headers: { Authorization: `Bearer ${key}` }, data });
  if (!response.ok()) throw new Error(`POST ${path}: ${response.status()} ${await response.text()}`);
  return response.json();
}

/** A knowledgebase page, an agent answering from it, and a published app with the agent as member. */
async function seedApp(request: APIRequestContext, key: string) {
  const { knowledgebase } = await post(request, key, "/knowledgebases", { name: "Handbook" });
  await post(request, key, `/knowledgebases/${knowledgebase.id}/pages`, {
    title: "Refund policy",
    markdown: "Refunds are paid within 14 days of the request. Shipping costs are not refunded.",
  });
  const { agent } = await post(request, key, "/agents", {
    name: "Billing agent",
    description: "Invoices, refunds and payments",
    knowledge: [{ knowledgebaseId: knowledgebase.id }],
  });
  await post(request, key, `/agents/${agent.id}/publish`, {});
  const { app } = await post(request, key, "/apps", {
    name: "Helpdesk",
    members: [{ id: agent.id, kind: "agent" }],
    orchestrationMode: "supervisor",
    api: { greeting: "Hello! How can I help?" },
  });
  await post(request, key, `/apps/${app.id}/publish`, {});
  return { agentId: agent.id as string, appId: app.id as string };
}

test("chat with a published app: the reply streams in from its knowledge, with the members' trace; the run is in the executions log", async ({
  page,
}) => {
  const { orgKey } = await signedInDemo(page);
  await seedApp(page.request, orgKey.secret);

  await page.goto("/");
  await page.getByRole("navigation").getByRole("link", { name: "Chat" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Chat");
  await page.getByRole("link", { name: "Helpdesk" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Helpdesk", FIRST_VISIT);
  await expect(page.getByTestId("greeting")).toHaveText("Hello! How can I help?");

  await page.getByRole("textbox", { name: "Message" }).fill("How long do refunds take?");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  const answer = page.getByTestId("message-assistant").last();
  await expect(answer).toContainText("14 days");
  await expect(page.getByRole("complementary", { name: "Conversations" })).toContainText("How long do refunds take?");

  await answer.getByText("Trace of this answer").click();
  const trace = answer.getByTestId("execution-trace");
  await expect(trace).toContainText("Billing agent");
  await expect(trace).toContainText("Succeeded");

  // A second turn continues the same conversation.
  await page.getByRole("textbox", { name: "Message" }).fill("Are shipping costs refunded?");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expect(page.getByTestId("message-assistant")).toHaveCount(2);

  // "New conversation" starts empty; the earlier one reopens from the list.
  const conversations = page.getByRole("complementary", { name: "Conversations" });
  await conversations.getByRole("button", { name: "New conversation" }).click();
  await expect(page.getByTestId("message-assistant")).toHaveCount(0);
  await expect(page.getByTestId("greeting")).toBeVisible();
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]+$/);
  await conversations.getByRole("link", { name: "How long do refunds take?" }).click();
  await expect(page.getByTestId("message-assistant")).toHaveCount(2);
  await expect(conversations.getByRole("link", { name: "How long do refunds take?" })).toHaveAttribute(
    "aria-current",
    "true",
  );
  await expect(conversations).toContainText("just now · You");

  // The conversation is in the address: a reload reopens it.
  await expect(page).toHaveURL(/\?c=[0-9a-f-]{36}$/);
  await page.reload();
  await expect(page.getByTestId("message-assistant")).toHaveCount(2);
  await expect(page.getByTestId("message-user").first()).toHaveText("How long do refunds take?");

  await page.getByRole("navigation").getByRole("link", { name: "Executions" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Executions");
  const rows = page.getByTestId("execution-row");
  await expect(rows).toHaveCount(2);
  await rows.first().getByRole("button", { name: "Trace" }).click();
  await expect(page.getByTestId("execution-trace")).toContainText("Billing agent");
});

test("an answer's sources, regenerate, copy and feedback; Executions filter by what people said", async ({
  page,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const { orgKey } = await signedInDemo(page);
  const { appId } = await seedApp(page.request, orgKey.secret);
  await page.goto(`/chat/${appId}`);
  await expect(page.getByTestId("greeting")).toHaveText("Hello! How can I help?");
  await page.getByRole("textbox", { name: "Message" }).fill("How long do refunds take?");
  await page.getByRole("textbox", { name: "Message" }).press("Enter");
  const answer = page.getByTestId("message-assistant").last();
  await expect(answer).toContainText("14 days");

  // The source by its title; it opens the cited passage beside the conversation, Esc closes it.
  const sources = answer.getByRole("list", { name: "Sources" });
  await expect(sources).toContainText("Refund policy");
  await sources.getByRole("button").first().click();
  const panel = page.getByTestId("citation-panel");
  await expect(panel.getByRole("heading", { name: "Refund policy" })).toBeVisible();
  await expect(panel).toContainText("Refunds are paid within 14 days");
  await page.keyboard.press("Escape");
  await expect(panel).toHaveCount(0);

  await answer.getByRole("button", { name: "Copy", exact: true }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain("14 days");

  // Regenerate writes the last answer again: still one question and one answer on screen.
  await answer.getByRole("button", { name: "Regenerate" }).click();
  await expect(page.getByTestId("message-assistant")).toHaveCount(1);
  await expect(page.getByTestId("message-user")).toHaveCount(1);
  await expect(page.getByTestId("message-assistant").last()).toContainText("14 days");

  // A rating the server did not store says so, and is sent again on request.
  const rated = page.getByTestId("message-assistant").last();
  await page.route(/conversationFeedback/, (route) => route.fulfill({ status: 503, body: "" }));
  await rated.getByRole("button", { name: "Helpful", exact: true }).click();
  await expect(rated.getByRole("alert")).toHaveText(/Your rating was not saved\./);
  await page.unroute(/conversationFeedback/);
  const ratingSaved = page.waitForResponse(
    (response) => response.url().includes("conversationFeedback") && response.ok(),
  );
  await rated.getByRole("button", { name: "Try again" }).click();
  await ratingSaved;
  await expect(rated.getByRole("alert")).toHaveCount(0);

  // The rating is held back on its way: the reason sent after it must still be stored last.
  let holdRating = true;
  await page.route(/conversationFeedback/, async (route) => {
    if (holdRating) {
      holdRating = false;
      await new Promise((resolve) => setTimeout(resolve, 800));
    }
    await route.continue();
  });
  await page.getByTestId("message-assistant").last().getByRole("button", { name: "Not helpful" }).click();
  await page.getByRole("textbox", { name: /What was wrong with this answer/ }).fill("Too short");
  // The reason is stored once its request answers: the Executions page reads it then.
  const reasonSaved = page.waitForResponse(
    (response) =>
      response.url().includes("conversationFeedback") && response.request().postData()?.includes("Too short") === true,
  );
  await page
    .getByRole("form", { name: "What was wrong with this answer?" })
    .getByRole("button", { name: "Send" })
    .click();
  await reasonSaved;
  await page.unroute(/conversationFeedback/);

  await page.getByRole("navigation").getByRole("link", { name: "Executions" }).click();
  await expect(page.getByTestId("execution-row")).toHaveCount(2);
  await page.getByLabel("Feedback").selectOption("down");
  await expect(page).toHaveURL(/feedback=down/);
  await expect(page.getByTestId("execution-row")).toHaveCount(1);
  await expect(page.getByTestId("execution-feedback")).toContainText("Rated not helpful: “Too short”");
});

/** A published agent of its own, for a second app. */
async function seedOtherAgent(request: APIRequestContext, key: string) {
  const { agent } = await post(request, key, "/agents", { name: "Other agent", description: "Anything else" });
  await post(request, key, `/agents/${agent.id}/publish`, {});
  return agent.id as string;
}

test("the chat fills the screen: the conversation scrolls in its panel on a desk, the composer stays in sight on a phone", async ({
  page,
}) => {
  const { orgKey } = await signedInDemo(page);
  const { appId } = await seedApp(page.request, orgKey.secret);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/chat/${appId}`);
  await expect(page.getByTestId("greeting")).toBeVisible(FIRST_VISIT);
  for (const [index, question] of [
    "How long do refunds take?",
    "Are shipping costs refunded?",
    "When are refunds paid?",
  ].entries()) {
    await page.getByRole("textbox", { name: "Message" }).fill(question);
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await expect(page.getByTestId("message-assistant")).toHaveCount(index + 1);
  }
  const composer = page.getByRole("textbox", { name: "Message" });
  const pageScrolls = () => page.evaluate(() => document.documentElement.scrollHeight > window.innerHeight);
  const logScrolls = () =>
    page.evaluate(() => {
      const log = document.querySelector(".chat-main .chat-log");
      return !!log && log.scrollHeight > log.clientHeight;
    });
  expect(await pageScrolls()).toBe(false);
  expect(await logScrolls()).toBe(true);
  await expect(composer).toBeInViewport({ ratio: 1 });

  // A phone: the page scrolls, the composer stays at the foot; earlier conversations fold behind History.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await expect(composer).toBeInViewport({ ratio: 1 });
  expect(await pageScrolls()).toBe(true);
  const conversations = page.getByRole("complementary", { name: "Conversations" });
  const earlier = conversations.getByRole("link", { name: "How long do refunds take?" });
  await expect(earlier).toBeHidden();
  await conversations.getByRole("button", { name: "New conversation" }).click();
  await conversations.getByRole("button", { name: "History (1)" }).click();
  await earlier.click();
  await expect(page.getByTestId("message-assistant")).toHaveCount(3);
  await expect(earlier).toBeHidden();
});

test("an address naming a conversation the chat cannot show opens a new one, or says where it is", async ({ page }) => {
  const { orgKey } = await signedInDemo(page);
  const { appId } = await seedApp(page.request, orgKey.secret);
  await page.goto(`/chat/${appId}`);
  await page.getByRole("textbox", { name: "Message" }).fill("How long do refunds take?");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expect(page.getByTestId("message-assistant")).toHaveCount(1);
  const conversationId = new URL(page.url()).searchParams.get("c");
  expect(conversationId).toMatch(/^[0-9a-f-]{36}$/);

  // Not an id: a new conversation, no error.
  await page.goto(`/chat/${appId}?c=not-an-id`);
  await expect(page.getByTestId("greeting")).toBeVisible();
  await expect(page.getByRole("main").getByRole("alert")).toHaveCount(0);
  await expect(page.getByTestId("message-user")).toHaveCount(0);

  // Another app's conversation is not shown under this one: the page says where it is.
  const { app: other } = await post(page.request, orgKey.secret, "/apps", {
    name: "Other desk",
    members: [{ id: (await seedOtherAgent(page.request, orgKey.secret)) as string, kind: "agent" }],
    orchestrationMode: "supervisor",
  });
  await post(page.request, orgKey.secret, `/apps/${other.id}/publish`, {});
  await page.goto(`/chat/${other.id}?c=${conversationId}`);
  await expect(page.getByRole("status").filter({ hasText: "That conversation is with another app" })).toBeVisible(
    FIRST_VISIT,
  );
  await expect(page.getByTestId("message-user")).toHaveCount(0);
  await expect(page.getByRole("link", { name: "open it there" })).toHaveAttribute(
    "href",
    `/chat/${appId}?c=${conversationId}`,
  );
  // A message sent here starts this app's own conversation; the other one is left as it was.
  await page.getByRole("textbox", { name: "Message" }).fill("Hello there");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expect(page.getByTestId("message-assistant")).toHaveCount(1);
  await expect(page).not.toHaveURL(new RegExp(`c=${conversationId}`));
  await expect(page.getByRole("status").filter({ hasText: "That conversation is with another app" })).toHaveCount(0);

  await page.goto(`/chat/${other.id}?c=${conversationId}`);
  await page.getByRole("link", { name: "open it there" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Helpdesk");
  await expect(page.getByTestId("message-user")).toHaveCount(1);
  await expect(page.getByTestId("message-user")).toContainText("How long do refunds take?");
});

test("a refusal before anything streams is shown in an alert and the message is kept", async ({ page }) => {
  const { orgKey, organization } = await signedInDemo(page);
  const { appId } = await seedApp(page.request, orgKey.secret);
  await admin("org", "update", "--org", organization.id, "--credits", "0");
  await page.goto(`/chat/${appId}`);
  // The greeting comes from the app's query, so the page is live before anything is typed.
  await expect(page.getByTestId("greeting")).toHaveText("Hello! How can I help?");
  await page.getByRole("textbox", { name: "Message" }).fill("How long do refunds take?");
  const refusal = page.waitForResponse((response) =>
    response.url().endsWith(`/api/console/apps/${appId}/conversation`),
  );
  await page.getByRole("button", { name: "Send", exact: true }).click();
  expect((await refusal).status()).toBe(402);
  await expect(page.getByRole("alert").filter({ hasText: /credit/i })).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("How long do refunds take?");
});

test("a message typed while the page is still loading is kept and can be sent", async ({ page }) => {
  const { orgKey } = await signedInDemo(page);
  const { appId } = await seedApp(page.request, orgKey.secret);
  // A slow connection: the page's scripts arrive well after its HTML.
  await page.route("**/_next/static/chunks/**", async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await route.continue();
  });
  await page.goto(`/chat/${appId}`, { waitUntil: "commit" });
  await page.getByRole("textbox", { name: "Message" }).fill("How long do refunds take?");
  await expect(page.getByTestId("greeting")).toHaveText("Hello! How can I help?");
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("How long do refunds take?");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expect(page.getByTestId("message-assistant").last()).toContainText("14 days");
});

test("run graded tests against an agent's draft from its editor", async ({ page }) => {
  const { orgKey } = await signedInDemo(page);
  const { agentId } = await seedApp(page.request, orgKey.secret);
  await page.goto(`/agents/${agentId}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Billing agent");
  const tests = page.locator('[aria-label="Tests"]');
  await tests.getByLabel("Case 1 input").fill("How long do refunds take?");
  await tests.getByLabel("Case 1 expected behaviour").fill("Says refunds are paid within 14 days");
  await tests.getByRole("button", { name: "Run 1 case" }).click();
  await expect(tests.getByTestId("test-run")).toContainText(/[01] of 1 passed/);
  await expect(tests.getByTestId("test-run")).toContainText("14 days");
});

test("the executions log loads more by cursor", async ({ page }) => {
  const { orgKey } = await signedInDemo(page);
  const { appId } = await seedApp(page.request, orgKey.secret);
  for (let i = 0; i < 26; i++)
    await post(page.request, orgKey.secret, `/apps/${appId}/conversation`, { message: `Refunds? ${i}` });
  await page.goto("/executions");
  const rows = page.getByTestId("execution-row");
  await expect(rows).toHaveCount(25);
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(rows).toHaveCount(26);
  await expect(page.getByRole("button", { name: "Load more" })).toHaveCount(0);
});
