// Runs that outlive their connection (issue 26): a client that drops mid-answer resumes after the
// last event it saw, by GET or by repeating its keyed POST, on this or another server process,
// and gets the whole reply once: one run, one execution, one charge. Cancel stops a run from
// any process; another organization's key sees nothing.
import type { EventSourceMessage } from "eventsource-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRestHandler } from "@/server/adapters/rest";
import { closeDb, createDb, getDb, type Db } from "@/server/db";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { api, expectError, restHandler, type Handler } from "../helpers";
import { credits, deltaText, publishedApp, readEvents, type PublishedApp } from "../runtime-helpers";
import { validatingHandler } from "../openapi-validator";
import { listenOnLoopback } from "../loopback-server";

const REPLY = "Refunds are paid within fourteen days of the request and shipping costs are not refunded at all";
let fake: FakeOpenAI;
const dbs: Db[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAI(() => REPLY, { tokenDelayMs: 40 });
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_MODELS = "slow-model";
});

afterAll(async () => {
  await fake.close();
  await Promise.all(dbs.map((db) => closeDb(db)));
});

/** A second server process: its own pool, its own listening connection, the same database. */
function secondServer(): Handler {
  const db = createDb(process.env.DATABASE_URL!);
  dbs.push(db);
  return validatingHandler(createRestHandler({ db: () => db }));
}

function request(
  app: PublishedApp,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; key?: string } = {},
): Request {
  return new Request(`http://localhost/api/v1/apps/${app.appId}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${options.key ?? app.key}`,
      ...(options.body ? { "content-type": "application/json" } : {}),
      ...options.headers,
    },
    body: options.body ? JSON.stringify(options.body) : undefined,
  });
}

const ASK = { message: "How long do refunds take?", stream: true };

async function conversationExecutions(app: PublishedApp) {
  return getDb().execution.findMany({ where: { organizationId: app.tenant.organization.id } });
}

/** The whole transcript a client pieced together: ids follow each other, one run, one final event. */
function expectComplete(events: EventSourceMessage[]) {
  expect(events.map((event) => Number(event.id))).toEqual(events.map((_, index) => index + 1));
  expect(events[0]!.event).toBe("run");
  expect(events.filter((event) => event.event === "done" || event.event === "error")).toHaveLength(1);
  const done = JSON.parse(events.at(-1)!.data);
  expect(events.at(-1)!.event).toBe("done");
  expect(deltaText(events)).toBe(done.reply);
  expect(done.reply).toBe(REPLY);
  expect(done.execution_id).toBe(JSON.parse(events[0]!.data).execution_id);
  return done as { reply: string; conversation_id: string; execution_id: string };
}

