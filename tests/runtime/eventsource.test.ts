// A standard EventSource client (the `eventsource` package, with an Authorization header) on a
// run's events during a slow provider: its connection is cut, it reconnects by itself with
// Last-Event-ID, and the client pieces together the whole reply of one run, billed once.
// Uses the `eventsource` package (3.x, its `fetch` option carries the header), today only present
// through @modelcontextprotocol/sdk: it should become a direct dev dependency; skipped without it.
import { afterAll, beforeAll, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { restHandler } from "../helpers";
import { credits, publishedApp } from "../runtime-helpers";

const REPLY = "Refunds are paid within fourteen days of the request and shipping costs are not refunded at all";
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI(() => REPLY, { tokenDelayMs: 40 });
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_MODELS = "slow-model";
});

afterAll(() => fake.close());

interface EventSourceLike {
  addEventListener(type: string, listener: (event: { data: string; lastEventId: string }) => void): void;
  close(): void;
}
type EventSourceClass = new (
  url: string,
  init: { fetch: (url: string | URL, init: RequestInit) => Promise<Response> },
) => EventSourceLike;

it("reconnects by itself after a drop: the whole reply, one run, one charge", async (context) => {
  const loaded = (await import("eventsource" as string).catch(() => null)) as { EventSource: EventSourceClass } | null;
  if (!loaded) return context.skip();
  const app = await publishedApp({ billingModel: "slow-model" });
  const before = await credits(app.tenant);
  // The run starts with a POST whose client reads only its first event and leaves.
  const started = await restHandler()(
    new Request(`http://localhost/api/v1/apps/${app.appId}/conversation`, {
      method: "POST",
      headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "How long do refunds take?", stream: true }),
    }),
  );
  const reader = started.body!.pipeThrough(new TextDecoderStream()).getReader();
  let head = "";
  while (!/event: run\ndata: .*\n\n/.test(head)) head += (await reader.read()).value;
  await reader.cancel();
  const executionId = JSON.parse(/event: run\ndata: (.*)\n/.exec(head)![1]!).execution_id as string;

  const lastEventIds: (string | null)[] = [];
  const fetchThroughDoor = async (url: string | URL, init: RequestInit) => {
    const request = new Request(url, {
      ...init,
      headers: { ...Object.fromEntries(new Headers(init.headers)), authorization: `Bearer ${app.key}` },
    });
    lastEventIds.push(request.headers.get("last-event-id"));
    const response = await restHandler()(request);
    if (lastEventIds.length > 1 || !response.body) return response;
    // The first connection drops after three events.
    const source = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while ((text.match(/\n\n(?=id: |$)/g) ?? []).length < 4) text += (await source.read()).value;
    await source.cancel();
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) controller.error(new Error("connection reset"));
        else controller.enqueue(new TextEncoder().encode(text.slice(0, text.lastIndexOf("\n\n") + 2)));
        sent = true;
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };

  const source = new loaded.EventSource(
    `http://localhost/api/v1/apps/${app.appId}/conversation/runs/${executionId}/events`,
    { fetch: fetchThroughDoor },
  );
  const deltas: string[] = [];
  const done = await new Promise<{ reply: string; execution_id: string }>((resolve, reject) => {
    source.addEventListener("delta", (event) => deltas.push(JSON.parse(event.data).text));
    source.addEventListener("done", (event) => resolve(JSON.parse(event.data)));
    source.addEventListener("error", (event) => {
      if (event.data) reject(new Error(event.data));
    });
  });
  source.close();

  expect(lastEventIds.length).toBeGreaterThan(1);
  expect(lastEventIds[0]).toBeNull();
  expect(lastEventIds[1]).toMatch(/^\d+$/);
  expect(deltas.join("")).toBe(done.reply);
  expect(done).toMatchObject({ reply: REPLY, execution_id: executionId });
  expect(await getDb().execution.count({ where: { organizationId: app.tenant.organization.id } })).toBe(1);
  expect(await credits(app.tenant)).toBe(before - 1);
}, 30_000);
