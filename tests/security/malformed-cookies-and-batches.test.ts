// One request must not answer 500 or hold the database for everyone: a cookie that does not
// percent-decode is no cookie (401 where a session is needed) on the four routes that read one,
// over real HTTP through our own server; a tRPC batch beyond MAX_TRPC_BATCH_CALLS is refused whole,
// in the envelope, before anything runs, and a batch within it runs its calls a few at a time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_TRPC_BATCH_CALLS } from "@/schemas/limits";
import { readCookie } from "@/server/auth/cookies";
import { getDb } from "@/server/db";
import { callSlots, MAX_CONCURRENT_CALLS_PER_REQUEST, type CallSlot } from "@/server/trpc/call-slots";
import type { MemberActor } from "@/server/auth/actor";
import { listModels } from "@/server/services/org/models";
import { createCallerFactory, memberProcedure, publicProcedure, router, scopedProcedure } from "@/server/trpc/init";
import { newOrganization, signInCookie } from "../helpers";
import { listenOnLoopback, type LoopbackServer } from "../loopback-server";

let loopback: LoopbackServer;
let base: string;

beforeAll(async () => {
  loopback = await listenOnLoopback(0);
  base = loopback.base;
});

afterAll(() => loopback.close());

const MALFORMED = [
  "atrium_session=%ZZ",
  "atrium_session=%E0%A4%A",
  "atrium_portal_session=%ZZ",
  "atrium_portal_session=%E0%A4%A; atrium_session=%",
];

describe("a cookie that does not decode is no cookie", () => {
  it("readCookie gives undefined for it, and still reads a well-formed one beside it", () => {
    expect(readCookie("atrium_session=%ZZ", "atrium_session")).toBeUndefined();
    expect(readCookie("atrium_session=%E0%A4%A; theme=dark", "atrium_session")).toBeUndefined();
    expect(readCookie("other=%ZZ; atrium_session=abc%2Bdef", "atrium_session")).toBe("abc+def");
  });

  it.each(MALFORMED)(
    "%s: 401 on the console's tRPC and chat stream, the portal's tRPC and chat stream",
    async (cookie) => {
      const json = { "content-type": "application/json", origin: base, cookie };
      const consoleQuery = await fetch(`${base}/api/trpc/auth.me`, { headers: { cookie } });
      expect(consoleQuery.status).toBe(401);
      expect(
        ((await consoleQuery.json()) as { error: { data: { appError: { code: string } } } }).error.data.appError.code,
      ).toBe("unauthorized");

      const consoleChat = await fetch(`${base}/api/console/apps/00000000-0000-4000-8000-000000000000/conversation`, {
        method: "POST",
        headers: json,
        body: '{"message":"hi"}',
      });
      expect(consoleChat.status).toBe(401);
      expect(((await consoleChat.json()) as { error: { code: string } }).error.code).toBe("unauthorized");

      const tenant = await newOrganization();
      const portal = await getDb().portal.create({
        data: {
          organizationId: tenant.organization.id,
          name: "Help",
          slug: `help-${Date.now()}-${Math.random().toString(36).slice(2)}`,
        },
      });
      const portalQuery = await fetch(
        `${base}/api/portal/trpc/me.get?input=${encodeURIComponent(JSON.stringify({ portal: portal.slug }))}`,
        { headers: { cookie } },
      );
      expect(portalQuery.status).toBe(401);

      const portalChat = await fetch(
        `${base}/api/portal/${portal.slug}/apps/00000000-0000-4000-8000-000000000000/conversation`,
        {
          method: "POST",
          headers: json,
          body: '{"message":"hi"}',
        },
      );
      expect(portalChat.status).toBe(401);
      expect(((await portalChat.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    },
  );
});

describe("console tRPC batches", () => {
  async function batch(cookie: string, count: number, prefix: string) {
    const paths = Array.from({ length: count }, () => "tierPlans.create").join(",");
    const input = Object.fromEntries(Array.from({ length: count }, (_, i) => [String(i), { name: `${prefix} ${i}` }]));
    return fetch(`${base}/api/trpc/${paths}?batch=1`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base, cookie },
      body: JSON.stringify(input),
    });
  }

  it(`a batch of more than ${MAX_TRPC_BATCH_CALLS} calls is refused whole with 400 invalid_request in the envelope; nothing is written`, async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    for (const count of [MAX_TRPC_BATCH_CALLS + 1, 200]) {
      const response = await batch(cookie, count, "Refused");
      expect(response.status).toBe(400);
      expect(response.headers.get("x-request-id")).toBeTruthy();
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("invalid_request");
      expect(body.error.message).toContain(String(MAX_TRPC_BATCH_CALLS));
    }
    expect(await getDb().tierPlan.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  });

  it(`a batch of ${MAX_TRPC_BATCH_CALLS} mutations runs every call`, async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const response = await batch(cookie, MAX_TRPC_BATCH_CALLS, "Plan");
    expect(response.status).toBe(200);
    const results = (await response.json()) as { result?: unknown; error?: unknown }[];
    expect(results).toHaveLength(MAX_TRPC_BATCH_CALLS);
    expect(results.every((result) => result.result !== undefined)).toBe(true);
    expect(await getDb().tierPlan.count({ where: { organizationId: tenant.organization.id } })).toBe(
      MAX_TRPC_BATCH_CALLS,
    );
  });

  it("the portal's tRPC takes the same cap", async () => {
    const paths = Array.from({ length: MAX_TRPC_BATCH_CALLS + 1 }, () => "portal.get").join(",");
    const response = await fetch(`${base}/api/portal/trpc/${paths}?batch=1&input={}`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
  });
});

describe("the calls of one request", () => {
  it(`run at most ${MAX_CONCURRENT_CALLS_PER_REQUEST} at a time, every one of them, failures included`, async () => {
    const inSlot = callSlots();
    let running = 0;
    let most = 0;
    const results = await Promise.allSettled(
      Array.from({ length: MAX_TRPC_BATCH_CALLS }, (_, i) =>
        inSlot(async () => {
          most = Math.max(most, ++running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running--;
          if (i % 5 === 0) throw new Error(`call ${i} failed`);
          return i;
        }),
      ),
    );
    expect(most).toBe(MAX_CONCURRENT_CALLS_PER_REQUEST);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(MAX_TRPC_BATCH_CALLS - 4);
  });

  it("take their slot in every kind of procedure, the checks that refuse them included", async () => {
    const calls = router({
      scoped: scopedProcedure(listModels.requirement).query(() => "scoped"),
      member: memberProcedure(listModels.requirement).query(() => "member"),
      open: publicProcedure.query(() => "open"),
    });
    let slotsTaken = 0;
    const callSlot: CallSlot = (work) => {
      slotsTaken++;
      return work();
    };
    const context = { db: getDb(), requestId: "slots", response: { headers: new Headers() }, callSlot };
    const tenant = await newOrganization();
    const member: MemberActor = {
      kind: "member",
      organizationId: tenant.organization.id,
      member: { id: "member", role: "owner", email: "owner@example.com" },
    };
    const asMember = createCallerFactory(calls)({ ...context, actor: member });
    expect([await asMember.scoped(), await asMember.member(), await asMember.open()]).toEqual([
      "scoped",
      "member",
      "open",
    ]);
    expect(slotsTaken).toBe(3);
    const signedOut = createCallerFactory(calls)({ ...context, actor: null });
    await expect(signedOut.scoped()).rejects.toThrow();
    await expect(signedOut.member()).rejects.toThrow();
    expect(slotsTaken).toBe(5);
  });
});
