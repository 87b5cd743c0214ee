// Regenerate and edit-and-resend: the last turn runs again (its own run, its own credit), the
// exchange it replaces leaves the transcript, and both executions stay.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api, expectError } from "../helpers";
import { converse, credits, publishedApp } from "../runtime-helpers";

async function visibleMessages(conversationId: string) {
  const rows = await getDb().conversationMessage.findMany({
    where: { conversationId, supersededAt: null },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map((m) => [m.role, m.content]);
}

describe("regenerate", () => {
  it("runs the last user message again for one more credit, hides the old exchange and keeps both executions", async () => {
    const app = await publishedApp();
    const first = await converse(app.key, app.appId, { message: "How long do refunds take?" });
    const second = await converse(app.key, app.appId, {
      message: "Are shipping costs refunded?",
      conversation_id: first.body.conversation_id,
    });
    const before = await credits(app.tenant);
    const again = await converse(app.key, app.appId, { conversation_id: first.body.conversation_id, regenerate: true });
    expect(again.status).toBe(200);
    expect(again.body.reply).toContain("Shipping costs are not refunded");
    expect(await credits(app.tenant)).toBe(before - 1);
    const messages = await visibleMessages(first.body.conversation_id);
    expect(messages.map(([role]) => role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(messages[2]![1]).toBe("Are shipping costs refunded?");
    expect(messages[3]![1]).toBe(again.body.reply);
    expect(await getDb().conversationMessage.count({ where: { conversationId: first.body.conversation_id } })).toBe(6);
    const executions = (await api("GET", `/executions?itemId=${app.appId}`, { key: app.key })).body.executions;
    expect(executions).toHaveLength(3);
    expect(executions.map((e: { credits: number }) => e.credits)).toEqual([1, 1, 1]);
    expect(second.status).toBe(200);
  });

  it("edit and resend: the new text replaces the last user message", async () => {
    const app = await publishedApp();
    const first = await converse(app.key, app.appId, { message: "Are shipping costs refunded?" });
    const edited = await converse(app.key, app.appId, {
      conversation_id: first.body.conversation_id,
      regenerate: true,
      message: "How long do refunds take?",
    });
    expect(edited.status).toBe(200);
    expect(edited.body.reply).toContain("14 days");
    expect(await visibleMessages(first.body.conversation_id)).toEqual([
      ["user", "How long do refunds take?"],
      ["assistant", edited.body.reply],
    ]);
  });

  it("is refused without a conversation, or with one that has no message; nothing charged", async () => {
    const app = await publishedApp();
    const before = await credits(app.tenant);
    expectError(await converse(app.key, app.appId, { regenerate: true }), 400, "invalid_request");
    expectError(await converse(app.key, app.appId, {}), 400, "invalid_request");
    const { id } = await getDb().conversation.create({
      data: { organizationId: app.tenant.organization.id, appId: app.appId, startedBy: "test" },
    });
    expectError(await converse(app.key, app.appId, { conversation_id: id, regenerate: true }), 400, "invalid_request");
    expect(await credits(app.tenant)).toBe(before);
  });
});
