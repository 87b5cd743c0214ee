// Issue 27 in the browser, at desktop and phone size: alice's app answers through an
// OpenAI-compatible stand-in started here that writes slowly, so she can stop a reply halfway
// (the run ends `canceled`, the partial answer stays); a file dropped or pasted on the composer
// becomes a chip to send, one of a type chats do not take is refused in words; the history drawer finds, renames and deletes her conversations; and the
// portal speaks French to a browser that asks for French, German when the portal's default is
// German and the browser asks for neither, and remembers a language picked from its menu.
// Axe checks each state, with no serious or critical violation.
import { expect, test, type Page } from "@playwright/test";
import { startFakeOpenAI, type FakeOpenAI } from "../tests/fake-openai";
import {
  api,
  latestSignInCode,
  portalSignIn,
  provisionPortalUser,
  screenshot,
  seriousA11yViolations,
  signIn,
} from "./fixtures";

const VIEWPORTS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
];
const SHORT = "We are open from nine to five, Monday to Friday.";
const LONG = Array.from({ length: 120 }, (_, i) => `word${i}`).join(" ");

let fake: FakeOpenAI;
test.beforeAll(async () => {
  // About 10 seconds for the long reply: time to press Stop, short enough to finish otherwise.
  fake = await startFakeOpenAI((messages) => (messages.at(-1)?.content.includes("story") ? LONG : SHORT), {
    tokenDelayMs: 80,
  });
});
test.afterAll(() => fake.close());

/** An organization whose Support app answers through the stand-in, a portal, and an end user granted the app there. */
async function provision(page: Page, slug: string, email: string, portal: { defaultLanguage?: string } = {}) {
  return provisionPortalUser(page, {
    slug,
    email,
    portal,
    // Each test signs alice in its own way: through the door, or through the form.
    signedIn: false,
    prepare: async (demo) => {
      // Model providers are a console procedure: the owner's session adds the stand-in.
      await signIn(page, demo.login);
      const provider = await page.request.post("/api/trpc/modelProviders.create", {
        data: {
          slug: "slow",
          kind: "openai-compatible",
          name: "Slow server",
          baseUrl: fake.baseURL,
          models: [{ id: "fake-chat", kind: "chat" }],
        },
      });
      expect(provider.status(), await provider.text()).toBe(200);
    },
    agent: { name: "Support agent", description: "Opening hours and stories", model: "slow/fake-chat" },
    app: { name: "Support", orchestrationMode: "supervisor", api: { greeting: "Hi! How can I help?" } },
  });
}

/**
 * The page does not scroll sideways, and the header's items (name, navigation, sign out, language
 * menu) stay inside it, overlap none of the others and take at most two rows: French and German
 * words are longer than English ones.
 */
async function expectHeaderFits(page: Page) {
  const layout = await page.evaluate(() => {
    const header = document.querySelector(".portal-header")!;
    const box = (el: Element) => {
      const { left, right, top, bottom } = el.getBoundingClientRect();
      return { left, right, top, bottom };
    };
    return {
      pageWidth: document.documentElement.scrollWidth,
      viewportWidth: document.documentElement.clientWidth,
      header: box(header),
      items: [...header.querySelectorAll(".portal-brand, .portal-nav a, .portal-signout, .portal-language")].map(
        (el) => ({ name: (el as HTMLElement).innerText.split("\n")[0]!, ...box(el) }),
      ),
    };
  });
  expect(layout.pageWidth).toBeLessThanOrEqual(layout.viewportWidth);
  expect(layout.items.length).toBeGreaterThanOrEqual(2);
  const { header, items } = layout;
  const outside = items.filter(
    (i) => i.left < header.left || i.right > header.right || i.top < header.top || i.bottom > header.bottom,
  );
  expect(outside.map((i) => i.name)).toEqual([]);
  const overlapping = items.flatMap((a, n) =>
    items
      .slice(n + 1)
      .filter((b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5)
      .filter((b) => Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5)
      .map((b) => `${a.name} × ${b.name}`),
  );
  expect(overlapping).toEqual([]);
  // A new row starts with an item below every item of the row before.
  let rows = 0;
  let rowBottom = -Infinity;
  for (const item of [...items].sort((a, b) => a.top - b.top)) {
    if (item.top >= rowBottom - 0.5) {
      rows += 1;
      rowBottom = item.bottom;
    } else rowBottom = Math.max(rowBottom, item.bottom);
  }
  expect(rows, JSON.stringify(items)).toBeLessThanOrEqual(2);
}

async function expectAccessible(page: Page) {
  // Not waited for: a portal page is never without its title, even mid-navigation.
  expect(await page.title()).not.toBe("");
  expect(await seriousA11yViolations(page)).toEqual([]);
}

/** Drops (or pastes) a small file on the message box, as a person would from their files. */
async function giveFile(page: Page, how: "drop" | "paste", name = "notes.txt") {
  await page.getByRole("textbox", { name: "Message" }).evaluate(
    (box, [kind, fileName]) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(["order 1234"], fileName!, { type: "" }));
      if (kind === "drop") {
        box.dispatchEvent(new DragEvent("dragover", { bubbles: true, cancelable: true, dataTransfer: transfer }));
        box.dispatchEvent(new DragEvent("drop", { bubbles: true, cancelable: true, dataTransfer: transfer }));
      } else {
        box.dispatchEvent(new ClipboardEvent("paste", { bubbles: true, cancelable: true, clipboardData: transfer }));
      }
    },
    [how, name],
  );
}

