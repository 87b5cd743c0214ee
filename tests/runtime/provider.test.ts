// The real-provider path end to end: an app whose agent runs on an OpenAI-compatible model
// (a local server speaking the protocol), streamed token by token; an upstream failure is a
// server_error and charges nothing.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { restHandler } from "../helpers";
import { converse, credits, publishedApp, readEvents } from "../runtime-helpers";

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI(() => "Refunds take fourteen days, says the provider.");
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_MODELS = "gpt-test";
});

afterAll(() => fake.close());

it("streams a provider model's tokens as delta events", async () => {
  const app = await publishedApp({ billingModel: "gpt-test" });
  const response = await restHandler()(
    new Request(`http://localhost/api/v1/apps/${app.appId}/conversation`, {
      method: "POST",
      headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "How long do refunds take?", stream: true }),
    }),
  );
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  expect(events.at(-1)!.event).toBe("done");
  const deltas = events.filter((e) => e.event === "delta").map((e) => JSON.parse(e.data).text as string);
  expect(deltas.length).toBeGreaterThan(3);
  expect(deltas.join("")).toBe("Refunds take fourteen days, says the provider.");
  const upstream = fake.requests.filter((r) => r.stream);
  expect(upstream.length).toBeGreaterThan(0);
  expect(upstream[0]!.messages[0]!.content).toContain("Refunds are paid within 14 days");
});

it("answers server_error and charges nothing when the provider fails", async () => {
  const app = await publishedApp({ billingModel: "gpt-test", app: { orchestrationMode: "sequential" } });
  const before = await credits(app.tenant);
  fake.failWith(500);
  try {
    const response = await converse(app.key, app.appId, { message: "How long do refunds take?" });
    expect(response.status).toBe(500);
    expect(response.body.error.code).toBe("server_error");
    expect(JSON.stringify(response.body)).not.toContain("upstream is down");
  } finally {
    fake.failWith(null);
  }
  expect(await credits(app.tenant)).toBe(before);
});
