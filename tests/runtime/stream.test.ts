// Conversation streams as a standard SSE parser reads them:
// a comment at once, keep-alive comments, `id:` on every event, `step` events for each member,
// `execution_id` in `done`; an Idempotency-Key replays a finished stream instead of running and
// billing it again, and a key whose run still goes is 409 conflict.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.MODEL_PROVIDER_MODELS = "slow-model";
  process.env.MODEL_PROVIDER_NAME = "testai";
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

import { createRestHandler } from "@/server/adapters/rest";
import { getDb } from "@/server/db";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { credits, publishedApp } from "../runtime-helpers";

// A provider that sends a token every 30 ms: the stream is idle between them, so it keeps alive
// whatever the machine's speed (the built-in model alone can finish before the first read).
let provider: FakeOpenAI;
beforeAll(async () => {
  provider = await startFakeOpenAI(() => "Refunds take fourteen days.", { tokenDelayMs: 30 });
  process.env.MODEL_PROVIDER_BASE_URL = provider.baseURL;
});
afterAll(() => provider.close());

const handler = createRestHandler({ db: getDb, streamHeartbeatMs: 1 });

function streamRequest(
  key: string,
  appId: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return handler(
    new Request(`http://localhost/api/v1/apps/${appId}/conversation`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      body: JSON.stringify({ ...body, stream: true }),
    }),
  );
}

/** Events and comments in order, by eventsource-parser. */
async function read(
  response: Response,
): Promise<{ events: EventSourceMessage[]; comments: string[]; firstChunk: string }> {
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const parser = createParser({
    onEvent: (event) => events.push(event),
    onComment: (comment) => comments.push(comment.trim()),
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let firstChunk = "";
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    if (firstChunk === "") firstChunk = chunk.value;
    parser.feed(chunk.value);
  }
  return { events, comments, firstChunk };
}

describe("conversation streams", () => {
  it("opens with a comment, keeps alive, numbers every event, reports each member as steps and ends with done carrying the execution id", async () => {
    const app = await publishedApp({ app: { orchestrationMode: "sequential" }, billingModel: "slow-model" });
    const response = await streamRequest(app.key, app.appId, { message: "How long do refunds take?" });
    expect(response.status).toBe(200);
    const { events, comments, firstChunk } = await read(response);
    expect(firstChunk.startsWith(":")).toBe(true);
    expect(comments).toContain("keep-alive");

    const ids = events.map((event) => Number(event.id));
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);

    const steps = events.filter((event) => event.event === "step").map((event) => JSON.parse(event.data));
    for (const name of ["Billing agent", "Support agent"]) {
      expect(steps).toContainEqual({ kind: "member", name, status: "started" });
      expect(steps).toContainEqual({ kind: "member", name, status: "finished", output: expect.any(String) });
    }
    for (const step of steps) if (step.output) expect(step.output.length).toBeLessThanOrEqual(501);

    const last = events.at(-1)!;
    expect(last.event).toBe("done");
    const done = JSON.parse(last.data);
    const execution = await getDb().execution.findUnique({ where: { id: done.execution_id } });
    expect(execution).toMatchObject({
      organizationId: app.tenant.organization.id,
      conversationId: done.conversation_id,
      status: "succeeded",
    });
  });

  it("replays a finished stream for a repeated Idempotency-Key, billing and running it once", async () => {
    const app = await publishedApp();
    const before = await credits(app.tenant);
    const first = await read(
      await streamRequest(app.key, app.appId, { message: "refunds?" }, { "idempotency-key": "stream-1" }),
    );
    const done = JSON.parse(first.events.at(-1)!.data);

    const retry = await streamRequest(app.key, app.appId, { message: "refunds?" }, { "idempotency-key": "stream-1" });
    expect(retry.status).toBe(200);
    expect(retry.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    const replayed = await read(retry);
    // The run's events replay in full, with their ids.
    expect(replayed.events.map((event) => [event.id, event.event])).toEqual(
      first.events.map((event) => [event.id, event.event]),
    );
    expect(JSON.parse(replayed.events.at(-1)!.data)).toEqual(done);

    expect(before - (await credits(app.tenant))).toBe(1);
    expect(await getDb().execution.count({ where: { organizationId: app.tenant.organization.id } })).toBe(1);
  });

  it("answers 409 conflict to a retry while the keyed stream still runs, and frees the key of a refused run", async () => {
    const app = await publishedApp();
    // A first request with this key is still running (in this or another server process).
    await getDb().idempotencyKey.create({
      data: { organizationId: app.tenant.organization.id, key: "stream-2", requestHash: "x", state: "running" },
    });
    const before = await credits(app.tenant);
    const during = await streamRequest(app.key, app.appId, { message: "refunds?" }, { "idempotency-key": "stream-2" });
    const conflict = (await during.json()) as { error: { code: string } };
    expect({ status: during.status, code: conflict.error.code }).toEqual({ status: 409, code: "conflict" });
    expect(await credits(app.tenant)).toBe(before);

    const { updateOrganization } = await import("@/server/services/org/organizations");
    await updateOrganization(getDb(), app.tenant.operator, { credits: 0 });
    const refused = await streamRequest(app.key, app.appId, { message: "again" }, { "idempotency-key": "stream-3" });
    expect(refused.status).toBe(402);
    await updateOrganization(getDb(), app.tenant.operator, { credits: 10 });
    const retried = await streamRequest(app.key, app.appId, { message: "again" }, { "idempotency-key": "stream-3" });
    expect(retried.status).toBe(200);
    expect((await read(retried)).events.at(-1)!.event).toBe("done");
  });
});
