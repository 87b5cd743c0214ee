// Approvals in the console, at both sizes: a flow's approval step pauses a refund; a member finds
// it from the home's "waiting for you" under Approvals, reads what the run wants to do (the step's
// message, its inputs and the variables so far), approves it with a comment after confirming, and
// the run continues to its end with the comment as the step's output. A second refund is rejected
// and its run fails.
import { expect, test, type Page } from "@playwright/test";
import { api, FIRST_VISIT, screenshot, signedInDemo, VIEWPORTS } from "./fixtures";
import { REFUND_INPUTS, REFUND_NODES } from "../tests/approval-fixtures";

/** A published app whose one member is the refund flow; returns a way to start a refund, which pauses. */
async function seedRefundDesk(page: Page) {
  const demo = await signedInDemo(page);
  const key = demo.orgKey.secret;
  const { flow } = await api(page.request, key, "POST", "/flows", {
    name: "Refunds",
    inputs: REFUND_INPUTS,
    nodes: REFUND_NODES,
  });
  await api(page.request, key, "POST", `/flows/${flow.id}/publish`, {});
  const { app } = await api(page.request, key, "POST", "/apps", {
    name: "Refund desk",
    members: [{ id: flow.id, kind: "flow" }],
    orchestrationMode: "sequential",
    api: { transactionEnabled: true },
  });
  await api(page.request, key, "POST", `/apps/${app.id}/publish`, {});
  const refund = async (customer: string, amount: number): Promise<string> => {
    const started = await api(page.request, key, "POST", `/apps/${app.id}/transaction`, {
      input: { customer, amount },
    });
    expect(started.status).toBe("awaiting_approval");
    return started.executionId as string;
  };
  const execution = async (id: string) =>
    (await api<{ execution: { status: string; output: string | null } }>(page.request, key, "GET", `/executions/${id}`))
      .execution;
  return { refund, execution };
}

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("a member approves one paused refund with a comment and rejects another", async ({ page }) => {
      const { refund, execution } = await seedRefundDesk(page);
      const approved = await refund("ana@example.com", 120);
      const rejected = await refund("bo@example.com", 900);

      // The home says what waits; its link leads to the approvals.
      await page.goto("/");
      const waiting = page.getByRole("region", { name: "Waiting for you" });
      await expect(waiting).toBeVisible();
      // It appears with the heading above it whole: nothing arriving later moves it under a finger.
      const link = waiting.getByRole("link", { name: "2 runs wait for approval" });
      const appeared = await link.boundingBox();
      await expect(page.getByTestId("credits-left")).toBeVisible();
      await expect(page.getByRole("region", { name: "Usage", exact: true })).toBeVisible();
      expect(await link.boundingBox()).toEqual(appeared);
      await screenshot(page, "home-waiting");
      await link.click();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Approvals", FIRST_VISIT);
      const rows = page.getByTestId("approval-row");
      await expect(rows).toHaveCount(2);
      await expect(rows.first()).toContainText("Refund desk");
      await rows.first().getByRole("link", { name: "Refund 120 EUR to ana@example.com?" }).click();

      // What the run wants to do, and why, before anyone decides.
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(
        "Refund 120 EUR to ana@example.com?",
        FIRST_VISIT,
      );
      await expect(page.getByText("Waiting for a decision")).toBeVisible();
      const facts = page.getByRole("region", { name: "What the run wants to do" });
      await expect(facts.getByRole("link", { name: "Refunds" })).toBeVisible();
      await expect(facts).toContainText("ana@example.com");
      await expect(facts).toContainText("120");
      await expect(page.getByRole("region", { name: "The run so far" })).toContainText("Awaiting approval · ");
      await screenshot(page, "approval-pending");

      // Approve, confirmed, with a comment the run reads as the step's output.
      await page.getByLabel("Comment (optional)").fill("receipt checked");
      await page.getByRole("button", { name: "Approve", exact: true }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Approve", exact: true }).click();
      await expect(page.getByText("Approved: the run continues.")).toBeVisible();
      await expect(facts).toContainText("receipt checked");
      await expect(page.getByRole("region", { name: "Your decision" })).toHaveCount(0);
      await expect.poll(async () => (await execution(approved)).status, { timeout: 20_000 }).toBe("succeeded");
      expect(JSON.parse((await execution(approved)).output ?? "{}")).toEqual({
        result: "refunded 120 (receipt checked)",
      });

      // The other is rejected: its run fails, nothing after the step runs.
      await page.getByRole("main").getByRole("link", { name: "Approvals" }).click();
      await expect(rows).toHaveCount(1);
      await rows.getByRole("link", { name: "Refund 900 EUR to bo@example.com?" }).click();
      await page.getByLabel("Comment (optional)").fill("over the limit");
      await page.getByRole("button", { name: "Reject", exact: true }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Reject", exact: true }).click();
      await expect(page.getByText("Rejected; the run failed")).toBeVisible();
      expect((await execution(rejected)).status).toBe("failed");
      await page.goto("/approvals");
      await expect(page.getByText("No run is waiting for an approval.")).toBeVisible();
    });
  });
}
