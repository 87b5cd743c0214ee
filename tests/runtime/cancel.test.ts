// A streaming client that hangs up cancels the run: the provider stream stops, the execution is
// recorded as canceled (the contract's one spelling), and only what ran is charged.
import { afterAll, beforeAll, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { restHandler } from "../helpers";
import { credits, publishedApp } from "../runtime-helpers";

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI(() => "one two three four five six seven eight nine ten eleven twelve", { tokenDelayMs: 100 });
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_MODELS = "slow-model";
});

afterAll(() => fake.close());

it("cancels the run when the client disconnects and records it as canceled", async () => {
  const app = await publishedApp({ billingModel: "slow-model" });
  const before = await credits(app.tenant);
  const client = new AbortController();
  const response = await restHandler()(
    new Request(`http://localhost/api/v1/apps/${app.appId}/conversation`, {
      method: "POST",
      headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "How long do refunds take?", stream: true }),
      signal: client.signal,
    }),
  );
  const reader = response.body!.getReader();
  // The stream opens with a comment line as the run starts; hang up once the reply is arriving.
  let received = "";
  while (!received.includes("event: delta")) received += new TextDecoder().decode((await reader.read()).value);
  client.abort();
  await reader.cancel();

  const deadline = Date.now() + 5_000;
  let execution = null;
  while (!execution && Date.now() < deadline) {
    execution = await getDb().execution.findFirst({ where: { organizationId: app.tenant.organization.id } });
    if (!execution) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(execution).toMatchObject({ status: "canceled", credits: 1 });
  expect(execution!.latencyMs).toBeLessThan(1_000);
  expect(await credits(app.tenant)).toBe(before - 1);
  expect(await getDb().conversationMessage.count({ where: { conversation: { organizationId: app.tenant.organization.id } } })).toBe(0);
});
