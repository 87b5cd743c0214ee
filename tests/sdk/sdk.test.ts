// The SDK (packages/sdk) against the real REST handler: every request goes through a fetch that hands
// it to the /api/v1 handler (whose responses are checked against the OpenAPI document); its retries
// against the real rate limiter and idempotency keys go over HTTP through our listener.
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtriumError, AuthenticationError, ConflictError, createAtrium, ValidationError } from "@atrium/sdk";
import { windowAt } from "@/server/auth/rate-limit";
import { getDb } from "@/server/db";
import { generateSdkTypes, SDK_TYPES_FILE } from "../../scripts/sdk-types";
import { awayFromWindowEdge, newOrganization, restHandler } from "../helpers";
import { listenOnLoopback, type LoopbackServer } from "../loopback-server";
import { create } from "../builder-helpers";
import { credits, publishedApp } from "../runtime-helpers";

const ORIGIN = "http://atrium.test";

function sdk(apiKey: string) {
  return createAtrium({ apiKey, baseUrl: ORIGIN, fetch: (request) => restHandler()(request) });
}

describe("the SDK", () => {
  it("has committed types that match the document (run `npm run sdk:generate` after changing the API)", async () => {
    const committed = await readFile(SDK_TYPES_FILE, "utf8");
    expect(committed === (await generateSdkTypes())).toBe(true);
  });

  it("calls typed operations with the key and throws typed errors with their extras", async () => {
    const tenant = await newOrganization();
    const atrium = sdk(tenant.orgKey.secret);
    const { data } = await atrium.client.POST("/knowledgebases", { body: { name: "Handbook" } });
    expect(data?.knowledgebase.name).toBe("Handbook");

    const refused = await atrium.client.POST("/agents", { body: { name: "" } }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AtriumError);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused).toMatchObject({
      status: 400,
      code: "invalid_request",
      extras: { problems: [expect.objectContaining({ path: "name" })] },
    });
    expect((refused as AtriumError).requestId).toBeTruthy();

    const unknownKey = await sdk("sk_org_nope")
      .client.GET("/models")
      .catch((error: unknown) => error);
    expect(unknownKey).toBeInstanceOf(AuthenticationError);
    expect(unknownKey).toMatchObject({ status: 401, code: "invalid_api_key" });
  });

  it("lists every item across pages with an async iterator", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const made = [];
    for (let index = 0; index < 5; index++) made.push((await create(key, "agents", { name: `Agent ${index}` })).id);
    const seen: string[] = [];
    for await (const row of sdk(key).list("/agents", "agents", { query: { include: "drafts", limit: 2 } }))
      seen.push(row.id);
    expect(seen).toEqual(made);
  });

  it("streams a conversation: deltas, then done with the execution id, and stops there", async () => {
    const app = await publishedApp();
    const before = await credits(app.tenant);
    const events = [];
    for await (const event of sdk(app.key).apps.converse(app.appId, { message: "How long do refunds take?" }))
      events.push(event);
    expect(events.filter((event) => event.type === "delta").length).toBeGreaterThan(0);
    const done = events.at(-1)!;
    expect(done).toMatchObject({
      type: "done",
      reply: expect.stringContaining("14 days"),
      conversation_id: expect.any(String),
      execution_id: expect.any(String),
    });
    const text = events.flatMap((event) => (event.type === "delta" ? [event.text] : [])).join("");
    expect(text).toBe((done as { reply: string }).reply);
    expect(await credits(app.tenant)).toBe(before - 1);
  });

  it("resumes a stream whose connection drops after the run event, with Last-Event-ID: one run, one charge", async () => {
    const app = await publishedApp();
    const before = await credits(app.tenant);
    const sent: string[] = [];
    // The first response is cut after its first event (a dropped connection); later ones pass.
    const flaky = async (request: Request) => {
      sent.push(
        `${request.method} ${new URL(request.url).pathname} ${request.headers.get("last-event-id") ?? ""}`.trim(),
      );
      const response = await restHandler()(request);
      if (sent.length > 1 || !response.body) return response;
      const reader = response.body.getReader();
      let text = "";
      const runEnd = () => (text.includes("event: run") ? text.indexOf("\n\n", text.indexOf("event: run")) : -1);
      while (runEnd() === -1) text += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      const cut = text.slice(0, runEnd() + 2);
      let delivered = false;
      const body = new ReadableStream({
        pull(controller) {
          if (delivered) controller.error(new Error("connection reset"));
          else controller.enqueue(new TextEncoder().encode(cut));
          delivered = true;
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const atrium = createAtrium({ apiKey: app.key, baseUrl: ORIGIN, fetch: flaky });
    const events = [];
    for await (const event of atrium.apps.converse(app.appId, { message: "How long do refunds take?" }))
      events.push(event);
    const run = events[0] as { type: string; execution_id: string };
    expect(run.type).toBe("run");
    expect(sent).toEqual([
      `POST /api/v1/apps/${app.appId}/conversation`,
      `GET /api/v1/apps/${app.appId}/conversation/runs/${run.execution_id}/events 1`,
    ]);
    const done = events.at(-1) as { type: string; reply: string };
    expect(done.type).toBe("done");
    expect(events.flatMap((event) => (event.type === "delta" ? [event.text] : [])).join("")).toBe(done.reply);
    expect(await credits(app.tenant)).toBe(before - 1);

    // Cancel on a finished run answers its execution, unchanged.
    expect(await atrium.apps.cancel(app.appId, run.execution_id)).toMatchObject({
      id: run.execution_id,
      status: "succeeded",
    });
    const replayed = [];
    for await (const event of atrium.apps.resume(app.appId, run.execution_id, { lastEventId: 1 })) replayed.push(event);
    expect(replayed).toEqual(events.slice(1));
  });

  it("posts a turn cut off before its run event again with the same key: it attaches, one charge", async () => {
    const app = await publishedApp();
    const before = await credits(app.tenant);
    const sent: string[] = [];
    const cutFirst = async (request: Request) => {
      sent.push(`${request.method} ${request.headers.get("idempotency-key")}`);
      const response = await restHandler()(request);
      if (sent.length > 1) return response;
      await response.body?.cancel();
      const reset = new ReadableStream({ pull: (controller) => controller.error(new Error("connection reset")) });
      return new Response(reset, { status: response.status, headers: response.headers });
    };
    const atrium = createAtrium({ apiKey: app.key, baseUrl: ORIGIN, fetch: cutFirst });
    const events = [];
    for await (const event of atrium.apps.converse(app.appId, { message: "How long do refunds take?" }))
      events.push(event);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^POST [0-9a-f-]{36}$/);
    expect(sent[1]).toBe(sent[0]);
    expect(events[0]?.type).toBe("run");
    expect(events.at(-1)).toMatchObject({ type: "done", reply: expect.stringContaining("14 days") });
    expect(await credits(app.tenant)).toBe(before - 1);
  });

  it("throws the refusal that comes before a stream as a typed error", async () => {
    const app = await publishedApp();
    const refused = await (async () => {
      for await (const _event of sdk(app.key).apps.converse("00000000-0000-4000-8000-000000000000", { message: "hi" }))
        void _event;
    })().catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 404, code: "not_found" });
  });
});

