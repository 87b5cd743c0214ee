// App conversations through the REST door: routing to members at their pinned versions, one
// synthesized reply, persistence by conversation_id, credits, refusals, and Server-Sent Events.
import { describe, expect, it, vi } from "vitest";
import { getDb } from "@/server/db";
import { updateOrganization } from "@/server/services/org/organizations";
import { api, expectError, isCounterSweep } from "../helpers";
import { create, publish } from "../builder-helpers";
import { converse, credits, publishedApp, readEvents } from "../runtime-helpers";

describe("POST /apps/{appId}/conversation", () => {
  it("routes to the right member, answers from its knowledge, bills 1 credit and records the execution", async () => {
    const app = await publishedApp();
    const before = await credits(app.tenant);
    const response = await converse(app.key, app.appId, { message: "How long do refunds take?" });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      reply: expect.stringContaining("14 days"),
      citations: [expect.objectContaining({ n: 1, kind: "page", title: "Refund policy" })],
      conversation_id: expect.any(String),
      greeting: "Hello! How can I help?",
    });
    expect(await credits(app.tenant)).toBe(before - 1);

    const executions = await api("GET", `/executions?itemId=${app.appId}`, { key: app.key });
    expect(executions.body.executions).toHaveLength(1);
    const execution = executions.body.executions[0];
    expect(execution).toMatchObject({
      kind: "conversation",
      status: "succeeded",
      credits: 1,
      conversationId: response.body.conversation_id,
    });
    expect(execution.trace.map((t: { name: string }) => t.name)).toContain("Billing agent");
    expect(execution.trace.map((t: { name: string }) => t.name)).not.toContain("Support agent");
    expect((await api("GET", `/executions/${execution.id}`, { key: app.key })).body.execution.id).toBe(execution.id);
  });

  it("restores prior turns from conversation_id", async () => {
    const app = await publishedApp();
    const first = await converse(app.key, app.appId, { message: "How long do refunds take?" });
    const second = await converse(app.key, app.appId, {
      message: "And shipping costs, are they refunded?",
      conversation_id: first.body.conversation_id,
    });
    expect(second.status).toBe(200);
    expect(second.body.conversation_id).toBe(first.body.conversation_id);
    const messages = await getDb().conversationMessage.findMany({
      where: { conversationId: first.body.conversation_id },
      orderBy: { createdAt: "asc" },
    });
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expectError(
      await converse(app.key, app.appId, { message: "hi", conversation_id: "00000000-0000-4000-8000-000000000001" }),
      404,
      "not_found",
    );
  });

  it("uses members at their pinned versions until the app is republished", async () => {
    const app = await publishedApp({ app: { orchestrationMode: "broadcast" } });
    await api("PATCH", `/agents/${app.billingAgentId}/draft`, { key: app.key, body: { description: "Changed" } });
    await publish(app.key, "agents", app.billingAgentId);
    await converse(app.key, app.appId, { message: "refunds?" });
    const [execution] = (await api("GET", `/executions?itemId=${app.appId}`, { key: app.key })).body.executions;
    const billing = execution.trace.find(
      (t: { id: string; kind: string }) => t.id === app.billingAgentId && t.kind === "agent",
    );
    const versions = await api("GET", `/agents/${app.billingAgentId}/versions`, { key: app.key });
    const first = versions.body.versions.find((v: { isProduction: boolean; name: string }) => !v.isProduction);
    expect(billing.versionId).toBe(first.id);
  });

  it("answers not_found for an unpublished app and another organization's app", async () => {
    const app = await publishedApp();
    const draft = await create(app.key, "apps", { name: "Draft app" });
    expectError(await converse(app.key, draft.id, { message: "hi" }), 404, "not_found");
    const other = await publishedApp();
    expectError(await converse(app.key, other.appId, { message: "hi" }), 404, "not_found");
  });

  it("service_disabled when conversation is off in the published API config; nothing charged", async () => {
    const app = await publishedApp({ app: { api: { conversationEnabled: false } } });
    const before = await credits(app.tenant);
    expectError(await converse(app.key, app.appId, { message: "hi" }), 403, "service_disabled");
    expect(await credits(app.tenant)).toBe(before);
  });

  it("insufficient_credits (402) when the balance is empty; nothing runs", async () => {
    const app = await publishedApp();
    await updateOrganization(getDb(), app.tenant.operator, { credits: 0 });
    expectError(await converse(app.key, app.appId, { message: "hi" }), 402, "insufficient_credits");
    expect(await getDb().execution.count({ where: { organizationId: app.tenant.organization.id } })).toBe(0);
    expect(await credits(app.tenant)).toBe(0);
  });

  it("unpublished_dependencies (422) when a pinned member is gone", async () => {
    const app = await publishedApp();
    expect((await api("DELETE", `/agents/${app.supportAgentId}`, { key: app.key })).status).toBe(204);
    const response = await converse(app.key, app.appId, { message: "hi" });
    expectError(response, 422, "unpublished_dependencies");
    expect(response.body.error.dependencies).toEqual([
      { id: app.supportAgentId, kind: "agent", name: expect.any(String) },
    ]);
  });

  it("api_disabled when the Apps endpoints are off", async () => {
    const app = await publishedApp();
    await updateOrganization(getDb(), app.tenant.operator, { appsApiEnabled: false });
    expectError(await converse(app.key, app.appId, { message: "hi" }), 403, "api_disabled");
  });

  it("takes a turn in a few prepared statements on the pool, none through Prisma", async () => {
    const app = await publishedApp({ app: { orchestrationMode: "broadcast" } });
    // The first turn reads the versions into the process's cache and records the key's use.
    const first = await converse(app.key, app.appId, { message: "How long do refunds take?" });
    const query = vi.spyOn(getDb().pool, "query");
    try {
      const next = await converse(app.key, app.appId, {
        message: "And shipping?",
        conversation_id: first.body.conversation_id,
      });
      expect(next.status).toBe(200);
      // Prisma's queries come through the pool unnamed; ours are named, so each connection plans them once.
      const statements = query.mock.calls
        .filter(([config]) => !isCounterSweep(config))
        .map(([config]) => (config as { name?: string }).name ?? "unnamed")
        .sort();
      // The key kept by the process is counted without its lookup; the turn's usage, by model
      // too, is one statement; the app as published, with the organization's model prices
      // (issue 45), is kept at the lookup epoch the count read (issue 53).
      expect(statements).toEqual([
        "atrium_charge_run_credits",
        "atrium_conversation_history",
        "atrium_key_count",
        "atrium_record_run_usage",
        "atrium_retrieve_small",
        "atrium_save_turn",
      ]);
    } finally {
      query.mockRestore();
    }
  });

  it("searches once per turn for members that share a knowledgebase and are asked the same message", async () => {
    const app = await publishedApp({ app: { orchestrationMode: "broadcast" }, sharedKnowledge: true });
    await converse(app.key, app.appId, { message: "How long do refunds take?" });
    const query = vi.spyOn(getDb().pool, "query");
    try {
      expect((await converse(app.key, app.appId, { message: "How long do refunds take?" })).status).toBe(200);
      const statements = query.mock.calls.map(([config]) => (config as { name?: string }).name);
      expect(statements.filter((name) => name === "atrium_retrieve_small")).toHaveLength(1);
    } finally {
      query.mockRestore();
    }
    const [execution] = (await api("GET", `/executions?itemId=${app.appId}`, { key: app.key })).body.executions;
    const agents = execution.trace.filter((entry: { kind: string }) => entry.kind === "agent");
    expect(agents.map((entry: { name: string }) => entry.name).sort()).toEqual(["Billing agent", "Support agent"]);
    for (const entry of agents)
      expect(entry.passages).toEqual(expect.arrayContaining([expect.stringContaining("Refund policy")]));
  });

  it("lets exactly 10 of 20 concurrent calls through with 10 credits left, never overdrawing", async () => {
    const app = await publishedApp();
    await updateOrganization(getDb(), app.tenant.operator, { credits: 10 });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => converse(app.key, app.appId, { message: "refunds?" })),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(10);
    expect(responses.filter((r) => r.status === 402 && r.body.error.code === "insufficient_credits")).toHaveLength(10);
    expect(await credits(app.tenant)).toBe(0);
  });
});

