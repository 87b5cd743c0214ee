// The end user's conversation history: titles from the first question, search by title or text,
// rename and delete (hidden from them only), and nobody else's conversations.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { conversationTitle } from "@/server/services/runs/save-turn";
import { api } from "../helpers";
import { readEvents } from "../runtime-helpers";
import { clientAddress, errorCode, portalCall, portalChat, portalScenario, signIn } from "./helpers";

async function ask(
  slug: string,
  appId: string,
  cookie: string,
  message: string,
  conversationId?: string,
): Promise<string> {
  const body = conversationId ? { message, conversation_id: conversationId } : { message };
  const events = await readEvents(await portalChat(slug, appId, body, { cookie }));
  return JSON.parse(events.find((e) => e.event === "done")!.data).conversation_id;
}

describe("portal conversation history", () => {
  it("titles, searches, renames and deletes the end user's own conversations", async () => {
    const scenario = await portalScenario();
    const portal = scenario.portal.slug;
    const cookie = await signIn(scenario, scenario.endUser.email);
    const refunds = await ask(portal, scenario.appId, cookie, "How long do refunds take? I ordered last week.");
    const other = await ask(portal, scenario.appId, cookie, "Is there an outage today?");
    const list = async (input: Record<string, unknown> = {}) =>
      (await portalCall("query", "conversations.list", { portal, limit: 20, ...input }, { cookie })).body.result.data
        .conversations as { id: string; title: string }[];
    expect((await list()).map((c) => c.id)).toEqual([other, refunds]);
    expect((await list()).find((c) => c.id === refunds)!.title).toBe("How long do refunds take?");
    expect((await list({ q: "OUTAGE" })).map((c) => c.id)).toEqual([other]);
    expect((await list({ q: "14 days" })).map((c) => c.id)).toEqual([refunds]);
    expect(await list({ q: "100%_" })).toEqual([]);
    expect((await list({ appId: scenario.appId })).length).toBe(2);

    const renamed = await portalCall(
      "mutation",
      "conversations.rename",
      { portal, conversationId: refunds, title: "Refund timing" },
      { cookie },
    );
    expect(renamed.body.result.data.conversation).toMatchObject({ id: refunds, title: "Refund timing" });
    expect(
      errorCode(
        await portalCall(
          "mutation",
          "conversations.rename",
          { portal, conversationId: refunds, title: "x".repeat(201) },
          { cookie },
        ),
      ),
    ).toBe("invalid_request");

    const deleted = await portalCall(
      "mutation",
      "conversations.delete",
      { portal, conversationId: refunds },
      { cookie },
    );
    expect(deleted.body.result.data).toEqual({ ok: true });
    expect((await list()).map((c) => c.id)).toEqual([other]);
    expect(
      errorCode(await portalCall("query", "conversations.get", { portal, conversationId: refunds }, { cookie })),
    ).toBe("not_found");
    const continued = await portalChat(
      portal,
      scenario.appId,
      { message: "And shipping?", conversation_id: refunds },
      { cookie },
    );
    expect(continued.status).toBe(404);
    // Both writes are in the audit log, by the end user through the portal.
    const recorded = await getDb().auditEvent.findMany({
      where: { organizationId: scenario.tenant.organization.id, targetId: refunds },
      orderBy: { occurredAt: "asc" },
    });
    expect(recorded.map((e) => [e.action, e.actorType, e.actorId, e.door])).toEqual([
      ["conversation.rename", "end_user", scenario.endUser.id, "portal"],
      ["conversation.hide", "end_user", scenario.endUser.id, "portal"],
    ]);
    // The organization keeps it: the conversation and its executions stay.
    expect(await getDb().conversation.count({ where: { id: refunds } })).toBe(1);
    expect(
      (await api("GET", `/executions?endUserId=${scenario.endUser.id}`, { key: scenario.key })).body.executions,
    ).toHaveLength(2);
  });

  it("another end user's conversation is not_found for get, rename, delete and search", async () => {
    const scenario = await portalScenario();
    const portal = scenario.portal.slug;
    const cookie = await signIn(scenario, scenario.endUser.email);
    const mine = await ask(portal, scenario.appId, cookie, "How long do refunds take?");
    const bob = `bob-${Date.now()}@customer.example`;
    expect(
      (await api("POST", "/end-users", { key: scenario.key, body: { email: bob, tierPlanIds: [scenario.plan.id] } }))
        .status,
    ).toBe(201);
    const bobCookie = await signIn(scenario, bob, clientAddress());
    expect(
      errorCode(
        await portalCall("query", "conversations.get", { portal, conversationId: mine }, { cookie: bobCookie }),
      ),
    ).toBe("not_found");
    expect(
      errorCode(
        await portalCall(
          "mutation",
          "conversations.rename",
          { portal, conversationId: mine, title: "Mine now" },
          { cookie: bobCookie },
        ),
      ),
    ).toBe("not_found");
    expect(
      errorCode(
        await portalCall("mutation", "conversations.delete", { portal, conversationId: mine }, { cookie: bobCookie }),
      ),
    ).toBe("not_found");
    expect(
      (await portalCall("query", "conversations.list", { portal, limit: 20, q: "refunds" }, { cookie: bobCookie })).body
        .result.data.conversations,
    ).toEqual([]);
    expect((await getDb().conversation.findUniqueOrThrow({ where: { id: mine } })).hiddenAt).toBeNull();
  });

  it("shows what each answer cost the end user: the credits their pool was charged for its turn", async () => {
    // The pool is a few hundred credits: a priced turn reserves its calls' ceilings first.
    const scenario = await portalScenario({ credits: 5_000, orgCredits: 100_000 });
    const portal = scenario.portal.slug;
    const price = await api("PUT", "/model-prices/atrium-offline", {
      key: scenario.key,
      body: { inputCreditsPerMillion: 1_000_000, outputCreditsPerMillion: 0, minimumCredits: 1 },
    });
    expect(price.status, price.text).toBe(200);
    const cookie = await signIn(scenario, scenario.endUser.email);
    const conversationId = await ask(portal, scenario.appId, cookie, "How long do refunds take?");
    await ask(portal, scenario.appId, cookie, "And is shipping refunded?", conversationId);

    const read = await portalCall("query", "conversations.get", { portal, conversationId }, { cookie });
    const messages = read.body.result.data.conversation.messages as { role: string; credits: number | null }[];
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    // A question costs nothing by itself; each answer carries its turn's charge, as the pool moved.
    expect(messages.filter((m) => m.role === "user").map((m) => m.credits)).toEqual([null, null]);
    const costs = messages.filter((m) => m.role === "assistant").map((m) => m.credits!);
    const executions = await getDb().execution.findMany({
      where: { organizationId: scenario.tenant.organization.id, conversationId },
      orderBy: { createdAt: "asc" },
    });
    expect(costs).toEqual(executions.map((execution) => execution.credits));
    expect(costs.every((cost) => cost > 1)).toBe(true);
    const pool = await getDb().subscription.findFirstOrThrow({ where: { endUserId: scenario.endUser.id } });
    expect(pool.creditsUsed).toBe(costs[0]! + costs[1]!);
  });

  it("makes a title from the first sentence, at most 80 characters", () => {
    expect(conversationTitle("  What is   the refund policy?  And shipping? ")).toBe("What is the refund policy?");
    const long = conversationTitle("word ".repeat(40));
    expect(long.length).toBeLessThanOrEqual(80);
    expect(long.endsWith("…")).toBe(true);
  });
});