/** Each answer the SDK got, as it got it, over real HTTP. */
interface Answer {
  status: number;
  at: number;
  retryAfter: string | null;
  replayed: string | null;
}
function recordingFetch(answers: Answer[]) {
  return async (request: Request) => {
    const response = await fetch(request);
    answers.push({
      status: response.status,
      at: Date.now(),
      retryAfter: response.headers.get("retry-after"),
      replayed: response.headers.get("idempotent-replayed"),
    });
    return response;
  };
}

/**
 * A TCP proxy to `target` that takes the first connection's request to the server, then cuts that
 * connection as the answer comes back (the client never sees it); later connections pass through.
 */
async function proxyDroppingFirstAnswer(target: URL) {
  const requests: string[] = [];
  let connections = 0;
  const proxy = net.createServer((client) => {
    const first = connections++ === 0;
    const upstream = net.connect(Number(target.port), target.hostname);
    client.on("data", (chunk: Buffer) => requests.push(chunk.toString("latin1")));
    client.on("error", () => undefined);
    upstream.on("error", () => undefined);
    client.pipe(upstream);
    if (first) {
      upstream.once("data", () => {
        client.resetAndDestroy();
        upstream.destroy();
      });
    } else {
      upstream.pipe(client);
    }
  });
  proxy.listen(0, "127.0.0.1");
  await once(proxy, "listening");
  return {
    base: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
    connections: () => connections,
    /** The Idempotency-Key of each request head the proxy saw. */
    keys: () =>
      requests.flatMap((text) => {
        const key = /^idempotency-key: *(.+)\r$/im.exec(text)?.[1];
        return key === undefined ? [] : [key];
      }),
    close: () => proxy.close(),
  };
}