describe("Server-Sent Events", () => {
  it("streams delta events then exactly one done, unbuffered", async () => {
    const app = await publishedApp();
    const { restHandler } = await import("../helpers");
    const response = await restHandler()(
      new Request(`http://localhost/api/v1/apps/${app.appId}/conversation`, {
        method: "POST",
        headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json", "x-request-id": "sse-1" },
        body: JSON.stringify({ message: "How long do refunds take?", stream: true }),
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.headers.get("cache-control")).toContain("no-cache");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    expect(response.headers.get("x-request-id")).toBe("sse-1");
    const events = await readEvents(response);
    const deltas = events.filter((e) => e.event === "delta");
    expect(deltas.length).toBeGreaterThan(0);
    const last = events.at(-1)!;
    expect(last.event).toBe("done");
    expect(events.filter((e) => e.event === "done" || e.event === "error")).toHaveLength(1);
    const done = JSON.parse(last.data);
    expect(done.reply).toContain("14 days");
    expect(deltas.map((e) => JSON.parse(e.data).text).join("")).toBe(done.reply);
    expect(await getDb().conversation.count({ where: { id: done.conversation_id } })).toBe(1);
  });

  it("answers a refusal before anything streams as a JSON error", async () => {
    const app = await publishedApp();
    await updateOrganization(getDb(), app.tenant.operator, { credits: 0 });
    const response = await converse(app.key, app.appId, { message: "hi", stream: true });
    expectError(response, 402, "insufficient_credits");
  });
});