async function send(page: Page, text: string) {
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill(text);
  await box.press("Enter");
}

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("alice is refused files in words, stops a slow reply halfway, and finds, renames and deletes conversations in the history drawer", async ({
      page,
    }) => {
      test.setTimeout(150_000);
      const slug = `stop-${viewport.name}`;
      const email = `alice.stop.${viewport.name}@customer.example`;
      const { demo, key, appId, endUserId } = await provision(page, slug, email);
      await portalSignIn(page.request, slug, demo.organization.id, email);
      await page.goto(`/p/${slug}/apps/${appId}`);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Support");

      // A dropped or pasted file becomes a chip (never opened by the browser or pasted as a path);
      // one of a type chats do not take is refused in words.
      await expect(page.getByRole("button", { name: "Attach files" })).toBeVisible();
      // The upload held back a moment: its progress runs along the chip's foot, and the remove
      // button stays where it was when the upload ends (a click aimed at it must not miss).
      const uploads = `**/api/portal/${slug}/files`;
      await page.route(uploads, async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 800));
        await route.continue();
      });
      await giveFile(page, "drop");
      const chip = page.getByTestId("attachment-chip");
      await expect(chip).toContainText("notes.txt");
      const remove = chip.getByRole("button", { name: "Remove notes.txt" });
      await expect(chip.locator("progress")).toBeVisible();
      const whileUploading = await remove.boundingBox();
      await expect(chip.locator("progress")).toHaveCount(0);
      expect(await remove.boundingBox()).toEqual(whileUploading);
      await page.unroute(uploads);
      await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("");
      await expect(page).toHaveURL(new RegExp(`/p/${slug}/apps/${appId}$`));
      await remove.click();
      await expect(chip).toHaveCount(0);
      await giveFile(page, "drop", "tool.exe");
      const refusal = page.getByTestId("composer-refused-file");
      await expect(refusal).toContainText("tool.exe can't be attached");
      await expectAccessible(page);
      await screenshot(page, "portal-chat-refused-file");
      await giveFile(page, "paste");
      await expect(chip).toContainText("notes.txt");
      await expect(refusal).toHaveCount(0);
      await chip.getByRole("button", { name: "Remove notes.txt" }).click();
      await expect(chip).toHaveCount(0);

      // A short answer, then a long one in the same conversation, stopped halfway: Stopped, the partial answer stays.
      await send(page, "When are you open?");
      await expect(page.getByTestId("message-assistant").last()).toContainText("nine to five");
      await expect(page).toHaveURL(/\?c=/);
      // Under the stored answer, what its turn took from alice's credits.
      await expect(page.getByTestId("turn-cost").last()).toHaveText("This answer used 1 credit");
      // A short conversation fits the screen: the page does not scroll, the composer sits at its foot.
      const fits = await page.evaluate(() => ({
        overflow: document.scrollingElement!.scrollHeight - window.innerHeight,
        composerBottom: document.querySelector("textarea")!.getBoundingClientRect().bottom,
        height: window.innerHeight,
      }));
      expect(fits.overflow).toBeLessThanOrEqual(0);
      expect(fits.composerBottom).toBeGreaterThan(fits.height - 120);
      await screenshot(page, "portal-chat-turn-cost");
      await send(page, "Tell me a long story");
      const streaming = page.getByTestId("message-streaming");
      await expect(streaming).toContainText("word5");
      await page.getByRole("button", { name: "Stop" }).click();
      await expect(streaming.getByTestId("stopped")).toHaveText("Stopped");
      const partial = (await streaming.innerText()).replace("Stopped", "").trim();
      expect(partial).toMatch(/^word0 word1/);
      expect(partial).not.toContain("word119");
      await expect(page.getByRole("button", { name: "Send" })).toBeVisible();
      await expectAccessible(page);
      await screenshot(page, "portal-chat-stopped");
      // It stays as far as it got: no more text arrives after the stop.
      await page.waitForTimeout(1500);
      expect((await streaming.innerText()).replace("Stopped", "").trim()).toBe(partial);
      // The run ended canceled on the server (and was billed, since it ran).
      const statuses = async () =>
        (await api(page.request, key, "GET", `/executions?endUserId=${endUserId}&limit=10`)).executions
          .map((e: { status: string }) => e.status)
          .sort();
      await expect.poll(statuses).toEqual(["canceled", "succeeded"]);

      // A second conversation, then the history drawer: both, newest first; search, rename, delete.
      await page.getByRole("button", { name: "New conversation" }).click();
      await send(page, "Do you ship abroad?");
      await expect(page.getByTestId("message-assistant").last()).toContainText("nine to five");
      await page.getByRole("button", { name: "History" }).click();
      const drawer = page.locator("#chat-history");
      await expect(drawer).toBeVisible();
      const rows = drawer.getByTestId("portal-conversation");
      await expect(rows).toHaveCount(2);
      await expect(rows.first()).toContainText("Do you ship abroad?");
      await expectAccessible(page);
      await screenshot(page, "portal-chat-history");

      // Search matches titles and messages' text: both replies say "open", one question says "abroad".
      const search = drawer.getByRole("searchbox", { name: "Search your conversations" });
      await search.fill("OPEN");
      await expect(rows).toHaveCount(2);
      await search.fill("abroad");
      await expect(rows).toHaveCount(1);
      await rows.first().getByRole("button", { name: "Rename “Do you ship abroad?”" }).click();
      await drawer.getByRole("textbox", { name: "Conversation title" }).fill("Shipping");
      await drawer.getByRole("button", { name: "Save" }).click();
      await expect(rows.first()).toContainText("Shipping");

      await search.fill("");
      await expect(rows).toHaveCount(2);
      await rows
        .filter({ hasText: "When are you open?" })
        .getByRole("button", { name: /^Delete/ })
        .click();
      await expect(drawer.getByText("Delete this conversation?")).toBeVisible();
      await expectAccessible(page);
      await screenshot(page, "portal-chat-history-delete");
      await drawer
        .getByRole("group", { name: "Delete this conversation?" })
        .getByRole("button", { name: "Delete" })
        .click();
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toContainText("Shipping");
      // Deleted for her, after a reload too; the organization's executions stay.
      await page.goto(`/p/${slug}/conversations`);
      await expect(page.getByTestId("portal-conversation")).toHaveCount(1);
      expect(await statuses()).toEqual(["canceled", "succeeded", "succeeded"]);
    });

    test.describe("in French", () => {
      test.use({ locale: "fr-FR" });

      test("a browser asking for French gets the portal in French, dates and numbers too; the menu switches language and remembers it", async ({
        page,
      }) => {
        test.setTimeout(120_000);
        const slug = `fr-${viewport.name}`;
        const email = `alice.fr.${viewport.name}@customer.example`;
        const { demo, appId } = await provision(page, slug, email);

        // Sign-in, in French, through the form.
        await page.goto(`/p/${slug}`);
        await expect(page).toHaveURL(new RegExp(`/p/${slug}/sign-in`));
        await expect(page.locator("html")).toHaveAttribute("lang", "fr");
        await expect(page.getByRole("heading", { level: 1 })).toHaveText("Connexion à Help Center");
        await expect(page).toHaveTitle("Connexion · Help Center");
        await expectAccessible(page);
        await screenshot(page, "portal-fr-sign-in");
        await page.getByLabel("E-mail").fill(email);
        await page.getByRole("button", { name: "M'envoyer un code" }).click();
        await expect(page.getByRole("status")).toContainText(`Un code à 6 chiffres est en route vers ${email}`);
        const code = await latestSignInCode(demo.organization.id, email);
        await page.getByLabel("Code à 6 chiffres").fill(code === "000000" ? "111111" : "000000");
        await page.getByRole("button", { name: "Se connecter", exact: true }).click();
        await expect(page.getByRole("main").getByRole("alert")).toHaveText(
          "Ce code est erroné ou a expiré. Demandez-en un nouveau.",
        );
        await page.getByLabel("Code à 6 chiffres").fill(code);
        await page.getByRole("button", { name: "Se connecter", exact: true }).click();

        // Home: greeting, apps, credits with French plurals and dates.
        await expect(page.getByRole("heading", { level: 1 })).toHaveText("Bonjour, Alice Martin");
        await expect(page).toHaveTitle("Applications · Help Center");
        await expect(page.getByRole("heading", { name: "Vos applications" })).toBeVisible();
        await expect(page.getByTestId("credits-left")).toHaveText("20 crédits restants");
        await expect(page.getByTestId("credit-plan")).toContainText(/renouvelés le \d{1,2} [a-zéû]+ \d{4}/);
        await expectHeaderFits(page);
        await expectAccessible(page);
        await screenshot(page, "portal-fr-home");

        // Chat: the composer, the reply's actions, the credits under it.
        await page.getByRole("link", { name: "Support" }).click();
        await expect(page).toHaveTitle("Discussion · Help Center");
        const box = page.getByRole("textbox", { name: "Message" });
        await expect(box).toHaveAttribute("placeholder", "Écrire à Support…");
        await box.fill("Quels sont vos horaires ?");
        await page.getByRole("button", { name: "Envoyer" }).click();
        await expect(page.getByTestId("message-assistant").last()).toContainText("nine to five");
        await expect(page.getByRole("group", { name: "Actions sur la réponse" }).last()).toBeVisible();
        await expect(page.getByTestId("chat-credits-left")).toHaveText("19 crédits restants");
        await expect(page.getByRole("button", { name: "Historique" })).toBeVisible();
        // A rating the server did not store says so, in French, and is sent again on request.
        const answer = page.getByTestId("message-assistant").last();
        await page.route(/conversations\.feedback/, (route) => route.fulfill({ status: 503, body: "" }));
        await answer.getByRole("button", { name: "Utile", exact: true }).click();
        await expect(answer.getByRole("alert")).toHaveText("Votre avis n'a pas été enregistré. Réessayer");
        await page.unroute(/conversations\.feedback/);
        const ratingSaved = page.waitForResponse(
          (response) => response.url().includes("conversations.feedback") && response.ok(),
        );
        await answer.getByRole("button", { name: "Réessayer" }).click();
        await ratingSaved;
        await expect(answer.getByRole("alert")).toHaveCount(0);
        await expectHeaderFits(page);
        await expectAccessible(page);
        await screenshot(page, "portal-fr-chat");

        // The language menu: English now, and still after a reload (remembered on this browser).
        await page.getByRole("combobox", { name: "Langue" }).selectOption("en");
        await expect(page.getByRole("button", { name: "History" })).toBeVisible();
        await expect(page.locator("html")).toHaveAttribute("lang", "en");
        await page.reload();
        await expect(page.getByRole("button", { name: "New conversation" })).toBeVisible();
        await expect(page.locator("html")).toHaveAttribute("lang", "en");
        await expect(page.getByTestId("chat-credits-left")).toHaveText("19 credits left");
        expect(page.url()).toContain(`/apps/${appId}`);
      });
    });

    test.describe("in a language the portal does not speak", () => {
      test.use({ locale: "ja-JP" });

      test("the portal's default language is used: German here, its header in two rows on a phone", async ({
        page,
      }) => {
        const slug = `de-${viewport.name}`;
        const email = `alice.de.${viewport.name}@customer.example`;
        const { demo } = await provision(page, slug, email, { defaultLanguage: "de" });
        await page.goto(`/p/${slug}/sign-in`);
        await expect(page.locator("html")).toHaveAttribute("lang", "de");
        await expect(page.getByRole("heading", { level: 1 })).toHaveText("Bei Help Center anmelden");
        await expect(page.getByRole("button", { name: "Code senden" })).toBeVisible();
        await expectHeaderFits(page);
        await expectAccessible(page);
        await screenshot(page, "portal-de-sign-in");

        await portalSignIn(page.request, slug, demo.organization.id, email);
        await page.goto(`/p/${slug}/conversations`);
        await expect(page.getByRole("heading", { level: 1 })).toHaveText("Ihre Unterhaltungen");
        await expect(page.getByRole("button", { name: "Abmelden" })).toBeVisible();
        await expect(page.getByRole("combobox", { name: "Sprache" })).toHaveValue("de");
        await expectHeaderFits(page);
        await expectAccessible(page);
        await screenshot(page, "portal-de-conversations");
      });
    });
  });
}
