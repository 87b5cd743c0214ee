// Issue 32, the builder's workbench, at both sizes: the draft preview answers with the changed
// instructions (a fake model says which instructions it was given), a double-click on Publish
// makes one version, saving an unchanged page makes no revision, and leaving an edited portal
// form asks first and keeps the text when cancelled, and a form is disabled until the page has
// hydrated (text typed before would be lost).
import { expect, test, type Page } from "@playwright/test";
import { startFakeOpenAI, type FakeOpenAI } from "../tests/fake-openai";
import { api, screenshot, signedInDemo, VIEWPORTS } from "./fixtures";

let fake: FakeOpenAI;

test.beforeAll(async () => {
  fake = await startFakeOpenAI((messages) => {
    const system = messages.find((message) => message.role === "system")?.content ?? "";
    return `Answering ${/Speak (\w+)\./.exec(system)?.[1] ?? "plainly"}.`;
  });
});
test.afterAll(() => fake.close());

async function trpcCall(
  page: Page,
  procedure: string,
  input: unknown,
  kind: "query" | "mutation" = "mutation",
): Promise<any> {
  const response =
    kind === "query"
      ? await page.request.get(`/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`)
      : await page.request.post(`/api/trpc/${procedure}`, { data: input });
  if (!response.ok()) throw new Error(`${procedure}: ${response.status()} ${await response.text()}`);
  return (await response.json()).result.data;
}

/** A sidebar link, behind the Menu button on a phone. */
async function clickNavLink(page: Page, name: string, phone: boolean) {
  const link = page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true });
  // The menu stays open after a cancelled leave: open it only when it is folded.
  if (phone && !(await link.isVisible())) await page.getByRole("button", { name: "Menu" }).click();
  await link.click();
}

