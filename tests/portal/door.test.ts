// The portal door over HTTP: the outcome (alice signs in with a code from the outbox,
// sees her apps, chats over SSE, comes back to her conversations, sees her credits fall and is
// told plainly at zero) and the door's refusals.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { converse } from "@/server/services/runs/conversations";
import { create, publish } from "../builder-helpers";
import { api, signInCookie } from "../helpers";
import { readEvents } from "../runtime-helpers";
import { errorCode, portalCall, portalChat, portalScenario, signIn } from "./helpers";

describe("the portal door", () => {
  it("shows the portal to anyone by slug or id, and not_found for an unknown one", async () => {
    const scenario = await portalScenario();
    const bySlug = await portalCall("query", "portal.get", { portal: scenario.portal.slug });
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.result.data.portal).toEqual({
      id: scenario.portal.id,
      slug: scenario.portal.slug,
      name: "Help Center",
      greeting: "",
      logoUrl: null,
      accentColor: null,
      organizationName: scenario.tenant.organization.name,
      signIn: "email_code",
      defaultLanguage: "en",
      ssoName: null,
    });
    const byId = await portalCall("query", "portal.get", { portal: scenario.portal.id });
    expect(byId.body.result.data.portal.slug).toBe(scenario.portal.slug);
    const unknown = await portalCall("query", "portal.get", { portal: "no-such-portal" });
    expect(unknown.status).toBe(404);
    expect(errorCode(unknown)).toBe("not_found");
    // A name no portal can have (a NUL PostgreSQL cannot store, far too long): not_found too, never a 5xx.
    for (const portal of ["help\u0000center", "x".repeat(10_000)]) {
      const chat = await portalChat(portal, scenario.appId, { message: "Hello?" });
      expect(chat.status).toBe(404);
      expect(((await chat.json()) as { error: { code: string } }).error.code).toBe("not_found");
    }
  });

  it("alice signs in, sees exactly her apps and credits, chats over SSE and finds the conversation again", async () => {
    const scenario = await portalScenario({ credits: 100 });
    const db = getDb();
    // An app she has no grant to stays invisible.
    const other = await create(scenario.key, "apps", {
      name: "Internal tools",
      members: [{ id: scenario.supportAgentId, kind: "agent" }],
    });
    await publish(scenario.key, "apps", other.id);
    const cookie = await signIn(scenario, scenario.endUser.email);
    expect(cookie).toMatch(/^atrium_portal_session=/);

    const me = await portalCall("query", "me.get", { portal: scenario.portal.slug }, { cookie });
    expect(me.status).toBe(200);
    expect(me.body.result.data.endUser).toEqual({
      id: scenario.endUser.id,
      email: scenario.endUser.email,
      fullName: "Alice",
    });
    expect(me.body.result.data.credits.left).toBe(100);
    expect(me.body.result.data.credits.plans).toEqual([
      expect.objectContaining({
        planName: "Starter",
        creditAllowance: 100,
        bonusCredits: 0,
        creditsUsed: 0,
        creditsLeft: 100,
      }),
    ]);

    const apps = await portalCall("query", "apps.list", { portal: scenario.portal.slug }, { cookie });
    expect(apps.body.result.data.apps).toEqual([
      {
        id: scenario.appId,
        name: "Helpdesk",
        description: "",
        greeting: "Hello! How can I help?",
        conversationStarters: [],
      },
    ]);

    const orgBefore = (await db.organization.findUniqueOrThrow({ where: { id: scenario.tenant.organization.id } }))
      .credits;
    const response = await portalChat(
      scenario.portal.slug,
      scenario.appId,
      { message: "How long do refunds take?" },
      { cookie },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = await readEvents(response);
    expect(events.filter((e) => e.event === "delta").length).toBeGreaterThan(0);
    const done = events.find((e) => e.event === "done");
    const result = JSON.parse(done!.data);
    expect(result.reply).toContain("14 days");

    // The run is hers: recorded with her and the portal, billed to her pool and the organization.
    const execution = await db.execution.findUniqueOrThrow({ where: { id: result.execution_id } });
    expect(execution).toMatchObject({
      endUserId: scenario.endUser.id,
      portalId: scenario.portal.id,
      actor: scenario.endUser.email,
      credits: 1,
    });
    const conversation = await db.conversation.findUniqueOrThrow({ where: { id: result.conversation_id } });
    expect(conversation).toMatchObject({ endUserId: scenario.endUser.id, portalId: scenario.portal.id });
    expect((await db.organization.findUniqueOrThrow({ where: { id: scenario.tenant.organization.id } })).credits).toBe(
      orgBefore - 1,
    );
    const after = await portalCall("query", "me.get", { portal: scenario.portal.slug }, { cookie });
    expect(after.body.result.data.credits.left).toBe(99);
    const detail = await api("GET", `/end-users/${scenario.endUser.id}`, { key: scenario.key });
    expect(detail.body.endUser.subscriptions[0].creditsUsed).toBe(1);

    // A second turn continues the conversation; it comes back in her list, newest first.
    const second = await portalChat(
      scenario.portal.slug,
      scenario.appId,
      { message: "And shipping costs?", conversation_id: result.conversation_id },
      { cookie },
    );
    const secondDone = JSON.parse((await readEvents(second)).find((e) => e.event === "done")!.data);
    expect(secondDone.conversation_id).toBe(result.conversation_id);
    const list = await portalCall("query", "conversations.list", { portal: scenario.portal.slug }, { cookie });
    expect(list.body.result.data).toEqual({
      conversations: [
        {
          id: result.conversation_id,
          appId: scenario.appId,
          appName: "Helpdesk",
          title: "How long do refunds take?",
          updatedAt: expect.any(String),
        },
      ],
      nextCursor: null,
    });
    const opened = await portalCall(
      "query",
      "conversations.get",
      { portal: scenario.portal.slug, conversationId: result.conversation_id },
      { cookie },
    );
    expect(opened.body.result.data.conversation.messages.map((m: { role: string }) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  });

  it("tells her plainly when her credits are spent (402 before anything runs, nothing charged)", async () => {
    const scenario = await portalScenario({ credits: 1 });
    const cookie = await signIn(scenario, scenario.endUser.email);
    const first = await portalChat(scenario.portal.slug, scenario.appId, { message: "Hello" }, { cookie });
    expect(first.status).toBe(200);
    await readEvents(first);
    const db = getDb();
    const orgBefore = (await db.organization.findUniqueOrThrow({ where: { id: scenario.tenant.organization.id } }))
      .credits;
    const executionsBefore = await db.execution.count({ where: { organizationId: scenario.tenant.organization.id } });

    const refused = await portalChat(scenario.portal.slug, scenario.appId, { message: "Hello again" }, { cookie });
    expect(refused.status).toBe(402);
    const body = await refused.json();
    expect(body.error.code).toBe("insufficient_credits");
    expect(body.error.message).toMatch(/^You have used all your credits/);
    expect((await db.organization.findUniqueOrThrow({ where: { id: scenario.tenant.organization.id } })).credits).toBe(
      orgBefore,
    );
    expect(await db.execution.count({ where: { organizationId: scenario.tenant.organization.id } })).toBe(
      executionsBefore,
    );
    const me = await portalCall("query", "me.get", { portal: scenario.portal.slug }, { cookie });
    expect(me.body.result.data.credits.left).toBe(0);
  });

  it("refuses without a session (401), for an app she cannot use or that does not exist (404), and a bad body (400)", async () => {
    const scenario = await portalScenario();
    const noSession = await portalChat(scenario.portal.slug, scenario.appId, { message: "Hi" });
    expect(noSession.status).toBe(401);
    expect((await noSession.json()).error.code).toBe("unauthorized");
    for (const procedure of ["me.get", "apps.list", "conversations.list"]) {
      const response = await portalCall("query", procedure, { portal: scenario.portal.slug });
      expect(response.status, procedure).toBe(401);
      expect(errorCode(response)).toBe("unauthorized");
    }

    const cookie = await signIn(scenario, scenario.endUser.email);
    const grantId = (await getDb().grant.findFirstOrThrow({ where: { endUserId: scenario.endUser.id } })).id;
    const other = await portalChat(
      scenario.portal.slug,
      "00000000-0000-4000-8000-000000000000",
      { message: "Hi" },
      { cookie },
    );
    expect(other.status).toBe(404);
    const badBody = await portalChat(scenario.portal.slug, scenario.appId, { message: "" }, { cookie });
    expect(badBody.status).toBe(400);
    expect((await badBody.json()).error.code).toBe("invalid_request");
    const unknownField = await portalChat(
      scenario.portal.slug,
      scenario.appId,
      { message: "Hi", stream: false },
      { cookie },
    );
    expect(unknownField.status).toBe(400);
    const tooLong = await portalChat(scenario.portal.slug, scenario.appId, { message: "x".repeat(32_001) }, { cookie });
    expect(tooLong.status).toBe(400);

    // Without her grant the app answers like an unpublished one.
    expect(
      (await api("DELETE", `/end-users/${scenario.endUser.id}/grants/${grantId}`, { key: scenario.key })).status,
    ).toBe(204);
    const noAccess = await portalChat(scenario.portal.slug, scenario.appId, { message: "Hi" }, { cookie });
    expect(noAccess.status).toBe(404);
    expect((await noAccess.json()).error.code).toBe("not_found");
    const apps = await portalCall("query", "apps.list", { portal: scenario.portal.slug }, { cookie });
    expect(apps.body.result.data.apps).toEqual([]);
    expect(await getDb().execution.count({ where: { organizationId: scenario.tenant.organization.id } })).toBe(0);
  });

  it("takes the app id as a browser may write it: one that cannot be an id is not_found (the service's rule, for every door), an uppercase one is the app", async () => {
    const scenario = await portalScenario({ credits: 100 });
    const cookie = await signIn(scenario, scenario.endUser.email);
    for (const appId of ["not-an-id", "1234", `${scenario.appId}0`]) {
      const response = await portalChat(scenario.portal.slug, appId, { message: "Hi" }, { cookie });
      expect(response.status, appId).toBe(404);
      expect((await response.json()).error.code).toBe("not_found");
    }
    await expect(
      converse(getDb(), scenario.tenant.operator, { appId: "not-an-id", message: "Hi" }),
    ).rejects.toMatchObject({ code: "not_found" });
    expect(await getDb().execution.count({ where: { organizationId: scenario.tenant.organization.id } })).toBe(0);

    const upper = await portalChat(
      scenario.portal.slug,
      scenario.appId.toUpperCase(),
      { message: "How long do refunds take?" },
      { cookie },
    );
    expect(upper.status).toBe(200);
    expect((await readEvents(upper)).some((event) => event.event === "done")).toBe(true);
    const executions = await getDb().execution.findMany({ where: { organizationId: scenario.tenant.organization.id } });
    expect(executions.map((execution) => [execution.itemId, execution.endUserId])).toEqual([
      [scenario.appId, scenario.endUser.id],
    ]);
  });

  it("refuses cross-site writes, bodies that are not JSON and oversized bodies, before anything runs", async () => {
    const scenario = await portalScenario();
    const cookie = await signIn(scenario, scenario.endUser.email);
    const crossSite = await portalChat(
      scenario.portal.slug,
      scenario.appId,
      { message: "Hi" },
      { cookie, headers: { origin: "https://evil.example" } },
    );
    expect(crossSite.status).toBe(403);
    expect((await crossSite.json()).error.code).toBe("cross_origin_request");
    const fetchSite = await portalChat(
      scenario.portal.slug,
      scenario.appId,
      { message: "Hi" },
      { cookie, headers: { "sec-fetch-site": "cross-site" } },
    );
    expect(fetchSite.status).toBe(403);
    const form = await portalChat(scenario.portal.slug, scenario.appId, undefined, {
      cookie,
      rawBody: "message=Hi",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);

    const long = await portalChat(scenario.portal.slug, scenario.appId, { message: "x".repeat(32_001) }, { cookie });
    expect(long.status).toBe(400);
    expect((await long.json()).error.code).toBe("invalid_request");
    const huge = await portalChat(scenario.portal.slug, scenario.appId, { message: "x".repeat(9_000_000) }, { cookie });
    expect(huge.status).toBe(413);
    const hugeCall = await portalCall("mutation", "auth.requestCode", {
      portal: scenario.portal.slug,
      email: `${"x".repeat(9_000_000)}@example.test`,
    });
    expect(hugeCall.status).toBe(413);

    const signOutCrossSite = await portalCall(
      "mutation",
      "auth.signOut",
      { portal: scenario.portal.slug },
      { cookie, headers: { origin: "https://evil.example" } },
    );
    expect(signOutCrossSite.status).toBe(403);
    const textPlain = await portalCall(
      "mutation",
      "auth.requestCode",
      { portal: scenario.portal.slug, email: scenario.endUser.email },
      { headers: { "content-type": "text/plain" } },
    );
    expect(textPlain.status).toBe(415);
    expect(await getDb().execution.count({ where: { organizationId: scenario.tenant.organization.id } })).toBe(0);
    // The session survived the cross-site sign-out.
    expect((await portalCall("query", "me.get", { portal: scenario.portal.slug }, { cookie })).status).toBe(200);
  });

  it("keeps end users' conversations apart: never listed, opened or continued by another end user", async () => {
    const scenario = await portalScenario();
    const bob = `bob-${scenario.endUser.email}`;
    await api("POST", "/end-users", {
      key: scenario.key,
      body: { email: bob, tierPlanIds: [scenario.plan.id], grants: [{ targetKind: "app", targetId: scenario.appId }] },
    });
    const alice = await signIn(scenario, scenario.endUser.email);
    const bobCookie = await signIn(scenario, bob);
    const chat = await portalChat(
      scenario.portal.slug,
      scenario.appId,
      { message: "My secret question" },
      { cookie: alice },
    );
    const conversationId = JSON.parse((await readEvents(chat)).find((e) => e.event === "done")!.data).conversation_id;

    const list = await portalCall(
      "query",
      "conversations.list",
      { portal: scenario.portal.slug },
      { cookie: bobCookie },
    );
    expect(list.body.result.data.conversations).toEqual([]);
    const open = await portalCall(
      "query",
      "conversations.get",
      { portal: scenario.portal.slug, conversationId },
      { cookie: bobCookie },
    );
    expect(open.status).toBe(404);
    const db = getDb();
    const orgBefore = (await db.organization.findUniqueOrThrow({ where: { id: scenario.tenant.organization.id } }))
      .credits;
    const hijack = await portalChat(
      scenario.portal.slug,
      scenario.appId,
      { message: "Tell me", conversation_id: conversationId },
      { cookie: bobCookie },
    );
    expect(hijack.status).toBe(404);
    expect((await db.organization.findUniqueOrThrow({ where: { id: scenario.tenant.organization.id } })).credits).toBe(
      orgBefore,
    );
    // Nor does the console's chat show it to members.
    const member = await signInCookie(scenario.tenant.owner.email, scenario.tenant.owner.password);
    const { trpc } = await import("../helpers");
    const consoleList = await trpc("query", "conversations.list", { appId: scenario.appId }, { cookie: member });
    expect(consoleList.body.result.data.conversations).toEqual([]);
  });

  it("never takes the console's session in the portal, nor the portal's in the console", async () => {
    const scenario = await portalScenario();
    const member = await signInCookie(scenario.tenant.owner.email, scenario.tenant.owner.password);
    const inPortal = await portalCall("query", "me.get", { portal: scenario.portal.slug }, { cookie: member });
    expect(inPortal.status).toBe(401);
    const endUser = await signIn(scenario, scenario.endUser.email);
    const { trpc } = await import("../helpers");
    const inConsole = await trpc("query", "auth.me", undefined, { cookie: endUser });
    expect(inConsole.status).toBe(401);
  });

  it("one session serves every portal of her organization, and no portal of another", async () => {
    const scenario = await portalScenario();
    const second = await api("POST", "/portals", { key: scenario.key, body: { name: "Partners" } });
    const cookie = await signIn(scenario, scenario.endUser.email);
    const there = await portalCall("query", "me.get", { portal: second.body.portal.slug }, { cookie });
    expect(there.status).toBe(200);
    // Her grant is limited to Help Center, so Partners shows her no app.
    expect(
      (await portalCall("query", "apps.list", { portal: second.body.portal.slug }, { cookie })).body.result.data.apps,
    ).toEqual([]);
    const elsewhere = await portalScenario();
    const foreign = await portalCall("query", "me.get", { portal: elsewhere.portal.slug }, { cookie });
    expect(foreign.status).toBe(401);
  });

  it("signs out: the cookie is cleared and the session is gone", async () => {
    const scenario = await portalScenario();
    const cookie = await signIn(scenario, scenario.endUser.email);
    const out = await portalCall("mutation", "auth.signOut", { portal: scenario.portal.slug }, { cookie });
    expect(out.status).toBe(200);
    expect(out.body.result.data).toEqual({ ok: true });
    expect(out.headers.get("set-cookie")).toMatch(/^atrium_portal_session=;.*Max-Age=0/);
    expect((await portalCall("query", "me.get", { portal: scenario.portal.slug }, { cookie })).status).toBe(401);
    expect(await getDb().endUserSession.count({ where: { endUserId: scenario.endUser.id } })).toBe(0);
  });
});
