// The embedded chat (contract, "Embedded chat"): the portal's embed settings and secret over
// REST, and the token exchange through the production listener with every attack the issue
// names refused (401, or 403 for the origin), recorded, and nothing charged or signed in.
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
});

import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { contentSecurityPolicy, SECURITY_HEADERS } from "@/middleware";
import { hitRateLimit } from "@/server/auth/rate-limit";
import { getDb } from "@/server/db";
import { createRequestListener } from "@/server/http/listener";
import { EMBED_EXCHANGES_PER_MINUTE } from "@/server/services/portal/portal-embed";
import { api, expectError, toApiResponse, type ApiResponse } from "../helpers";
import { listenOnLoopback, type LoopbackServer } from "../loopback-server";
import { readEvents } from "../runtime-helpers";
import { clientAddress, errorCode, portalCall, portalChat, portalScenario, type PortalScenario } from "./helpers";

const SITE = "https://shop.example";
const OTHER_SITE = "https://evil.example";

let server: LoopbackServer;
beforeAll(async () => {
  // One trusted proxy: each exchange names its client address, so the per-address throttle stays per test.
  server = await listenOnLoopback(1);
});
afterAll(() => server?.close());

interface Embedded extends PortalScenario {
  secret: string;
}

/** alice's portal with embedding on for SITE and a fresh secret. */
async function embeddedPortal(settings: Record<string, unknown> = {}): Promise<Embedded> {
  const scenario = await portalScenario({ credits: 10 });
  const patched = await api("PATCH", `/portals/${scenario.portal.id}`, {
    key: scenario.key,
    body: { embed: { enabled: true, allowedOrigins: [SITE] }, ...settings },
  });
  if (patched.status !== 200) throw new Error(`patch: ${patched.status} ${patched.text}`);
  const rotated = await api("POST", `/portals/${scenario.portal.id}/embed-secret`, { key: scenario.key });
  if (rotated.status !== 200) throw new Error(`secret: ${rotated.status} ${rotated.text}`);
  return { ...scenario, secret: rotated.body.secret };
}

interface Claims {
  sub?: string;
  aud?: string;
  iat?: number;
  exp?: number;
  name?: string;
}

/** A token as the organization's backend signs it (jose, HS256). */
async function signToken(secret: string, claims: Claims): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const { sub, aud, iat = now, exp = now + 600, name } = claims;
  const jwt = new SignJWT(name ? { name } : {}).setProtectedHeader({ alg: "HS256", typ: "JWT" }).setIssuedAt(iat);
  if (sub) jwt.setSubject(sub);
  if (aud) jwt.setAudience(aud);
  jwt.setExpirationTime(exp);
  return jwt.sign(new TextEncoder().encode(secret));
}

function tokenFor(embedded: Embedded, claims: Claims = {}): Promise<string> {
  return signToken(embedded.secret, { sub: embedded.endUser.email, aud: embedded.portal.id, ...claims });
}

/** POST /api/portal/{portal}/embed/session through the listener, as a page of `origin` would. */
async function exchange(
  portal: string,
  token: string,
  origin: string | null = SITE,
  extra: Record<string, unknown> = {},
  from: Record<string, string> = clientAddress(),
): Promise<ApiResponse> {
  const headers: Record<string, string> = { "content-type": "application/json", ...from };
  if (origin) headers.origin = origin;
  const response = await fetch(`${server.base}/api/portal/${encodeURIComponent(portal)}/embed/session`, {
    method: "POST",
    headers,
    body: JSON.stringify({ token, ...extra }),
  });
  return toApiResponse(response);
}

async function sessionCount(endUserId: string): Promise<number> {
  return getDb().endUserSession.count({ where: { endUserId } });
}

