// An end user's own export from the portal, delivered as they choose (issue 48): downloaded now,
// or through a link mailed to them. Over real HTTP through our own server. The export is written
// as it is read, so a long history arrives whole and valid without being built in memory; the
// mailed link starts at PUBLIC_ORIGIN whatever the request's headers say, is in the portal's
// language, works once, for 24 hours, and only for the end user it was sent to.
process.env.PUBLIC_ORIGIN = "https://atrium.example.com";

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { EXPORT_PAGE_ROWS, streamEndUserExport } from "@/server/services/provisioning/end-user-export";
import { api } from "../helpers";
import { listenOnLoopback, type LoopbackServer } from "../loopback-server";
import { clientAddress, portalScenario, signIn, type PortalScenario } from "./helpers";

const PUBLIC = "https://atrium.example.com";
const FORGED = { "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" };

let loopback: LoopbackServer;

beforeAll(async () => {
  loopback = await listenOnLoopback(1);
});

afterAll(() => loopback.close());

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

async function call(
  method: "GET" | "POST",
  path: string,
  options: { cookie?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...clientAddress(), ...options.headers };
  if (options.cookie) headers.cookie = options.cookie;
  if (method === "POST") {
    headers["content-type"] ??= "application/json";
    headers.origin ??= PUBLIC;
  }
  const response = await fetch(`${loopback.base}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: response.status, headers: response.headers, text, body };
}

const exportPath = (portal: string) => `/api/portal/${portal}/account/export`;

/** Asks for a link by mail through the portal's tRPC door; the token from the mail sent. */
async function mailLink(scenario: PortalScenario, cookie: string, email: string, language?: string) {
  const asked = await call("POST", "/api/portal/trpc/account.mailExport", {
    cookie,
    body: { portal: scenario.portal.slug, ...(language ? { language } : {}) },
    headers: FORGED,
  });
  const mail = await getDb().outboxMessage.findFirst({
    where: { organizationId: scenario.tenant.organization.id, to: email, subject: { not: { contains: "code" } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  const token = mail?.text.match(/#export=([A-Za-z0-9_-]+)/)?.[1];
  return { asked, mail, token };
}

/** Another end user of the scenario's organization, granted the same app, signed in. */
async function anotherEndUser(scenario: PortalScenario): Promise<{ email: string; cookie: string }> {
  const email = `bob-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@customer.example`;
  const made = await api("POST", "/end-users", {
    key: scenario.key,
    body: { email, tierPlanIds: [scenario.plan.id] },
  });
  expect(made.status).toBe(201);
  return { email, cookie: await signIn(scenario, email) };
}

/** A long history written straight to the tables: more conversations, and one longer conversation, than a page holds. */
async function longHistory(scenario: PortalScenario, conversations: number, messagesInLongest: number) {
  const db = getDb();
  const start = Date.UTC(2026, 0, 1);
  const rows = Array.from({ length: conversations }, (_, i) => ({
    organizationId: scenario.tenant.organization.id,
    appId: scenario.appId,
    startedBy: scenario.endUser.email,
    endUserId: scenario.endUser.id,
    portalId: scenario.portal.id,
    title: `Question ${i}`,
    createdAt: new Date(start + i * 1000),
  }));
  await db.conversation.createMany({ data: rows });
  const made = await db.conversation.findMany({
    where: { endUserId: scenario.endUser.id },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true },
  });
  await db.conversationMessage.createMany({
    data: made.map((c, i) => ({
      conversationId: c.id,
      role: "user",
      content: `Message of conversation ${i}`,
      createdAt: new Date(start + i * 1000),
    })),
  });
  const longest = made[0]!.id;
  await db.conversationMessage.createMany({
    data: Array.from({ length: messagesInLongest }, (_, i) => ({
      conversationId: longest,
      role: i % 2 ? "assistant" : "user",
      content: `Turn ${i} ${"x".repeat(200)}`,
      createdAt: new Date(start + 500 + i),
    })),
  });
  return { ids: made.map((c) => c.id), longest };
}

describe("the end user's own export, downloaded", () => {
  it("streams a long history whole and as valid JSON, the same document as the admin's, never built in one piece", async () => {
    const scenario = await portalScenario();
    const cookie = await signIn(scenario, scenario.endUser.email);
    const conversations = EXPORT_PAGE_ROWS + 37;
    const messagesInLongest = EXPORT_PAGE_ROWS + 11;
    const { ids, longest } = await longHistory(scenario, conversations, messagesInLongest);

    const response = await call("GET", exportPath(scenario.portal.slug), { cookie });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="my-data-${scenario.portal.slug}.json"`,
    );
    expect(response.headers.get("cache-control")).toBe("private, no-store");
    const document = JSON.parse(response.text);
    expect(document.endUser.id).toBe(scenario.endUser.id);
    expect(document.conversations.map((c: { id: string }) => c.id)).toEqual(ids);
    const long = document.conversations.find((c: { id: string }) => c.id === longest);
    expect(long.messages).toHaveLength(messagesInLongest + 1);
    expect(long.messages.slice(1).map((m: { content: string }) => m.content.split(" ").slice(0, 2).join(" "))).toEqual(
      Array.from({ length: messagesInLongest }, (_, i) => `Turn ${i}`),
    );

    // The admin's export (the API's, read whole) holds the very same document.
    const byAdmin = await api("GET", `/end-users/${scenario.endUser.id}/export`, { key: scenario.key });
    expect(byAdmin.status).toBe(200);
    expect({ ...byAdmin.body, exportedAt: null, auditEvents: null }).toEqual({
      ...document,
      exportedAt: null,
      auditEvents: null,
    });

    // Written a page at a time: no piece comes near the whole document.
    const pieces: string[] = [];
    const operator = { kind: "operator" as const, organizationId: scenario.tenant.organization.id };
    for await (const piece of await streamEndUserExport(getDb(), operator, { endUserId: scenario.endUser.id }))
      pieces.push(piece);
    const whole = pieces.join("");
    expect(JSON.parse(whole).conversations).toHaveLength(conversations);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(whole.length / 10);

    const event = await getDb().auditEvent.findFirst({
      where: { organizationId: scenario.tenant.organization.id, action: "end_user.export" },
    });
    expect(event).toMatchObject({ actorId: scenario.endUser.id, door: "portal", targetId: scenario.endUser.id });
  }, 120_000);

  it("needs the end user's session, from this site's own pages", async () => {
    const scenario = await portalScenario();
    const cookie = await signIn(scenario, scenario.endUser.email);
    const anonymous = await call("GET", exportPath(scenario.portal.slug));
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe("unauthorized");
    const crossSite = await call("GET", exportPath(scenario.portal.slug), {
      cookie,
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error.code).toBe("cross_origin_request");
    expect(crossSite.text).not.toContain(scenario.endUser.email);
  });
});

