// Thumbs up or down on a reply: stored on its execution, cleared with null, filterable, and only
// for the conversation's owner (another organization's or end user's message is not_found).
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api, expectError } from "../helpers";
import { converse, publishedApp } from "../runtime-helpers";
import { clientAddress, errorCode, portalCall, portalChat, portalScenario, signIn } from "../portal/helpers";
import { readEvents } from "../runtime-helpers";

async function assistantMessageId(conversationId: string): Promise<string> {
  return (await getDb().conversationMessage.findFirstOrThrow({ where: { conversationId, role: "assistant" } })).id;
}

describe("feedback on a reply", () => {
  it("is stored on the execution, returned and filterable, then cleared", async () => {
    const app = await publishedApp();
    const turn = await converse(app.key, app.appId, { message: "How long do refunds take?" });
    const messageId = await assistantMessageId(turn.body.conversation_id);
    const path = `/apps/${app.appId}/conversation/messages/${messageId}/feedback`;
    const rated = await api("POST", path, { key: app.key, body: { rating: "down", reason: "Too short" } });
    expect(rated.status).toBe(200);
    expect(rated.body.feedback).toEqual({ rating: "down", reason: "Too short", at: expect.any(String) });
    const down = await api("GET", `/executions?feedback=down`, { key: app.key });
    expect(down.body.executions).toHaveLength(1);
    expect(down.body.executions[0].feedback).toMatchObject({ rating: "down", reason: "Too short" });
    expect((await api("GET", `/executions?feedback=up`, { key: app.key })).body.executions).toHaveLength(0);
    const cleared = await api("POST", path, { key: app.key, body: { rating: null } });
    expect(cleared.body).toEqual({ feedback: null });
    expect(
      (await api("GET", `/executions?itemId=${app.appId}`, { key: app.key })).body.executions[0].feedback,
    ).toBeNull();
    expectError(
      await api("POST", path, { key: app.key, body: { rating: "up", reason: "x".repeat(1001) } }),
      400,
      "invalid_request",
    );
  });

  it("another organization's message is not_found, and nothing is written", async () => {
    const app = await publishedApp();
    const other = await publishedApp();
    const turn = await converse(app.key, app.appId, { message: "How long do refunds take?" });
    const messageId = await assistantMessageId(turn.body.conversation_id);
    expectError(
      await api("POST", `/apps/${other.appId}/conversation/messages/${messageId}/feedback`, {
        key: other.key,
        body: { rating: "up" },
      }),
      404,
      "not_found",
    );
    expect(
      (await getDb().execution.findFirstOrThrow({ where: { conversationId: turn.body.conversation_id } }))
        .feedbackRating,
    ).toBeNull();
  });

  it("in a portal: the end user rates their own reply; another end user's is not_found", async () => {
    const scenario = await portalScenario();
    const cookie = await signIn(scenario, scenario.endUser.email);
    const events = await readEvents(
      await portalChat(scenario.portal.slug, scenario.appId, { message: "How long do refunds take?" }, { cookie }),
    );
    const done = JSON.parse(events.find((e) => e.event === "done")!.data);
    const messageId = await assistantMessageId(done.conversation_id);
    const rated = await portalCall(
      "mutation",
      "conversations.feedback",
      { portal: scenario.portal.slug, messageId, rating: "up" },
      { cookie },
    );
    expect(rated.status).toBe(200);
    expect(rated.body.result.data.feedback).toMatchObject({ rating: "up", reason: null });

    const bob = `bob-${Date.now()}@customer.example`;
    const created = await api("POST", "/end-users", {
      key: scenario.key,
      body: { email: bob, tierPlanIds: [scenario.plan.id] },
    });
    expect(created.status).toBe(201);
    const bobCookie = await signIn(scenario, bob, clientAddress());
    const refused = await portalCall(
      "mutation",
      "conversations.feedback",
      { portal: scenario.portal.slug, messageId, rating: "down" },
      { cookie: bobCookie },
    );
    expect(errorCode(refused)).toBe("not_found");
    expect(
      (await getDb().execution.findFirstOrThrow({ where: { conversationId: done.conversation_id } })).feedbackRating,
    ).toBe("up");
  });
});