describe("a run outlives its connection", () => {
  it("resumes by GET after Last-Event-ID: the whole reply once, one execution, one charge", async () => {
    const app = await publishedApp({ billingModel: "slow-model" });
    const before = await credits(app.tenant);
    const first = await restHandler()(request(app, "POST", "/conversation", { body: ASK }));
    expect(first.status).toBe(200);
    const seen = await readEvents(first, 4);
    expect(seen[0]!.event).toBe("run");
    const run = JSON.parse(seen[0]!.data);
    expect(run).toEqual({ execution_id: expect.any(String), conversation_id: expect.any(String) });

    const resumed = await restHandler()(
      request(app, "GET", `/conversation/runs/${run.execution_id}/events`, {
        headers: { "last-event-id": seen.at(-1)!.id! },
      }),
    );
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const rest = await readEvents(resumed);
    const done = expectComplete([...seen, ...rest]);
    expect(done.conversation_id).toBe(run.conversation_id);

    expect(await conversationExecutions(app)).toMatchObject([
      { id: run.execution_id, status: "succeeded", credits: 1 },
    ]);
    expect(await credits(app.tenant)).toBe(before - 1);

    // A finished run replays in full, also by the lastEventId query; after its last event: 204.
    const replay = await readEvents(
      await restHandler()(request(app, "GET", `/conversation/runs/${run.execution_id}/events`)),
    );
    expectComplete(replay);
    const tail = await readEvents(
      await restHandler()(request(app, "GET", `/conversation/runs/${run.execution_id}/events?lastEventId=2`)),
    );
    expect(tail[0]!.id).toBe("3");
    const ended = await restHandler()(
      request(app, "GET", `/conversation/runs/${run.execution_id}/events`, {
        headers: { "last-event-id": String(replay.length) },
      }),
    );
    expect(ended.status).toBe(204);
  });

  it("attaches a repeated POST with the same Idempotency-Key and body to the run, live and after it finished", async () => {
    const app = await publishedApp({ billingModel: "slow-model" });
    const before = await credits(app.tenant);
    const keyed = { "idempotency-key": `resume-${app.appId}` };
    const seen = await readEvents(
      await restHandler()(request(app, "POST", "/conversation", { body: ASK, headers: keyed })),
      3,
    );

    const again = await restHandler()(
      request(app, "POST", "/conversation", { body: ASK, headers: { ...keyed, "last-event-id": seen.at(-1)!.id! } }),
    );
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const done = expectComplete([...seen, ...(await readEvents(again))]);

    const replayed = await restHandler()(request(app, "POST", "/conversation", { body: ASK, headers: keyed }));
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(expectComplete(await readEvents(replayed))).toEqual(done);

    expectError(
      await api("POST", `/apps/${app.appId}/conversation`, {
        key: app.key,
        body: { ...ASK, message: "Another question" },
        headers: keyed,
      }),
      409,
      "conflict",
    );
    expect(await conversationExecutions(app)).toHaveLength(1);
    expect(await credits(app.tenant)).toBe(before - 1);
  });

  it("resumes on another server process, woken live by its own listener", async () => {
    const app = await publishedApp({ billingModel: "slow-model" });
    const before = await credits(app.tenant);
    const seen = await readEvents(await restHandler()(request(app, "POST", "/conversation", { body: ASK })), 3);
    const run = JSON.parse(seen[0]!.data);
    const other = secondServer();
    const resumed = await other(
      request(app, "GET", `/conversation/runs/${run.execution_id}/events`, {
        headers: { "last-event-id": seen.at(-1)!.id! },
      }),
    );
    const rest = await readEvents(resumed);
    expectComplete([...seen, ...rest]);
    // The run was still going when the second process attached: it heard of later events by notification.
    expect(rest.filter((event) => event.event === "delta").length).toBeGreaterThan(1);
    expect(await conversationExecutions(app)).toHaveLength(1);
    expect(await credits(app.tenant)).toBe(before - 1);
  });

  it("streams through our own server straight to the socket: a dropped client resumes with Last-Event-ID", async () => {
    const server = await listenOnLoopback(0);
    try {
      const app = await publishedApp({ billingModel: "slow-model" });
      const before = await credits(app.tenant);
      const toServer = (request: Request) =>
        fetch(`${server.base}${new URL(request.url).pathname}`, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          duplex: "half",
        } as RequestInit);
      const first = await toServer(request(app, "POST", "/conversation", { body: ASK }));
      expect(first.status).toBe(200);
      expect(first.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const seen = await readEvents(first, 3);
      const run = JSON.parse(seen[0]!.data);
      const resumed = await toServer(
        request(app, "GET", `/conversation/runs/${run.execution_id}/events`, {
          headers: { "last-event-id": seen.at(-1)!.id! },
        }),
      );
      const rest = await readEvents(resumed);
      expectComplete([...seen, ...rest]);
      // The run was still going: this process handed the resumed stream its later events.
      expect(rest.filter((event) => event.event === "delta").length).toBeGreaterThan(1);
      expect(await conversationExecutions(app)).toHaveLength(1);
      expect(await credits(app.tenant)).toBe(before - 1);
    } finally {
      server.close();
    }
  });

  it("finishes and bills a run whose only client left", async () => {
    const app = await publishedApp({ billingModel: "slow-model" });
    const before = await credits(app.tenant);
    const seen = await readEvents(await restHandler()(request(app, "POST", "/conversation", { body: ASK })), 2);
    const run = JSON.parse(seen[0]!.data);
    expectComplete(
      await readEvents(await restHandler()(request(app, "GET", `/conversation/runs/${run.execution_id}/events`))),
    );
    expect(await getDb().conversationMessage.count({ where: { conversationId: run.conversation_id } })).toBe(2);
    expect(await credits(app.tenant)).toBe(before - 1);
  });
});