describe("the end user's own export, by a mailed link", () => {
  it("mails a link at PUBLIC_ORIGIN in the page's language, which works once, for them alone", async () => {
    const scenario = await portalScenario();
    const alice = scenario.endUser.email;
    const cookie = await signIn(scenario, alice);
    const bob = await anotherEndUser(scenario);

    const { asked, mail, token } = await mailLink(scenario, cookie, alice, "fr");
    expect(asked.status).toBe(200);
    expect(asked.body.result.data).toEqual({ sent: true, expiresInSeconds: 24 * 3600 });
    expect(mail!.subject).toBe(`Vos données de ${scenario.portal.name}`);
    expect(mail!.text).toContain(`${PUBLIC}/p/${scenario.portal.slug}/conversations#export=${token}`);
    expect(mail!.text).toContain("24 heures");
    expect(mail!.text).not.toContain("evil.example");
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Stored hashed: the token itself is nowhere in the database.
    const stored = await getDb().endUserExportLink.findMany({ where: { endUserId: scenario.endUser.id } });
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(token!);

    // Bob, signed in, cannot use Alice's link, and his try leaves it usable for her.
    const byBob = await call("POST", exportPath(scenario.portal.slug), { cookie: bob.cookie, body: { link: token } });
    expect(byBob.status).toBe(403);
    expect(byBob.body.error.code).toBe("export_link_other_user");
    expect(byBob.text).not.toContain(alice);
    // Nor can anyone without a session (a mail scanner following the link, a forwarded mail).
    const anonymous = await call("POST", exportPath(scenario.portal.slug), { body: { link: token } });
    expect(anonymous.status).toBe(401);
    // A guessed token is no link.
    const guessed = await call("POST", exportPath(scenario.portal.slug), {
      cookie,
      body: { link: "A".repeat(43) },
    });
    expect(guessed.status).toBe(404);
    expect(guessed.body.error.code).toBe("not_found");
    // Another site's page cannot make Alice's browser spend it.
    const crossOrigin = await call("POST", exportPath(scenario.portal.slug), {
      cookie,
      body: { link: token },
      headers: { origin: "https://evil.example" },
    });
    expect(crossOrigin.status).toBe(403);
    expect(crossOrigin.body.error.code).toBe("cross_origin_request");

    const byAlice = await call("POST", exportPath(scenario.portal.slug), { cookie, body: { link: token } });
    expect(byAlice.status).toBe(200);
    const document = JSON.parse(byAlice.text);
    expect(document.endUser.email).toBe(alice);
    expect(byAlice.text).not.toContain(bob.email);

    const again = await call("POST", exportPath(scenario.portal.slug), { cookie, body: { link: token } });
    expect(again.status).toBe(410);
    expect(again.body.error).toMatchObject({ code: "export_link_unavailable", reason: "used" });

    const mailed = await getDb().auditEvent.findMany({
      where: { organizationId: scenario.tenant.organization.id, action: { startsWith: "end_user.export" } },
      orderBy: { occurredAt: "asc" },
      select: { action: true, actorId: true, changes: true },
    });
    expect(mailed.map((e) => e.action)).toEqual(["end_user.export_mail", "end_user.export"]);
    expect(mailed[1]!.changes).toEqual({ delivery: [null, "mail"] });
  });

  it("refuses an expired link, another organization's portal, and a fourth link within the hour", async () => {
    const scenario = await portalScenario();
    const alice = scenario.endUser.email;
    const cookie = await signIn(scenario, alice);

    const first = await mailLink(scenario, cookie, alice);
    expect(first.asked.status).toBe(200);
    expect(first.mail!.subject).toBe(`Your data from ${scenario.portal.name}`);
    await getDb().endUserExportLink.updateMany({
      where: { endUserId: scenario.endUser.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const expired = await call("POST", exportPath(scenario.portal.slug), { cookie, body: { link: first.token } });
    expect(expired.status).toBe(410);
    expect(expired.body.error).toMatchObject({ code: "export_link_unavailable", reason: "expired" });

    // Another organization's end user, in their own portal, with Alice's live link.
    const second = await mailLink(scenario, cookie, alice);
    const other = await portalScenario();
    const carol = await signIn(other, other.endUser.email);
    const elsewhere = await call("POST", exportPath(other.portal.slug), {
      cookie: carol,
      body: { link: second.token },
    });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.code).toBe("not_found");
    expect(elsewhere.text).not.toContain(alice);
    // Alice's session is no session in the other organization's portal.
    const aliceThere = await call("POST", exportPath(other.portal.slug), { cookie, body: { link: second.token } });
    expect(aliceThere.status).toBe(401);
    // The link still works where it was asked.
    expect(
      (await call("POST", exportPath(scenario.portal.slug), { cookie, body: { link: second.token } })).status,
    ).toBe(200);

    expect((await mailLink(scenario, cookie, alice)).asked.status).toBe(200);
    const fourth = await mailLink(scenario, cookie, alice);
    expect(fourth.asked.status).toBe(429);
    expect(fourth.asked.body.error.data.appError.code).toBe("rate_limited");
    expect(Number(fourth.asked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await getDb().endUserExportLink.count({ where: { endUserId: scenario.endUser.id } })).toBe(3);
  });
});