for (const viewport of VIEWPORTS) {
  const phone = viewport.name === "phone";
  test.describe(`at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("the draft preview answers with the changed instructions", async ({ page }) => {
      const { orgKey } = await signedInDemo(page);
      await trpcCall(page, "modelProviders.create", {
        slug: "local",
        kind: "openai-compatible",
        name: "Local",
        baseUrl: fake.baseURL,
        apiKey: "e2e-key",
        models: [
          { id: "chat", kind: "chat" },
          { id: "backup", kind: "chat" },
        ],
      });
      const { agent } = await api(page.request, orgKey.secret, "POST", "/agents", {
        name: "Greeter",
        model: "local/chat",
        systemInstruction: "Speak formally.",
      });
      await page.goto(`/agents/${agent.id}`);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Greeter");

      const preview = page.getByRole("region", { name: "Preview" });
      if (phone) await page.getByRole("tab", { name: "Preview" }).click();
      await preview.getByRole("textbox", { name: "Message" }).fill("Hello?");
      await preview.getByRole("button", { name: "Send" }).click();
      await expect(preview.getByTestId("message-assistant")).toHaveCount(1);
      await expect(preview.getByTestId("message-assistant").first()).toContainText("Answering formally.");
      // What the run cost: its credit and the tokens the provider reported.
      await expect(preview.getByTestId("preview-cost").first()).toHaveText("1 credit · 10 tokens in, 5 out");

      if (phone) await page.getByRole("tab", { name: "Edit" }).click();
      // A fallback model, picked from the same list as the model (which it does not offer again).
      const fallbacks = page.getByTestId("fallback-models");
      const addFallback = fallbacks.getByLabel("Add a fallback model");
      await expect(addFallback.locator(`option[value="local/chat"]`)).toHaveCount(0);
      await addFallback.selectOption("local/backup");
      await expect(fallbacks.getByRole("listitem")).toHaveCount(1);
      await expect(fallbacks.getByRole("listitem").first()).toContainText("local/backup");
      await expect(page.getByTestId("save-state")).toHaveText("Saved");
      expect((await api(page.request, orgKey.secret, "GET", `/agents/${agent.id}/draft`)).agent.fallbackModels).toEqual(
        ["local/backup"],
      );
      await fallbacks.scrollIntoViewIfNeeded();
      await screenshot(page, `workbench-fallbacks-${viewport.name}`);
      await page.getByLabel("System instruction").fill("Speak cheerfully.");
      await expect(page.getByTestId("save-state")).toHaveText("Saved");
      if (phone) await page.getByRole("tab", { name: "Preview" }).click();
      await preview.getByRole("textbox", { name: "Message" }).fill("Hello?");
      await preview.getByRole("button", { name: "Send" }).click();
      await expect(preview.getByTestId("message-assistant")).toHaveCount(2);
      await expect(preview.getByTestId("message-assistant").nth(1)).toContainText("Answering cheerfully.");
      // Both answers stay side by side to compare; the live version was never published.
      await expect(preview.getByTestId("message-assistant").first()).toContainText("Answering formally.");
      await screenshot(page, `workbench-preview-${viewport.name}`);
    });

    test("a double-click on Publish makes one version", async ({ page }) => {
      const { orgKey } = await signedInDemo(page);
      const { agent } = await api(page.request, orgKey.secret, "POST", "/agents", { name: "Once" });
      await page.goto(`/agents/${agent.id}`);
      if (phone) await expect(page.getByRole("tab", { name: "Edit" })).toBeVisible();
      await page.getByTestId("publish").dblclick();
      await expect(page.getByTestId("version-1")).toContainText("Live");
      await page.waitForTimeout(1_000);
      await expect(page.getByTestId("version-2")).toHaveCount(0);
      const { versions } = await api(page.request, orgKey.secret, "GET", `/agents/${agent.id}/versions`);
      expect(versions).toHaveLength(1);
      // Publishing again on purpose still makes another.
      await page.getByTestId("publish").click();
      await expect(page.getByTestId("version-2")).toContainText("Live");
    });

    test("saving an unchanged page makes no revision", async ({ page }) => {
      const { orgKey } = await signedInDemo(page);
      const { knowledgebase } = await api(page.request, orgKey.secret, "POST", "/knowledgebases", { name: "Handbook" });
      const created = await api(page.request, orgKey.secret, "POST", `/knowledgebases/${knowledgebase.id}/pages`, {
        title: "Hours",
        markdown: "Open 9 to 5.",
      });
      const input = { knowledgebaseId: knowledgebase.id, pageId: created.page.id };
      await trpcCall(page, "knowledge.savePage", { ...input, title: "Hours", markdown: "Open 9 to 5." });
      await trpcCall(page, "knowledge.savePage", { ...input, markdown: "Open 9 to 5." });
      expect((await trpcCall(page, "knowledge.revisions", input, "query")).revisions).toHaveLength(1);
    });

    test("leaving an edited portal form asks first and keeps the text when cancelled", async ({ page }) => {
      await signedInDemo(page);
      const { portal } = await trpcCall(page, "portals.create", { name: "Staff portal" });
      await page.goto(`/portals/${portal.id}`);
      const greeting = page.getByLabel("Greeting");
      await greeting.fill("Welcome, colleagues: ask anything about the office.");

      await clickNavLink(page, "Agents", phone);
      const dialog = page.getByRole("dialog", { name: "Leave without saving?" });
      await expect(dialog).toBeVisible();
      await screenshot(page, `workbench-leave-warning-${viewport.name}`);
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await expect(dialog).toBeHidden();
      await expect(page).toHaveURL(new RegExp(`/portals/${portal.id}$`));
      await expect(greeting).toHaveValue("Welcome, colleagues: ask anything about the office.");

      // Leaving on purpose goes.
      await clickNavLink(page, "Agents", phone);
      await dialog.getByRole("button", { name: "Leave and lose the edits" }).click();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Agents");
    });
  });
}

test("a form takes text only once the page can keep it: before its scripts run it is disabled", async ({ page }) => {
  await signedInDemo(page);
  // Without its scripts the page stays as the server rendered it: typing there would be reset by
  // hydration, and a submit would only reload the page.
  await page.route(/\/_next\/static\/chunks\//, (route) => route.abort());
  await page.goto("/apps");
  const name = page.getByRole("form", { name: "Create app" }).getByLabel("Name");
  await expect(name).toBeDisabled();
  await expect(page.getByRole("button", { name: "Create app" })).toBeDisabled();
  await page.unroute(/\/_next\/static\/chunks\//);
  await page.reload();
  await name.fill("Front desk");
  await page.getByRole("button", { name: "Create app" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Front desk");
});