async function embedEvents(organizationId: string) {
  return getDb().auditEvent.findMany({
    where: { organizationId, action: "portal.embed_sign_in" },
    orderBy: { occurredAt: "asc" },
  });
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

describe("embed settings", () => {
  it("stores the origins in their normal form and refuses paths, other schemes and too many", async () => {
    const scenario = await portalScenario();
    const path = `/portals/${scenario.portal.id}`;
    const saved = await api("PATCH", path, {
      key: scenario.key,
      body: { embed: { enabled: true, allowedOrigins: ["HTTPS://Shop.Example", "http://localhost:4000"] } },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.portal.embed).toEqual({
      enabled: true,
      allowedOrigins: ["https://shop.example", "http://localhost:4000"],
      hasSecret: false,
    });
    for (const bad of ["https://shop.example/path", "ftp://shop.example", "shop.example", "https://a@shop.example"]) {
      const refused = await api("PATCH", path, { key: scenario.key, body: { embed: { allowedOrigins: [bad] } } });
      expectError(refused, 400, "invalid_request");
    }
    const many = Array.from({ length: 21 }, (_, n) => `https://site${n}.example`);
    expectError(
      await api("PATCH", path, { key: scenario.key, body: { embed: { allowedOrigins: many } } }),
      400,
      "invalid_request",
    );
    const kept = await api("GET", `/portals`, { key: scenario.key });
    expect(kept.body.portals[0].embed.allowedOrigins).toEqual(["https://shop.example", "http://localhost:4000"]);
  });

  it("takes a provisioning plan of the organization only", async () => {
    const scenario = await portalScenario();
    const path = `/portals/${scenario.portal.id}`;
    const unknown = await api("PATCH", path, {
      key: scenario.key,
      body: { provisionPlanId: "00000000-0000-4000-8000-000000000000" },
    });
    expect(expectError(unknown, 400, "invalid_request").message).toContain("provisionPlanId");
    const set = await api("PATCH", path, { key: scenario.key, body: { provisionPlanId: scenario.plan.id } });
    expect(set.body.portal.provisionPlanId).toBe(scenario.plan.id);
    const cleared = await api("PATCH", path, { key: scenario.key, body: { provisionPlanId: null } });
    expect(cleared.body.portal.provisionPlanId).toBeNull();
  });

  it("shows the secret once, stores it sealed and records the rotation", async () => {
    const embedded = await embeddedPortal();
    expect(embedded.secret).toMatch(/^atrium_embed_[A-Za-z0-9_-]{43}$/);
    const row = await getDb().portal.findUniqueOrThrow({ where: { id: embedded.portal.id } });
    expect(row.embedSecret).not.toContain(embedded.secret);
    const shown = await api("GET", `/portals`, { key: embedded.key });
    expect(shown.text).not.toContain(embedded.secret);
    expect(shown.body.portals[0].embed.hasSecret).toBe(true);
    const events = await getDb().auditEvent.findMany({
      where: { organizationId: embedded.tenant.organization.id, action: "portal.embed_secret_rotate" },
    });
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events[0]!.changes)).not.toContain(embedded.secret);
  });
});