describe("the SDK over HTTP, retrying", () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await listenOnLoopback(0);
  });
  afterAll(() => server?.close());

  it("waits out a 429 from the real rate limiter for its Retry-After, then succeeds", async () => {
    const tenant = await newOrganization();
    await awayFromWindowEdge(15);
    // The key's previous window is filled so the sliding count is just over the limit of 120 and
    // falls under it about 3 s later: the next request is refused with a Retry-After of ~3 s.
    const { window, elapsed } = windowAt();
    const previous = Math.ceil(119 / (1 - elapsed - 1 / 20));
    const { secretHash } = await getDb().apiKey.findUniqueOrThrow({ where: { id: tenant.orgKey.id } });
    await getDb().rateLimitCounter.create({
      data: { bucket: `key:${secretHash}`, windowStart: BigInt(window - 1), count: previous },
    });

    const answers: Answer[] = [];
    const atrium = createAtrium({ apiKey: tenant.orgKey.secret, baseUrl: server.base, fetch: recordingFetch(answers) });
    const { data } = await atrium.client.GET("/models");
    expect(data.models.length).toBeGreaterThan(0);
    expect(answers.map((answer) => answer.status)).toEqual([429, 200]);
    const waited = Number(answers[0]!.retryAfter);
    expect(waited).toBeGreaterThanOrEqual(1);
    expect(answers[1]!.at - answers[0]!.at).toBeGreaterThanOrEqual(waited * 1000 - 50);
  });

  it("sends a POST cut off before its answer again with the same key: one knowledgebase, replayed", async () => {
    const tenant = await newOrganization();
    const proxy = await proxyDroppingFirstAnswer(new URL(server.base));
    try {
      const answers: Answer[] = [];
      const atrium = createAtrium({
        apiKey: tenant.orgKey.secret,
        baseUrl: proxy.base,
        fetch: recordingFetch(answers),
      });
      const { data } = await atrium.client.POST("/knowledgebases", { body: { name: "Dropped once" } });
      expect(data.knowledgebase.name).toBe("Dropped once");
      expect(proxy.connections()).toBe(2);
      const keys = proxy.keys();
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
      expect(answers).toEqual([expect.objectContaining({ status: 201, replayed: "true" })]);

      const direct = createAtrium({ apiKey: tenant.orgKey.secret, baseUrl: server.base });
      const { data: listed } = await direct.client.GET("/knowledgebases");
      expect(listed.knowledgebases.map((knowledgebase) => knowledgebase.id)).toEqual([data.knowledgebase.id]);

      // The same key with another body is a conflict the SDK does not retry on a first attempt.
      const reused = await direct.client
        .POST("/knowledgebases", { body: { name: "Another" }, idempotencyKey: keys[0] })
        .catch((error: unknown) => error);
      expect(reused).toBeInstanceOf(ConflictError);
    } finally {
      proxy.close();
    }
  });
});
