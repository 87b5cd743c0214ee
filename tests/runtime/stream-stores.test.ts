// A trickling provider's tokens reach the client one by one as they come, while the run stores
// them at most every STORE_EVERY_MS (issue 53: a store of every token was most of the database
// work of 2,000 streams), a tick's deltas as one row: a reader that joins mid-run on the same
// process, a replay after the end and a resume after any event get the same events with the same ids.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createRestHandler } from "@/server/adapters/rest";
import { closeDb, createDb, type Db } from "@/server/db";
import { STORE_EVERY_MS } from "@/server/services/runs/run-events";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { deltaText, publishedApp, readEvents } from "../runtime-helpers";

const TOKENS = 24;
const TOKEN_MS = 25;
const REPLY = Array.from({ length: TOKENS }, (_, i) => `word${i}`).join(" ");
let fake: FakeOpenAI;
let db: Db;
const stores: string[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAI(() => REPLY, { tokenDelayMs: TOKEN_MS });
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_MODELS = "trickle-model";
  // A server process of its own, whose run-event stores are counted.
  db = createDb(process.env.DATABASE_URL!);
  db.pool.on("connect", (client) => {
    const send = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      const name = (args[0] as { name?: string }).name;
      if (name?.startsWith("atrium_store_run")) stores.push(name);
      return send(...args);
    };
  });
});

afterAll(async () => {
  await fake.close();
  await closeDb(db);
});

const ids = (events: EventSourceMessage[]) => events.map((event) => Number(event.id));
const shape = (events: EventSourceMessage[]) => events.map(({ id, event, data }) => ({ id, event, data }));

it("sends each token as it comes and stores the run's events a tick at a time", async () => {
  const app = await publishedApp({ billingModel: "trickle-model" });
  const handler = createRestHandler({ db: () => db });
  const request = (path: string, body?: unknown) =>
    handler(
      new Request(`http://localhost/api/v1/apps/${app.appId}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  stores.length = 0;
  const started = Date.now();
  const response = await request("/conversation", { message: "How long do refunds take?", stream: true });
  expect(response.status).toBe(200);
  // A reader that joins after the fourth event, on this process, while some of what was sent is
  // not stored yet.
  let joined: Promise<EventSourceMessage[]> | undefined;
  const events: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent: (event) => {
      events.push(event);
      if (events.length !== 4) return;
      const { execution_id: executionId } = JSON.parse(events[0]!.data) as { execution_id: string };
      joined = request(`/conversation/runs/${executionId}/events`).then(readEvents);
    },
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) parser.feed(read.value);
  const elapsed = Date.now() - started;
  const executionId = (JSON.parse(events[0]!.data) as { execution_id: string }).execution_id;

  expect(events.at(-1)!.event).toBe("done");
  expect(ids(events)).toEqual(events.map((_, i) => i + 1));
  expect(deltaText(events)).toBe(REPLY);
  // The tokens went out as they came (a read that brings two sends them as one), not a store's worth at a time.
  expect(events.filter((event) => event.event === "delta").length).toBeGreaterThanOrEqual(TOKENS / 2);
  expect(shape(await joined!)).toEqual(shape(events));
  // A store a tick, the final event's at once: far fewer than one a token.
  expect(stores.length).toBeLessThanOrEqual(Math.ceil(elapsed / STORE_EVERY_MS) + 2);
  expect(stores.length).toBeLessThan(TOKENS / 2);

  const replay = await readEvents(await request(`/conversation/runs/${executionId}/events`));
  expect(shape(replay)).toEqual(shape(events));

  // A tick's deltas are stored as one row holding their range of ids; a resume after any id,
  // inside a range or at its end, gets exactly the events after it.
  const { rows } = await db.pool.query<{ n: number }>(
    "select count(*)::int as n from conversation_run_events where run_id = $1",
    [executionId],
  );
  expect(rows[0]!.n).toBeLessThan(events.length / 2);
  for (let seen = 1; seen < events.length; seen++) {
    const resumed = await readEvents(await request(`/conversation/runs/${executionId}/events?lastEventId=${seen}`));
    expect(shape(resumed)).toEqual(shape(events.slice(seen)));
  }
}, 120_000);