describe("the token exchange", () => {
  it("gives alice a session that ends with her token, and she chats on her own pool", async () => {
    const embedded = await embeddedPortal();
    const db = getDb();
    const exp = Math.floor(Date.now() / 1000) + 900;
    const response = await exchange(embedded.portal.slug, await tokenFor(embedded, { exp }));
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(response.body.endUser).toEqual({
      id: embedded.endUser.id,
      email: embedded.endUser.email,
      fullName: "Alice",
    });
    expect(new Date(response.body.expiresAt).getTime()).toBe(exp * 1000);
    const bearer = { authorization: `Bearer ${response.body.session}` };

    const me = await portalCall("query", "me.get", { portal: embedded.portal.slug }, { headers: bearer });
    expect(me.status).toBe(200);
    expect(me.body.result.data.endUser.email).toBe(embedded.endUser.email);

    const orgBefore = (await db.organization.findUniqueOrThrow({ where: { id: embedded.tenant.organization.id } }))
      .credits;
    const chat = await portalChat(
      embedded.portal.slug,
      embedded.appId,
      { message: "How long do refunds take?" },
      { headers: bearer },
    );
    expect(chat.status).toBe(200);
    const done = JSON.parse((await readEvents(chat)).find((event) => event.event === "done")!.data);
    const execution = await db.execution.findUniqueOrThrow({ where: { id: done.execution_id } });
    expect(execution).toMatchObject({ endUserId: embedded.endUser.id, portalId: embedded.portal.id, credits: 1 });
    const after = await portalCall("query", "me.get", { portal: embedded.portal.slug }, { headers: bearer });
    expect(after.body.result.data.credits.left).toBe(9);
    expect((await db.organization.findUniqueOrThrow({ where: { id: embedded.tenant.organization.id } })).credits).toBe(
      orgBefore - 1,
    );
    // Her history is hers, in the portal too.
    const list = await portalCall("query", "conversations.list", { portal: embedded.portal.slug }, { headers: bearer });
    expect(list.body.result.data.conversations.map((c: { id: string }) => c.id)).toEqual([done.conversation_id]);

    const [event] = await embedEvents(embedded.tenant.organization.id);
    expect(event).toMatchObject({ outcome: "success", actorType: "end_user", targetId: embedded.endUser.id });
  });

  it("accepts the portal's id as well as its slug, and the frame's parent origin when the frame calls", async () => {
    const embedded = await embeddedPortal();
    const token = await tokenFor(embedded);
    expect((await exchange(embedded.portal.id, token)).status).toBe(200);
    // The frame is this site's own page: it names the page that handed it the token.
    const fromFrame = await exchange(embedded.portal.slug, token, server.base, { parentOrigin: SITE });
    expect(fromFrame.status, fromFrame.text).toBe(200);
    const frameElsewhere = await exchange(embedded.portal.slug, token, server.base, { parentOrigin: OTHER_SITE });
    expectError(frameElsewhere, 403, "origin_not_allowed");
    const frameSilent = await exchange(embedded.portal.slug, token, server.base);
    expectError(frameSilent, 403, "origin_not_allowed");
  });

  it("refuses every forged, foreign or stale token with 401, records each refusal and signs no one in", async () => {
    const embedded = await embeddedPortal();
    const other = await embeddedPortal();
    const sameOrgPortal = await api("POST", "/portals", { key: embedded.key, body: { name: "Second" } });
    const now = Math.floor(Date.now() / 1000);
    const alice = embedded.endUser.email;
    const attacks: Record<string, string> = {
      "alg none": `${base64url({ alg: "none", typ: "JWT" })}.${base64url({ sub: alice, aud: embedded.portal.id, iat: now, exp: now + 600 })}.`,
      "HS256 with a wrong secret": await signToken("atrium_embed_not-the-secret-at-all-0123456789abc", {
        sub: alice,
        aud: embedded.portal.id,
      }),
      "another organization's secret": await signToken(other.secret, { sub: alice, aud: embedded.portal.id }),
      "aud of another portal of the organization": await tokenFor(embedded, { aud: sameOrgPortal.body.portal.id }),
      "aud of another organization's portal": await tokenFor(embedded, { aud: other.portal.id }),
      "no aud": await signToken(embedded.secret, { sub: alice }),
      expired: await tokenFor(embedded, { iat: now - 1200, exp: now - 600 }),
      "exp more than an hour after iat": await tokenFor(embedded, { iat: now, exp: now + 3601 }),
      "no subject": await signToken(embedded.secret, { aud: embedded.portal.id }),
      "an unknown email": await tokenFor(embedded, { sub: "mallory@customer.example" }),
      "tampered payload": await tokenFor(embedded).then((token) => {
        const [header, , signature] = token.split(".");
        return `${header}.${base64url({ sub: "bob@customer.example", aud: embedded.portal.id, iat: now, exp: now + 600 })}.${signature}`;
      }),
    };
    const orgBefore = (await getDb().organization.findUniqueOrThrow({ where: { id: embedded.tenant.organization.id } }))
      .credits;
    for (const [attack, token] of Object.entries(attacks)) {
      const response = await exchange(embedded.portal.slug, token);
      expect({ attack, status: response.status, code: response.body?.error?.code }).toEqual({
        attack,
        status: 401,
        code: "invalid_embed_token",
      });
      expect(response.text).not.toContain("session");
    }
    expect(await sessionCount(embedded.endUser.id)).toBe(0);
    expect(await getDb().endUser.count({ where: { email: "mallory@customer.example" } })).toBe(0);
    const events = await embedEvents(embedded.tenant.organization.id);
    expect(events).toHaveLength(Object.keys(attacks).length);
    expect(events.every((event) => event.outcome === "failure")).toBe(true);
    expect(events.map((event) => (event.changes as { reason: [null, string] }).reason[1])).toEqual([
      "bad_token",
      "bad_token",
      "bad_token",
      "wrong_audience",
      "wrong_audience",
      "wrong_audience",
      "expired",
      "lifetime_too_long",
      "bad_token",
      "unknown_end_user",
      "bad_token",
    ]);
    expect(
      (await getDb().organization.findUniqueOrThrow({ where: { id: embedded.tenant.organization.id } })).credits,
    ).toBe(orgBefore);
  });

  it("refuses a disallowed origin, a missing one and a disabled embed with 403", async () => {
    const embedded = await embeddedPortal();
    const token = await tokenFor(embedded);
    expectError(await exchange(embedded.portal.slug, token, OTHER_SITE), 403, "origin_not_allowed");
    expectError(await exchange(embedded.portal.slug, token, null), 403, "origin_not_allowed");
    // The same origin with another port or scheme is another origin.
    expectError(await exchange(embedded.portal.slug, token, "http://shop.example"), 403, "origin_not_allowed");
    await api("PATCH", `/portals/${embedded.portal.id}`, { key: embedded.key, body: { embed: { enabled: false } } });
    expectError(await exchange(embedded.portal.slug, token), 403, "origin_not_allowed");
    expect(await sessionCount(embedded.endUser.id)).toBe(0);
    const reasons = (await embedEvents(embedded.tenant.organization.id)).map(
      (event) => (event.changes as { reason: [null, string] }).reason[1],
    );
    expect(reasons).toEqual(["origin_not_allowed", "origin_not_allowed", "origin_not_allowed", "embed_disabled"]);
  });

  it("throttles exchanges per client address before recording anything", async () => {
    const embedded = await embeddedPortal();
    const from = clientAddress();
    const db = getDb();
    for (let n = 0; n < EMBED_EXCHANGES_PER_MINUTE; n++)
      await hitRateLimit(db, `embed-exchange:address:${from["x-forwarded-for"]}`, EMBED_EXCHANGES_PER_MINUTE);
    const throttled = await exchange(embedded.portal.slug, "not.a.token", SITE, {}, from);
    expectError(throttled, 429, "rate_limited");
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await embedEvents(embedded.tenant.organization.id)).toEqual([]);
  });

  it("refuses a portal with no secret yet", async () => {
    const scenario = await portalScenario();
    await api("PATCH", `/portals/${scenario.portal.id}`, {
      key: scenario.key,
      body: { embed: { enabled: true, allowedOrigins: [SITE] } },
    });
    const token = await signToken("atrium_embed_guessed-0123456789-0123456789-0123", {
      sub: scenario.endUser.email,
      aud: scenario.portal.id,
    });
    expectError(await exchange(scenario.portal.slug, token), 401, "invalid_embed_token");
  });

  it("keeps the old secret valid for 24 hours after a rotation, and not after", async () => {
    const embedded = await embeddedPortal();
    const oldToken = await tokenFor(embedded);
    const rotated = await api("POST", `/portals/${embedded.portal.id}/embed-secret`, { key: embedded.key });
    const newToken = await signToken(rotated.body.secret, { sub: embedded.endUser.email, aud: embedded.portal.id });
    expect((await exchange(embedded.portal.slug, oldToken)).status).toBe(200);
    expect((await exchange(embedded.portal.slug, newToken)).status).toBe(200);
    const row = await getDb().portal.findUniqueOrThrow({ where: { id: embedded.portal.id } });
    const until = row.embedPreviousSecretUntil!.getTime() - Date.now();
    expect(until).toBeGreaterThan(23.9 * 3_600_000);
    expect(until).toBeLessThanOrEqual(24 * 3_600_000);
    // A day later.
    await getDb().portal.update({
      where: { id: embedded.portal.id },
      data: { embedPreviousSecretUntil: new Date(Date.now() - 1000) },
    });
    expectError(await exchange(embedded.portal.slug, oldToken), 401, "invalid_embed_token");
    expect((await exchange(embedded.portal.slug, newToken)).status).toBe(200);
  });

  it("refuses revoked end users, and provisions unknown emails only when the portal names a plan", async () => {
    const embedded = await embeddedPortal({ provisionPlanId: undefined });
    await api("POST", `/end-users/${embedded.endUser.id}/revoke`, { key: embedded.key });
    expectError(await exchange(embedded.portal.slug, await tokenFor(embedded)), 401, "invalid_embed_token");

    await api("PATCH", `/portals/${embedded.portal.id}`, {
      key: embedded.key,
      body: { provisionPlanId: embedded.plan.id },
    });
    // Revoked stays revoked: provisioning never restores an account.
    expectError(await exchange(embedded.portal.slug, await tokenFor(embedded)), 401, "invalid_embed_token");
    const bob = "Bob@Customer.example";
    const response = await exchange(embedded.portal.slug, await tokenFor(embedded, { sub: bob, name: "Bob" }));
    expect(response.status, response.text).toBe(200);
    expect(response.body.endUser).toMatchObject({ email: "bob@customer.example", fullName: "Bob" });
    const detail = await api("GET", `/end-users/${response.body.endUser.id}`, { key: embedded.key });
    expect(detail.body.endUser.subscriptions).toEqual([
      expect.objectContaining({ tierPlanId: embedded.plan.id, status: "active" }),
    ]);
    // The next visit finds him.
    expect((await exchange(embedded.portal.slug, await tokenFor(embedded, { sub: bob }))).status).toBe(200);
    expect(await getDb().endUser.count({ where: { email: "bob@customer.example" } })).toBe(1);
  });

  it("ends the session when the token ends, and a new token replaces the identity", async () => {
    const embedded = await embeddedPortal();
    const first = await exchange(embedded.portal.slug, await tokenFor(embedded));
    const bearer = { authorization: `Bearer ${first.body.session}` };
    // The token's end passes.
    await getDb().endUserSession.updateMany({
      where: { endUserId: embedded.endUser.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const ended = await portalCall("query", "me.get", { portal: embedded.portal.slug }, { headers: bearer });
    expect(ended.status).toBe(401);
    expect(errorCode(ended)).toBe("unauthorized");
    const refreshed = await exchange(embedded.portal.slug, await tokenFor(embedded));
    const me = await portalCall(
      "query",
      "me.get",
      { portal: embedded.portal.slug },
      { headers: { authorization: `Bearer ${refreshed.body.session}` } },
    );
    expect(me.status).toBe(200);
  });
});

describe("the embed frame's headers, through the production listener", () => {
  let pages: http.Server;
  let base: string;
  beforeAll(async () => {
    // Stands in for Next.js behind the middleware: every page with its policy and X-Frame-Options.
    const nextWithMiddleware = (_: http.IncomingMessage, response: http.ServerResponse) => {
      response.setHeader("Content-Security-Policy", contentSecurityPolicy("bm9uY2U="));
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.setHeader(name, value);
      response.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html>");
    };
    pages = http.createServer(createRequestListener({ trustProxy: 0, fallback: nextWithMiddleware }));
    pages.listen(0, "127.0.0.1");
    await once(pages, "listening");
    base = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    pages?.closeAllConnections();
    pages?.close();
  });

  async function framing(path: string) {
    const response = await fetch(`${base}${path}`);
    await response.text();
    return {
      status: response.status,
      ancestors: /frame-ancestors ([^;]*)/.exec(response.headers.get("content-security-policy") ?? "")?.[1],
      xFrameOptions: response.headers.get("x-frame-options"),
    };
  }

  it("lets only the allowed origins frame the embed page; every other page keeps 'none'", async () => {
    const embedded = await embeddedPortal();
    await api("PATCH", `/portals/${embedded.portal.id}`, {
      key: embedded.key,
      body: { embed: { allowedOrigins: [SITE, "http://localhost:4000"] } },
    });
    const framed = { status: 200, ancestors: `${SITE} http://localhost:4000`, xFrameOptions: null };
    expect(await framing(`/embed/${embedded.portal.slug}`)).toEqual(framed);
    expect(await framing(`/embed/${embedded.portal.id}/apps/${embedded.appId}?c=1`)).toEqual(framed);
    const closed = { status: 200, ancestors: "'none'", xFrameOptions: "DENY" };
    for (const path of ["/", "/sign-in", `/p/${embedded.portal.slug}`, `/p/${embedded.portal.slug}/embed`, "/embed"])
      expect({ path, ...(await framing(path)) }).toEqual({ path, ...closed });
    expect(await framing("/embed/no-such-portal")).toEqual(closed);
    await api("PATCH", `/portals/${embedded.portal.id}`, { key: embedded.key, body: { embed: { enabled: false } } });
    expect(await framing(`/embed/${embedded.portal.slug}`)).toEqual(closed);
  });

  it("tells an allowed origin the launcher's colours, and refuses any other with 403", async () => {
    const embedded = await embeddedPortal({ accentColor: "#0b7285" });
    const look = (origin: string | null) =>
      fetch(`${server.base}/api/portal/${embedded.portal.slug}/embed/look`, {
        headers: origin ? { Origin: origin } : {},
      }).then(toApiResponse);
    const allowed = await look(SITE);
    expect(allowed.status).toBe(200);
    expect(allowed.body).toEqual({ name: embedded.portal.name, accent: "#0b7285", accentText: "#ffffff" });
    expect(allowed.headers.get("access-control-allow-origin")).toBe(SITE);
    for (const origin of [OTHER_SITE, null]) {
      const refused = await look(origin);
      expectError(refused, 403, "origin_not_allowed");
      expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    }
    await api("PATCH", `/portals/${embedded.portal.id}`, { key: embedded.key, body: { embed: { enabled: false } } });
    expectError(await look(SITE), 403, "origin_not_allowed");
  });

  it("serves /embed.js to any page, without the console's bundle", async () => {
    const response = await fetch(`${base}/embed.js`);
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(text).toContain('customElements.define("atrium-chat"');
    expect(text).not.toContain("_next");
    expect(text.length).toBeLessThan(20_000);
  });
});
