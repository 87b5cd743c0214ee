// The console chat route: the app conversation as Server-Sent Events for a signed-in member,
// authenticated by the session cookie; without one, the 401 envelope.
import { describe, expect, it } from "vitest";
import { POST } from "@/app/api/console/apps/[appId]/conversation/route";
import { api, signInCookie, trpc, trpcErrorCode } from "../helpers";
import { patchDraft, publish } from "../builder-helpers";
import { deltaText, publishedApp, readEvents, statementsOf } from "../runtime-helpers";

function post(appId: string, body: unknown, cookie?: string): Promise<Response> {
  const request = new Request(`http://localhost/api/console/apps/${appId}/conversation`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
  return POST(request, { params: Promise.resolve({ appId }) });
}

describe("POST /api/console/apps/{appId}/conversation", () => {
  it("a member's turn: the session in one statement, the app kept by the process until it is published again", async () => {
    const app = await publishedApp();
    const cookie = await signInCookie(app.tenant.owner.email, app.tenant.owner.password);
    const turn = async () => {
      const response = await post(app.appId, { message: "How long do refunds take?" }, cookie);
      expect(response.status).toBe(200);
      expect((await readEvents(response)).at(-1)!.event).toBe("done");
    };
    await turn();
    const kept = await statementsOf(turn);
    expect(kept).toContain("atrium_member_session");
    expect(kept).not.toContain("atrium_live_app");
    expect(kept).not.toContain("unnamed");

    expect((await patchDraft(app.key, "apps", app.appId, { name: "Helpdesk 2" })).status).toBe(200);
    await publish(app.key, "apps", app.appId);
    expect(await statementsOf(turn)).toContain("atrium_live_app");
  });

  it("streams delta events then one done to a signed-in member, and continues the conversation", async () => {
    const app = await publishedApp();
    const cookie = await signInCookie(app.tenant.owner.email, app.tenant.owner.password);
    const response = await post(app.appId, { message: "How long do refunds take?" }, cookie);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = await readEvents(response);
    // `step` events (each member starting and ending) come with the deltas; clients ignore them.
    const names = events.map((e) => e.event).filter((name) => name !== "step");
    expect(names[0]).toBe("run");
    expect(names[1]).toBe("delta");
    expect(names.at(-1)).toBe("done");
    expect(names.filter((n) => n === "done")).toHaveLength(1);
    const deltas = deltaText(events);
    const done = JSON.parse(events.at(-1)!.data) as { reply: string; conversation_id: string };
    expect(done.reply).toBe(deltas);
    expect(done.reply).toContain("14 days");

    const again = await post(app.appId, { message: "And shipping?", conversation_id: done.conversation_id }, cookie);
    const last = (await readEvents(again)).at(-1)!;
    expect(last.event).toBe("done");
    expect((JSON.parse(last.data) as { conversation_id: string }).conversation_id).toBe(done.conversation_id);

    // The member's view: the app's conversations, and the messages with each answer's execution.
    const list = await trpc("query", "conversations.list", { appId: app.appId }, { cookie });
    expect(list.body.result.data.conversations).toEqual([
      expect.objectContaining({ id: done.conversation_id, title: "How long do refunds take?" }),
    ]);
    const messages = (
      await trpc("query", "conversations.messages", { conversationId: done.conversation_id }, { cookie })
    ).body.result.data.messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    const executionId = messages[1].executionId as string;
    const execution = (await trpc("query", "runtime.execution", { executionId }, { cookie })).body.result.data
      .execution;
    expect(execution.trace.map((t: { name: string }) => t.name)).toContain("Billing agent");

    const other = await publishedApp();
    const otherCookie = await signInCookie(other.tenant.owner.email, other.tenant.owner.password);
    expect(
      trpcErrorCode(
        await trpc(
          "query",
          "conversations.messages",
          { conversationId: done.conversation_id },
          { cookie: otherCookie },
        ),
      ),
    ).toBe("not_found");
    expect(
      (await trpc("query", "conversations.list", { appId: app.appId }, { cookie: otherCookie })).body.result.data
        .conversations,
    ).toEqual([]);
  });

  it("offers the live app's conversation starters (its agents' at their pinned versions), to its organization only", async () => {
    const app = await publishedApp();
    await api("PATCH", `/agents/${app.billingAgentId}/draft`, {
      key: app.key,
      body: { conversationStarters: ["How do refunds work?"] },
    });
    const cookie = await signInCookie(app.tenant.owner.email, app.tenant.owner.password);
    const starters = () => trpc("query", "conversations.starters", { appId: app.appId }, { cookie });
    // A draft change reaches the chat only once the agent and the app are published again.
    expect((await starters()).body.result.data).toEqual({ conversationStarters: [] });
    await publish(app.key, "agents", app.billingAgentId);
    await publish(app.key, "apps", app.appId);
    expect((await starters()).body.result.data).toEqual({ conversationStarters: ["How do refunds work?"] });

    const other = await publishedApp();
    const otherCookie = await signInCookie(other.tenant.owner.email, other.tenant.owner.password);
    expect(
      trpcErrorCode(await trpc("query", "conversations.starters", { appId: app.appId }, { cookie: otherCookie })),
    ).toBe("not_found");
  });

  it("answers 401 unauthorized without a session cookie, and invalid_request for a bad body", async () => {
    const app = await publishedApp();
    const response = await post(app.appId, { message: "hi" });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unauthorized");

    const cookie = await signInCookie(app.tenant.owner.email, app.tenant.owner.password);
    const bad = await post(app.appId, { message: "" }, cookie);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
  });
});
