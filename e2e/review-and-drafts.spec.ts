// Issue 15, points 3 and 7 in a browser at a desk and on a phone: what a person types survives
// leaving the page (a knowledge page, an invalid flow), and a reviewer filters, rejects with a
// reason, sees a stale proposal flagged and approves in bulk.
import { expect, test, type Page } from "@playwright/test";
import { admin, api, draftNodes, screenshot, seedDemo, signIn } from "./fixtures";

const SIZES = [
  { name: "desk", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
];

/** Leaving with unsaved text asks first (beforeunload); the test says "leave". */
function acceptLeaving(page: Page) {
  page.on("dialog", (dialog) => void dialog.accept());
}

for (const size of SIZES) {
  test.describe(`at ${size.width}×${size.height}`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test("knowledge page text typed and not saved survives leaving and coming back; the page is in the URL", async ({
      page,
    }) => {
      const demo = await seedDemo();
      const kb = (await api(page.request, demo.orgKey.secret, "POST", "/knowledgebases", { name: "Runbooks" }))
        .knowledgebase;
      const created = (
        await api(page.request, demo.orgKey.secret, "POST", `/knowledgebases/${kb.id}/pages`, {
          title: "Restart",
          markdown: "Old text.",
        })
      ).page;
      await signIn(page, demo.login);
      acceptLeaving(page);
      await page.goto(`/knowledge/${kb.id}?page=${created.id}`);
      await expect(page.getByLabel("Markdown")).toHaveValue("Old text.");
      await page.getByLabel("Markdown").fill("Old text.\n\nA new paragraph I have not saved.");
      await expect(page.getByTestId("page-save-state")).toContainText("Not saved yet");

      await page.goto("/reviews");
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Reviews");
      await page.goBack();
      await expect(page.getByLabel("Markdown")).toHaveValue("Old text.\n\nA new paragraph I have not saved.");
      await expect(page.getByTestId("restored-page")).toBeVisible();
      await screenshot(page, "knowledge-restored");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await expect(page.getByTestId("page-save-state")).toHaveText("Saved");
      await page.reload();
      await expect(page.getByLabel("Markdown")).toHaveValue("Old text.\n\nA new paragraph I have not saved.");
      await expect(page.getByTestId("restored-page")).toHaveCount(0);
    });

    test("an invalid flow is kept in the browser, marked not saved and why, and saved once it is fixed", async ({
      page,
    }) => {
      const demo = await seedDemo();
      const flow = (
        await api(page.request, demo.orgKey.secret, "POST", "/flows", {
          name: "Triage",
          nodes: [
            { id: "start", type: "trigger_start", data: {} },
            { id: "answer", type: "output", data: { value: "Answer" } },
          ],
        })
      ).flow;
      await signIn(page, demo.login);
      acceptLeaving(page);
      const phone = size.width < 900;
      /** The second step's settings: in the inspector beside the list at a desk, in a sheet on a phone. */
      const openAnswer = async () => {
        await page
          .getByTestId("flow-step")
          .nth(1)
          .getByRole("button", { name: /^Open / })
          .click();
        return phone
          ? page.getByRole("dialog", { name: "Step settings" })
          : page.getByRole("complementary", { name: "Inspector" });
      };
      const closeSheet = async () => {
        if (phone) await page.getByRole("button", { name: "Close step settings" }).click();
      };
      // The old address of the list lands in the studio's list of steps.
      await page.goto(`/flows/${flow.id}?view=list`);
      await expect(page).toHaveURL(`/flows/${flow.id}/studio?view=list`);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Triage");
      // Two steps with one id: the server would refuse it, so it is not sent.
      await (await openAnswer()).getByLabel("Node id").fill("start");
      await closeSheet();
      await expect(page.getByTestId("save-state")).toHaveText("Not saved (kept in this browser)");
      await expect(page.getByTestId("save-problem")).toContainText("used more than once");

      await page.goto("/flows");
      await page.goto(`/flows/${flow.id}/studio?view=list`);
      await expect(page.getByTestId("restored-edits")).toBeVisible();
      await expect(page.getByTestId("save-problem")).toContainText("used more than once");
      await screenshot(page, "flow-kept");

      const fields = await openAnswer();
      await expect(fields.getByLabel("Node id")).toHaveValue("start");
      await fields.getByLabel("Node id").fill("answer");
      await closeSheet();
      await expect(page.getByTestId("save-state")).toHaveText("Saved");
      await expect(page.getByTestId("save-problem")).toHaveCount(0);
      await page.reload();
      await expect(page.getByTestId("flow-step")).toHaveCount(2);
      await expect(page.getByTestId("restored-edits")).toHaveCount(0);
      expect((await draftNodes(page, demo.orgKey.secret, flow.id)).map((node) => node.id)).toEqual(["start", "answer"]);
    });

    test("a reviewer filters, sees a stale proposal, rejects with a reason and approves the rest in bulk", async ({
      page,
    }) => {
      const demo = await seedDemo();
      const key = demo.orgKey.secret;
      const kb = (await api(page.request, key, "POST", "/knowledgebases", { name: "Handbook" })).knowledgebase;
      const live = (
        await api(page.request, key, "POST", `/knowledgebases/${kb.id}/pages`, {
          title: "Holidays",
          markdown: "We close on Sundays.",
        })
      ).page;
      await admin("org", "update", "--org", demo.organization.id, "--review-agent-writes", "true");
      await api(page.request, key, "PATCH", `/knowledgebases/${kb.id}/pages/${live.id}`, {
        patch: [{ op: "replace", oldString: "Sundays", newString: "Sundays and Mondays" }],
      });
      await api(page.request, key, "POST", `/knowledgebases/${kb.id}/pages`, {
        title: "Parking",
        markdown: "Park behind the building.",
      });
      await api(page.request, key, "POST", `/knowledgebases/${kb.id}/pages`, { title: "Spam", markdown: "Buy now." });
      await signIn(page, demo.login);
      // Someone edits the live page by hand after the proposal.
      await page.request.post("/api/trpc/knowledge.savePage", {
        data: { knowledgebaseId: kb.id, pageId: live.id, markdown: "We close at weekends." },
      });

      await page.goto("/reviews");
      const cards = page.getByTestId("review");
      await expect(cards).toHaveCount(3);
      const stale = cards.filter({ hasText: "Holidays" });
      await expect(stale.getByRole("note")).toContainText("The page changed since this was proposed");
      await expect(stale.getByTestId("diff").locator("ins")).toHaveText(" and Mondays");

      await page.getByLabel("Kind").selectOption({ label: "New page" });
      await expect(page).toHaveURL(/kind=page_create/);
      await expect(cards).toHaveCount(2);
      await screenshot(page, "reviews-filtered");

      const spam = cards.filter({ hasText: "Spam" });
      await spam.getByRole("button", { name: "Reject" }).click();
      await page
        .getByRole("dialog")
        .getByLabel(/Reason/)
        .fill("Advertising, not documentation.");
      await page.getByRole("dialog").getByRole("button", { name: "Reject" }).click();
      await expect(cards).toHaveCount(1);

      await page.getByLabel("Kind").selectOption({ label: "All kinds" });
      await expect(cards).toHaveCount(2);
      await page.getByLabel(/Select all shown/).check();
      await page.getByRole("button", { name: "Approve selected (2)" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
      await expect(page.getByTestId("bulk-failures")).toContainText("Holidays");
      await expect(cards).toHaveCount(1);
      await screenshot(page, "reviews-bulk");

      await page.getByRole("tab", { name: "Rejected" }).click();
      await expect(page).toHaveURL(/status=rejected/);
      await expect(cards.filter({ hasText: "Spam" })).toContainText("Reason: Advertising, not documentation.");
      await page.getByRole("tab", { name: "Approved" }).click();
      await expect(cards.filter({ hasText: "Parking" })).toBeVisible();
      await screenshot(page, "reviews-approved");
    });
  });
}

test("a builder attaches a knowledgebase to an agent by its name; the name links and the id is there to copy", async ({
  page,
}) => {
  const demo = await seedDemo();
  const key = demo.orgKey.secret;
  const kb = (await api(page.request, key, "POST", "/knowledgebases", { name: "Returns policy" })).knowledgebase;
  await api(page.request, key, "POST", "/knowledgebases", { name: "Shipping" });
  const agent = (await api(page.request, key, "POST", "/agents", { name: "Helper" })).agent;
  await signIn(page, demo.login);
  await page.goto(`/agents/${agent.id}`);
  await page.getByLabel("Attach a knowledgebase").fill("retu");
  await page.getByRole("button", { name: /Returns policy/ }).click();
  const attached = page.getByTestId("attached-knowledgebase");
  await expect(attached.getByRole("link", { name: "Returns policy" })).toHaveAttribute("href", `/knowledge/${kb.id}`);
  await expect(attached.getByRole("button", { name: "Copy id" })).toBeVisible();
  await expect(page.getByTestId("save-state")).toHaveText("Saved");
  const draft = await api(page.request, key, "GET", `/agents/${agent.id}/draft`);
  expect(draft.agent.knowledge.map((k: { knowledgebaseId: string }) => k.knowledgebaseId)).toEqual([kb.id]);
  await screenshot(page, "agent-knowledge-picker");
});
