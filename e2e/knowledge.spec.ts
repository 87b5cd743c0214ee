import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { admin, api, seedDemo, signedInDemo, signIn, VIEWPORTS } from "./fixtures";

test("create a page, edit it, approve a pending agent write from the review queue, see the page change", async ({
  page,
}) => {
  const demo = await seedDemo();
  const auth = { Authorization: `Bearer ${demo.orgKey.secret}` };
  const created = await page.request.post("/api/v1/knowledgebases", { headers: auth, data: { name: "Runbooks" } });
  expect(created.status()).toBe(201);
  const kbId = (await created.json()).knowledgebase.id as string;

  await signIn(page, demo.login);
  await page.goto("/knowledge");
  await page.getByRole("link", { name: "Runbooks" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Runbooks");

  // Create a page and edit it in the console: applied at once, with a revision.
  await page.getByLabel("New page title").fill("Restarting the service");
  await page.getByRole("button", { name: "Create page" }).click();
  const editor = page.getByLabel("Markdown");
  await expect(editor).toBeVisible();
  await editor.fill("# Restart\n\nRun the restart script.");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("revision")).toHaveCount(2);
  await page.getByRole("button", { name: "Preview" }).click();
  await expect(page.getByTestId("preview").getByRole("heading", { name: "Restart" })).toBeVisible();

  // An agent edits it with an API key in an organization that reviews agent writes.
  await admin("org", "update", "--org", demo.organization.id, "--review-agent-writes", "true");
  const index = await (await page.request.get(`/api/v1/knowledgebases/${kbId}`, { headers: auth })).json();
  const pageId = index.pages[0].id as string;
  const edit = await page.request.patch(`/api/v1/knowledgebases/${kbId}/pages/${pageId}`, {
    headers: auth,
    data: {
      patch: [
        {
          op: "replace",
          oldString: "Run the restart script.",
          newString: "Drain traffic first, then run the restart script.",
        },
      ],
    },
  });
  expect(edit.status()).toBe(202);
  const { reviewPath } = (await edit.json()) as { reviewPath: string };
  const live = await (
    await page.request.get(`/api/v1/knowledgebases/${kbId}/pages/${pageId}`, { headers: auth })
  ).json();
  expect(live.markdown).toBe("# Restart\n\nRun the restart script.");

  // The review queue shows it with a diff; approve it.
  await page.getByRole("navigation").getByRole("link", { name: "Reviews" }).click();
  const card = page.getByTestId("review").filter({ hasText: "Restarting the service" });
  // By word (the default): only the changed words are marked; by line: the whole lines.
  await expect(card.getByTestId("diff").locator("del")).toHaveText(["Run"]);
  await expect(card.getByTestId("diff").locator("ins")).toHaveText(["Drain", "traffic first, then run"]);
  await card.getByRole("button", { name: "Lines" }).click();
  await expect(card.getByTestId("diff")).toContainText("+ Drain traffic first, then run the restart script.");
  await expect(card.getByTestId("diff")).toContainText("- Run the restart script.");
  await card.getByRole("button", { name: "Approve" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText("Nothing pending.")).toBeVisible();

  // The page changed.
  await page.goto(reviewPath);
  await expect(page.getByTestId("review")).toContainText("approved");
  await page.goto(`/knowledge/${kbId}`);
  await page.getByTestId("page-link").filter({ hasText: "Restarting the service" }).click();
  await expect(page.getByLabel("Markdown")).toHaveValue(
    "# Restart\n\nDrain traffic first, then run the restart script.",
  );
  await expect(page.getByTestId("revision")).toHaveCount(3);
});

test("drag a page into a folder in the page tree", async ({ page }) => {
  const demo = await seedDemo();
  const auth = { Authorization: `Bearer ${demo.orgKey.secret}` };
  const kbId = (
    await (await page.request.post("/api/v1/knowledgebases", { headers: auth, data: { name: "Tree" } })).json()
  ).knowledgebase.id as string;
  const folder = (
    await (
      await page.request.post(`/api/v1/knowledgebases/${kbId}/pages`, {
        headers: auth,
        data: { title: "Ops", isFolder: true },
      })
    ).json()
  ).page.id as string;
  const child = (
    await (
      await page.request.post(`/api/v1/knowledgebases/${kbId}/pages`, { headers: auth, data: { title: "Checklist" } })
    ).json()
  ).page.id as string;
  await signIn(page, demo.login);
  await page.goto(`/knowledge/${kbId}`);
  await page
    .getByTestId("page-link")
    .filter({ hasText: "Checklist" })
    .dragTo(page.getByTestId("page-link").filter({ hasText: "Ops" }));
  await expect
    .poll(
      async () =>
        (await (await page.request.get(`/api/v1/knowledgebases/${kbId}/pages/${child}`, { headers: auth })).json())
          .parentPageId,
    )
    .toBe(folder);
});

test("the production server indexes uploaded PDF and CSV files and shows them ready in the sources table", async ({
  page,
}) => {
  const { PDFDocument, StandardFonts } = await import("pdf-lib");
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pdf.addPage([300, 200]).drawText("Aurora borealis field notes", { x: 20, y: 150, size: 12, font });
  const demo = await seedDemo();
  const auth = { Authorization: `Bearer ${demo.orgKey.secret}` };
  const kbId = (
    await (await page.request.post("/api/v1/knowledgebases", { headers: auth, data: { name: "Files" } })).json()
  ).knowledgebase.id as string;
  for (const file of [
    { name: "notes.pdf", mimeType: "application/pdf", buffer: Buffer.from(await pdf.save()) },
    { name: "prices.csv", mimeType: "text/csv", buffer: Buffer.from("item,price\nwidget,3\n") },
  ]) {
    const response = await page.request.post(`/api/v1/knowledgebases/${kbId}/sources`, {
      headers: auth,
      multipart: { file },
    });
    expect(response.status()).toBe(202);
  }
  await signIn(page, demo.login);
  await page.goto(`/knowledge/${kbId}`);
  await expect(page.getByTestId("source-row").filter({ hasText: "Ready" })).toHaveCount(2, { timeout: 20_000 });
  const search = await page.request.post(`/api/v1/knowledgebases/${kbId}/search`, {
    headers: auth,
    data: { query: "aurora" },
  });
  expect((await search.json()).results[0]).toMatchObject({ kind: "source", title: "notes.pdf" });
});

for (const viewport of VIEWPORTS) {
  test(`a URL source is set to be fetched weekly, then once, from its page (${viewport.name})`, async ({ page }) => {
    await page.setViewportSize(viewport);
    const site = http.createServer((_request, response) =>
      response
        .writeHead(200, { "Content-Type": "text/html" })
        .end("<html><head><title>Opening hours</title></head><body><p>Open 9 to 5 on weekdays.</p></body></html>"),
    );
    site.listen(0, "127.0.0.1");
    await once(site, "listening");
    try {
      const demo = await signedInDemo(page);
      const key = demo.orgKey.secret;
      const { knowledgebase } = await api(page.request, key, "POST", "/knowledgebases", { name: "Shop pages" });
      const { source } = await api(page.request, key, "POST", `/knowledgebases/${knowledgebase.id}/sources`, {
        url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/hours`,
      });
      await page.goto(`/knowledge/${knowledgebase.id}/sources/${source.id}`);
      const fresh = page.getByLabel("Kept fresh");
      await expect(fresh).toHaveValue("");
      await fresh.selectOption({ label: "Weekly" });
      await expect(page.getByText("Fetched again weekly.")).toBeVisible();
      await page.reload();
      await expect(page.getByLabel("Kept fresh")).toHaveValue("weekly");
      // A week from now, in words: "next Dec 15, 9:05 AM" (or early in a year, "next Jan 3, 2027").
      await expect(page.getByText(/next [A-Z][a-z]{2} \d{1,2}, /)).toBeVisible();
      await page.getByLabel("Kept fresh").selectOption({ label: "No, fetched once" });
      await expect(page.getByText("No longer fetched again.")).toBeVisible();
      expect(
        (await api(page.request, key, "GET", `/knowledgebases/${knowledgebase.id}/sources/${source.id}`)).source
          .refresh,
      ).toBeNull();
    } finally {
      site.closeAllConnections();
      site.close();
    }
  });
}
