// Many streams at once against a provider that sends its tokens in bursts (issue 53): the server
// passes on the tokens a read brings as one delta and stores the events of all its runs together,
// yet each client, reading the REST door's Server-Sent Events with a standard SSE parser, gets the
// whole reply in order, with consecutive ids, and a replay of the run's events gives the same
// events with the same ids.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { EventSourceMessage } from "eventsource-parser";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { restHandler } from "../helpers";
import { deltaText, publishedApp, readEvents } from "../runtime-helpers";

const REPLY = Array.from({ length: 300 }, (_, i) => `word${i}`).join(" ");
const STREAMS = 12;
let fake: FakeOpenAI;

beforeAll(async () => {
  // No pause between tokens: each reply's tokens reach the server in a few reads.
  fake = await startFakeOpenAI(() => REPLY);
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_MODELS = "burst-model";
});

afterAll(() => fake.close());

const ids = (events: EventSourceMessage[]) => events.map((event) => Number(event.id));

it("each of many concurrent streams gets the whole reply in order, as a replay of its run gives it", async () => {
  const app = await publishedApp({ billingModel: "burst-model" });
  const request = (path: string, body?: unknown) =>
    restHandler()(
      new Request(`http://localhost/api/v1/apps/${app.appId}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  const streams = await Promise.all(
    Array.from({ length: STREAMS }, async () => {
      const response = await request("/conversation", { message: "How long do refunds take?", stream: true });
      expect(response.status).toBe(200);
      return readEvents(response);
    }),
  );
  for (const events of streams) {
    expect(events[0]!.event).toBe("run");
    expect(events.at(-1)!.event).toBe("done");
    expect(deltaText(events)).toBe(REPLY);
    expect(JSON.parse(events.at(-1)!.data).reply).toBe(REPLY);
    expect(ids(events)).toEqual(events.map((_, i) => i + 1));

    const { execution_id: executionId } = JSON.parse(events[0]!.data) as { execution_id: string };
    const replay = await readEvents(await request(`/conversation/runs/${executionId}/events`));
    expect(replay.map(({ id, event, data }) => ({ id, event, data }))).toEqual(
      events.map(({ id, event, data }) => ({ id, event, data })),
    );
  }
});
