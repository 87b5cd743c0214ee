// Conversation retention (issue 48): an organization's conversationRetentionDays, set by an admin
// in the console, has a daily sweep (once across processes) delete the conversations untouched
// for longer, with their messages, stored stream events and their executions' content, while
// what the runs cost stays: executions keep their credits and tokens, usage totals do not move.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { RETENTION_SWEEP_EVERY_MS, sweepConversationsWhenDue } from "@/server/services/org/retention";
import { api, newOrganization, signInCookie, trpc } from "../helpers";
import { publishedApp } from "../runtime-helpers";

const DAY = 86_400_000;

async function turn(
  key: string,
  appId: string,
  message: string,
): Promise<{ conversationId: string; executionId: string }> {
  const response = await api("POST", `/apps/${appId}/conversation`, { key, body: { message } });
  expect(response.status).toBe(200);
  const conversationId: string = response.body.conversation_id;
  const execution = await getDb().execution.findFirstOrThrow({ where: { conversationId } });
  return { conversationId, executionId: execution.id };
}

async function age(conversationId: string, days: number): Promise<void> {
  await getDb()
    .$executeRaw`update conversations set updated_at = now() - make_interval(days => ${days}) where id = ${conversationId}::uuid`;
}

describe("conversation retention", () => {
  it("is an organization setting an admin sets in the console, bounded, null by default", async () => {
    const tenant = await newOrganization();
    expect(tenant.organization.conversationRetentionDays).toBeNull();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    for (const refused of [0, 3651, 1.5, "30"]) {
      const response = await trpc(
        "mutation",
        "organization.update",
        { conversationRetentionDays: refused },
        { cookie },
      );
      expect(response.status).toBe(400);
    }
    const set = await trpc("mutation", "organization.update", { conversationRetentionDays: 30 }, { cookie });
    expect(set.status).toBe(200);
    expect(set.body.result.data.conversationRetentionDays).toBe(30);
    const stored = await getDb().organization.findUniqueOrThrow({ where: { id: tenant.organization.id } });
    expect(stored.conversationRetentionDays).toBe(30);
  });

  it("deletes what is older than the retention once across processes, keeping the runs' numbers and usage", async () => {
    const db = getDb();
    const app = await publishedApp();
    const keeper = await publishedApp();
    await db.organization.update({
      where: { id: app.tenant.organization.id },
      data: { conversationRetentionDays: 30 },
    });
    const expired = await turn(app.key, app.appId, "When are refunds paid?");
    const recent = await turn(app.key, app.appId, "Are shipping costs refunded?");
    const unlimited = await turn(keeper.key, keeper.appId, "When are refunds paid?");
    await age(expired.conversationId, 31);
    await age(recent.conversationId, 29);
    await age(unlimited.conversationId, 400);
    const usageBefore = await api("GET", "/usage", { key: app.key });
    const executionBefore = await db.execution.findUniqueOrThrow({ where: { id: expired.executionId } });
    expect(executionBefore.input).toContain("refunds");

    // Far from any other test's clock: the schedule is one row for the whole installation.
    const day = new Date(Date.now() + 2_000 * DAY);
    const racing = await Promise.all([
      sweepConversationsWhenDue(db, day),
      sweepConversationsWhenDue(db, day),
      sweepConversationsWhenDue(db, day),
    ]);
    expect(racing.filter((swept) => swept !== null)).toHaveLength(1);
    expect(await sweepConversationsWhenDue(db, new Date(day.getTime() + RETENTION_SWEEP_EVERY_MS / 2))).toBeNull();

    // The sweep says what it deleted, in the organization's audit log, once; the other organization's log is untouched.
    const swept = await db.auditEvent.findMany({
      where: { organizationId: app.tenant.organization.id, action: "retention.sweep" },
    });
    expect(swept).toHaveLength(1);
    expect(swept[0]).toMatchObject({
      actorType: "system",
      door: "system",
      targetLabel: "Conversations older than 30 days",
    });
    expect(swept[0]!.changes).toEqual({
      deletedConversations: [null, [expired.conversationId]],
      emptiedExecutions: [null, 1],
    });
    expect(
      await db.auditEvent.count({
        where: { organizationId: keeper.tenant.organization.id, action: "retention.sweep" },
      }),
    ).toBe(0);

    // The expired conversation is gone with its messages; the others are untouched.
    expect(await db.conversation.findUnique({ where: { id: expired.conversationId } })).toBeNull();
    expect(await db.conversationMessage.count({ where: { conversationId: expired.conversationId } })).toBe(0);
    const continued = await api("POST", `/apps/${app.appId}/conversation`, {
      key: app.key,
      body: { message: "And shipping?", conversation_id: expired.conversationId },
    });
    expect(continued.status).toBe(404);
    expect(await db.conversationMessage.count({ where: { conversationId: recent.conversationId } })).toBe(2);
    expect(await db.conversationMessage.count({ where: { conversationId: unlimited.conversationId } })).toBe(2);

    // Its execution keeps what it cost, without the content.
    const executionAfter = await db.execution.findUniqueOrThrow({ where: { id: expired.executionId } });
    expect(executionAfter).toMatchObject({ input: "", output: "", trace: [], feedbackReason: null });
    expect(executionAfter.credits).toBe(executionBefore.credits);
    expect(executionAfter.usage).toEqual(executionBefore.usage);
    expect((await db.execution.findUniqueOrThrow({ where: { id: recent.executionId } })).input).toContain("shipping");
    const usageAfter = await api("GET", "/usage", { key: app.key });
    expect({ totals: usageAfter.body.totals, series: usageAfter.body.series }).toEqual({
      totals: usageBefore.body.totals,
      series: usageBefore.body.series,
    });
  });
});
