// Issue 16 point 1 in the console: an admin adds an OpenAI-compatible provider pointing at a fake
// server started here on 127.0.0.1, edits its models keeping the stored key (an empty key field
// keeps it), a builder picks its model in an agent and publishes, and the chat shows the fake
// model's reply. The key never comes back to the page. At both sizes.
import { expect, test, type Page } from "@playwright/test";
import { startFakeOpenAI, type FakeOpenAI } from "../tests/fake-openai";
import { api, screenshot, seriousA11yViolations, signedInDemo } from "./fixtures";

const VIEWPORTS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
];
const KEY = "e2e-provider-key-secret";
const REPLY = "Hello from the fake model on this machine.";
let fake: FakeOpenAI;

test.beforeAll(async () => {
  fake = await startFakeOpenAI(() => REPLY);
});
test.afterAll(() => fake.close());

async function expectReadable(page: Page) {
  // A toast fading in is read as low contrast: close them first.
  for (const close of await page.getByRole("button", { name: "Close toast" }).all()) await close.click();
  await expect(page.locator("[data-sonner-toast]")).toHaveCount(0);
  expect(await seriousA11yViolations(page)).toEqual([]);
  // Nothing scrolls sideways: wide tables scroll inside their own box.
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
}

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("add a provider, edit its models keeping the key, pick its model in an agent, publish and chat", async ({
      page,
    }) => {
      const { orgKey } = await signedInDemo(page);
      await page.goto("/settings/providers");
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Model providers");

      const add = page.getByRole("form", { name: "Add a provider" });
      await add.getByLabel("Slug").fill("local");
      await add.getByLabel("Name").fill("Local server");
      await add.getByLabel("Base URL").fill(fake.baseURL);
      await add.getByLabel("API key").fill(KEY);
      await add.getByLabel("Chat models").fill("fake-chat");
      await add.getByRole("button", { name: "Add provider" }).click();
      const row = page.getByTestId("provider-row");
      await expect(row).toContainText("local/fake-chat");
      await expect(row).toContainText("stored");

      // Editing: the key field is empty and says an empty field keeps the stored key.
      await row.getByRole("button", { name: "Edit" }).click();
      const edit = page.getByRole("form", { name: "Edit Local server" });
      await expect(edit.getByLabel("API key")).toHaveValue("");
      await expect(edit).toContainText("Leave this empty to keep it");
      await edit.getByLabel("Chat models").fill("fake-chat, fake-large");
      await expectReadable(page);
      await screenshot(page, "providers-edit");
      await edit.getByRole("button", { name: "Save changes" }).click();
      await expect(page.getByRole("form", { name: "Add a provider" })).toBeVisible();
      await expect(row).toContainText("local/fake-large");
      await expect(row).toContainText("stored");
      expect(await page.content()).not.toContain(KEY);
      await expectReadable(page);
      await screenshot(page, "providers");

      // A builder picks the provider's model in an agent, then publishes it.
      const { agent } = await api(page.request, orgKey.secret, "POST", "/agents", { name: "Local agent" });
      await page.goto(`/agents/${agent.id}`);
      const model = page.getByLabel("Model", { exact: true });
      await model.selectOption({ label: "Local server: fake-chat" });
      await expect(page.getByTestId("save-state")).toHaveText("Saved");
      await expect(model).toHaveValue("local/fake-chat");
      await screenshot(page, "agent-model-picker");
      await page.getByRole("button", { name: "Publish agent" }).click();
      await expect(page.getByTestId("version-1")).toContainText("Live");

      const { app } = await api(page.request, orgKey.secret, "POST", "/apps", {
        name: "Local app",
        members: [{ id: agent.id, kind: "agent" }],
      });
      await api(page.request, orgKey.secret, "POST", `/apps/${app.id}/publish`, {});
      await page.goto(`/chat/${app.id}`);
      await page.getByRole("textbox", { name: "Message" }).fill("Say hello");
      await page.getByRole("button", { name: "Send", exact: true }).click();
      await expect(page.getByTestId("message-assistant").last()).toContainText(REPLY);
      // The call reached the fake server for the picked model, with the key kept through the edit.
      const call = fake.requests.findLast((request) =>
        request.messages.some((message) => message.content === "Say hello"),
      );
      expect(call).toMatchObject({ model: "fake-chat", authorization: `Bearer ${KEY}` });
    });
  });
}
