// Sign-in throttling: password spraying across emails from one address is stopped, guessing one
// account from many addresses meets a growing delay (never a lockout), and neither keeps a
// member from signing in. Every 429 says when to retry.
import { randomInt } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { clientAddress } from "@/server/auth/client-address";
import { getDb } from "@/server/db";
import {
  awayFromWindowEdge,
  consoleHandler,
  newOrganization,
  toApiResponse,
  trpcErrorCode,
  uniqueSuffix,
  type ApiResponse,
} from "../helpers";

function randomAddress(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

async function signIn(email: string, password: string, address: string): Promise<ApiResponse> {
  const request = new Request("http://localhost/api/trpc/auth.signIn", {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": address },
    body: JSON.stringify({ email, password }),
  });
  return toApiResponse(await consoleHandler()(request));
}

function outcome(response: ApiResponse): { status: number; code?: string } {
  return response.status === 200 ? { status: 200 } : { status: response.status, code: trpcErrorCode(response) };
}

/** A 429 of the account's delay: its Retry-After in seconds (1..60). */
function expectDelayed(response: ApiResponse): number {
  expect(outcome(response)).toEqual({ status: 429, code: "rate_limited" });
  const retryAfter = Number(response.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
  expect(response.headers.get("set-cookie")).toBeNull();
  return retryAfter;
}

function expectThrottled(response: ApiResponse): void {
  expect(outcome(response)).toEqual({ status: 429, code: "rate_limited" });
  // The sliding window can need a little more than one window (up to 1.1 × 60 s at the limit).
  const retryAfter = Number(response.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 66).toBe(true);
  expect(response.headers.get("set-cookie")).toBeNull();
}

describe("client address", () => {
  it("is the address Next.js reports, or the one the trusted proxies saw", () => {
    const headers = (value?: string) => new Headers(value ? { "x-forwarded-for": value } : {});
    expect(clientAddress(headers("203.0.113.7"), 0)).toBe("203.0.113.7");
    expect(clientAddress(headers("::ffff:127.0.0.1"), 0)).toBe("127.0.0.1");
    expect(clientAddress(headers("198.51.100.1, 203.0.113.7"), 1)).toBe("203.0.113.7");
    expect(clientAddress(headers("198.51.100.1, 203.0.113.7, 10.0.0.2"), 2)).toBe("203.0.113.7");
    expect(clientAddress(headers(), 0)).toBe("unknown");
  });
});

afterEach(() => {
  vi.useRealTimers();
});

describe("sign-in throttling", () => {
  it("stops password spraying across many emails from one address, with Retry-After", async () => {
    const tenant = await newOrganization();
    await awayFromWindowEdge(15);
    const attacker = randomAddress();
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 40; i++)
      answers.push(await signIn(`sprayed-${i}-${uniqueSuffix()}@example.test`, "Winter2026!", attacker));
    const firstRefused = answers.findIndex((answer) => answer.status === 429);
    expect(firstRefused).toBe(30);
    for (const answer of answers.slice(0, 30)) expect(outcome(answer)).toEqual({ status: 401, code: "unauthorized" });
    for (const answer of answers.slice(30)) expectThrottled(answer);
    // Another address is not affected.
    expect((await signIn(tenant.owner.email, tenant.owner.password, randomAddress())).status).toBe(200);
  });

  it("limits one address guessing one account to 10 failures a minute, even the right password after", async () => {
    const tenant = await newOrganization();
    await awayFromWindowEdge(25);
    const attacker = randomAddress();
    for (let i = 0; i < 10; i++)
      expect(outcome(await signIn(tenant.owner.email, `wrong-${i}`, attacker))).toEqual({
        status: 401,
        code: "unauthorized",
      });
    expectThrottled(await signIn(tenant.owner.email, "wrong-again", attacker));
    expectThrottled(await signIn(tenant.owner.email, tenant.owner.password, attacker));
    expect(await getDb().session.count({ where: { memberId: tenant.owner.member.id } })).toBe(0);

    // The member, from their own address, still signs in.
    const own = await signIn(tenant.owner.email, tenant.owner.password, randomAddress());
    expect(own.status).toBe(200);
    expect(own.headers.get("set-cookie")).toMatch(/^atrium_session=/);
  });

  it("60 guesses on one account from 60 addresses: after 10 failures each next attempt waits longer; the right password works after the delay", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const tenant = await newOrganization();
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 60; i++) answers.push(await signIn(tenant.owner.email, `guess-${i}`, randomAddress()));
    // 10 failures go free, the 11th is checked and sets the first delay; the rest wait.
    for (const answer of answers.slice(0, 11)) expect(outcome(answer)).toEqual({ status: 401, code: "unauthorized" });
    for (const answer of answers.slice(11)) expect(expectDelayed(answer)).toBe(1);

    // Each next attempt waits twice as long, up to a minute, never more.
    const waits: number[] = [];
    let wait = 1;
    for (let i = 0; i < 9; i++) {
      vi.setSystemTime(Date.now() + wait * 1000);
      expect(outcome(await signIn(tenant.owner.email, `later-${i}`, randomAddress()))).toEqual({
        status: 401,
        code: "unauthorized",
      });
      wait = expectDelayed(await signIn(tenant.owner.email, `too-soon-${i}`, randomAddress()));
      waits.push(wait);
    }
    expect(waits).toEqual([2, 4, 8, 16, 32, 60, 60, 60, 60]);

    // The member, from their own address, is told to wait too, and then signs in.
    const own = randomAddress();
    wait = expectDelayed(await signIn(tenant.owner.email, tenant.owner.password, own));
    expect(await getDb().session.count({ where: { memberId: tenant.owner.member.id } })).toBe(0);
    vi.setSystemTime(Date.now() + wait * 1000);
    expect((await signIn(tenant.owner.email, tenant.owner.password, own)).status).toBe(200);
    // Signing in ends the delays.
    expect(outcome(await signIn(tenant.owner.email, "typo", own))).toEqual({ status: 401, code: "unauthorized" });
  });

  it("parallel guesses on one account from 60 addresses check at most 11 passwords", async () => {
    const tenant = await newOrganization();
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => signIn(tenant.owner.email, `guess-${i}`, randomAddress())),
    );
    const checked = answers.filter((answer) => answer.status === 401).length;
    expect(checked).toBeGreaterThanOrEqual(11);
    // Generous: a slow machine may let a delay of 1 s or 2 s pass while the others are refused.
    expect(checked).toBeLessThanOrEqual(13);
    for (const answer of answers.filter((a) => a.status !== 401)) expectDelayed(answer);
  });

  it("does not count successful sign-ins", async () => {
    const tenant = await newOrganization();
    await awayFromWindowEdge(25);
    const office = randomAddress();
    for (let i = 0; i < 35; i++)
      expect((await signIn(tenant.owner.email, tenant.owner.password, office)).status).toBe(200);
  });
});