describe("cancel", () => {
  it("stops a run from another process: an error event `canceled`, the execution canceled and billed, the answer kept as far as it got; again: 200 unchanged", async () => {
    const app = await publishedApp({ billingModel: "slow-model" });
    const before = await credits(app.tenant);
    const response = await restHandler()(request(app, "POST", "/conversation", { body: ASK }));
    const events: EventSourceMessage[] = [];
    const reading = readEvents(response).then((all) => events.push(...all));
    // Wait for the first delta, through a resume that drops.
    const seen = await readEvents(
      await restHandler()(request(app, "GET", `/conversation/runs/${(await firstRun(app)).id}/events`)),
      2,
    );
    const run = JSON.parse(seen[0]!.data);

    const canceled = await api("POST", `/apps/${app.appId}/conversation/runs/${run.execution_id}/cancel`, {
      key: app.key,
      handler: secondServer(),
    });
    expect(canceled.status).toBe(202);
    expect(canceled.body.execution).toMatchObject({ id: run.execution_id, status: "canceled", credits: 1 });
    await reading;
    expect(events.at(-1)!.event).toBe("error");
    expect(JSON.parse(events.at(-1)!.data).error.code).toBe("canceled");
    expect(deltaText(events).length).toBeLessThan(REPLY.length);
    expect(await credits(app.tenant)).toBe(before - 1);
    // The answer stays in the conversation as far as it got.
    const kept = await getDb().conversationMessage.findMany({
      where: { conversation: { organizationId: app.tenant.organization.id } },
      orderBy: { createdAt: "asc" },
    });
    expect(kept.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(kept[1]!.content).toBe(deltaText(events));

    const again = await api("POST", `/apps/${app.appId}/conversation/runs/${run.execution_id}/cancel`, {
      key: app.key,
    });
    expect(again.status).toBe(200);
    expect(again.body.execution).toEqual(canceled.body.execution);
    const listed = await api("GET", `/executions?status=canceled`, { key: app.key });
    expect(listed.body.executions.map((e: { id: string }) => e.id)).toEqual([run.execution_id]);
  });
});

/** The app's one run, once it is stored. */
async function firstRun(app: PublishedApp) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const run = await getDb().conversationRun.findFirst({ where: { organizationId: app.tenant.organization.id } });
    if (run) return run;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("no run started");
}

describe("who may read and cancel a run", () => {
  it("answers not_found to another organization's key, an unknown run and another app", async () => {
    const app = await publishedApp();
    const done = await readEvents(await restHandler()(request(app, "POST", "/conversation", { body: ASK })));
    const executionId = JSON.parse(done[0]!.data).execution_id as string;
    const other = await publishedApp();
    expectError(
      await api("GET", `/apps/${app.appId}/conversation/runs/${executionId}/events`, { key: other.key }),
      404,
      "not_found",
    );
    expectError(
      await api("POST", `/apps/${app.appId}/conversation/runs/${executionId}/cancel`, { key: other.key }),
      404,
      "not_found",
    );
    expectError(
      await api("GET", `/apps/${other.appId}/conversation/runs/${executionId}/events`, { key: other.key }),
      404,
      "not_found",
    );
    expectError(
      await api("GET", `/apps/${app.appId}/conversation/runs/00000000-0000-4000-8000-000000000001/events`, {
        key: app.key,
      }),
      404,
      "not_found",
    );
    expectError(
      await api("POST", `/apps/${app.appId}/conversation/runs/00000000-0000-4000-8000-000000000001/cancel`, {
        key: app.key,
      }),
      404,
      "not_found",
    );
    // Nothing of the run changed.
    expect(await conversationExecutions(app)).toMatchObject([{ status: "succeeded" }]);
  });

  it("routes the run paths apart from the conversation and the app's own paths", async () => {
    const app = await publishedApp();
    const done = await readEvents(await restHandler()(request(app, "POST", "/conversation", { body: ASK })));
    const executionId = JSON.parse(done[0]!.data).execution_id as string;
    expectError(
      await api("POST", `/apps/${app.appId}/conversation/runs/${executionId}/events`, { key: app.key }),
      405,
      "method_not_allowed",
    );
    expectError(
      await api("GET", `/apps/${app.appId}/conversation/runs/${executionId}/cancel`, { key: app.key }),
      405,
      "method_not_allowed",
    );
    expectError(
      await api("GET", `/apps/${app.appId}/conversation/runs/${executionId}`, { key: app.key }),
      404,
      "not_found",
    );
    expectError(
      await api("GET", `/apps/${app.appId}/conversation/runs/not-an-id/events`, { key: app.key }),
      400,
      "invalid_request",
    );
    expectError(
      await api("GET", `/apps/${app.appId}/conversation/runs/${executionId}/events`, {
        key: app.key,
        headers: { "last-event-id": "abc" },
      }),
      400,
      "invalid_request",
    );
    expect(
      (await api("GET", `/apps/${app.appId}/conversation/runs/${executionId}/events?lastEventId=1`, { key: app.key }))
        .status,
    ).toBe(200);
  });

  it("needs the apps:execute scope", async () => {
    const app = await publishedApp();
    const { issueKey } = await import("../helpers");
    const reader = await issueKey(app.tenant.operator, { kind: "organization", scopes: ["apps:read"] });
    const path = `/apps/${app.appId}/conversation/runs/00000000-0000-4000-8000-000000000001`;
    expectError(await api("GET", `${path}/events`, { key: reader.secret }), 403, "insufficient_scope");
    expectError(await api("POST", `${path}/cancel`, { key: reader.secret }), 403, "insufficient_scope");
  });
});
