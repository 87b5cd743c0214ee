// Sign-in throttling: password spraying across emails from one address is stopped, guessing one
// account from many addresses is stopped, and neither lets an attacker lock a member out of
// signing in from their own address. Every 429 says when to retry.
import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { clientAddress } from "@/server/auth/client-address";
import { getDb } from "@/server/db";
import { awayFromWindowEdge, consoleHandler, newOrganization, toApiResponse, trpcErrorCode, uniqueSuffix, type ApiResponse } from "../helpers";

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

describe("sign-in throttling", () => {
  it("stops password spraying across many emails from one address, with Retry-After", async () => {
    const tenant = await newOrganization();
    await awayFromWindowEdge(15);
    const attacker = randomAddress();
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 40; i++) answers.push(await signIn(`sprayed-${i}-${uniqueSuffix()}@example.test`, "Winter2026!", attacker));
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
    for (let i = 0; i < 10; i++) expect(outcome(await signIn(tenant.owner.email, `wrong-${i}`, attacker))).toEqual({ status: 401, code: "unauthorized" });
    expectThrottled(await signIn(tenant.owner.email, "wrong-again", attacker));
    expectThrottled(await signIn(tenant.owner.email, tenant.owner.password, attacker));
    expect(await getDb().session.count({ where: { memberId: tenant.owner.member.id } })).toBe(0);

    // The member, from their own address, still signs in.
    const own = await signIn(tenant.owner.email, tenant.owner.password, randomAddress());
    expect(own.status).toBe(200);
    expect(own.headers.get("set-cookie")).toMatch(/^atrium_session=/);
  });

  it("stops guessing one account from many addresses, yet the member signs in from their own address", async () => {
    const tenant = await newOrganization();
    await awayFromWindowEdge(20);
    const attackers = Array.from({ length: 10 }, randomAddress);
    // 10 addresses × 5 failures: each under the per-address limits, together at the account's 50.
    for (const address of attackers) {
      for (let i = 0; i < 5; i++) expect(outcome(await signIn(tenant.owner.email, `guess-${i}`, address))).toEqual({ status: 401, code: "unauthorized" });
    }
    // Every address that failed against the account is held off now, even with the right password.
    for (const address of attackers) expectThrottled(await signIn(tenant.owner.email, tenant.owner.password, address));
    // A new address gets one try before it is held off too.
    const newcomer = randomAddress();
    expect(outcome(await signIn(tenant.owner.email, "guess-new", newcomer))).toEqual({ status: 401, code: "unauthorized" });
    expectThrottled(await signIn(tenant.owner.email, "guess-new-2", newcomer));
    expect(await getDb().session.count({ where: { memberId: tenant.owner.member.id } })).toBe(0);

    // The member, from their own address, signs in.
    const own = await signIn(tenant.owner.email, tenant.owner.password, randomAddress());
    expect(own.status).toBe(200);
    expect(await getDb().session.count({ where: { memberId: tenant.owner.member.id } })).toBe(1);
  });

  it("does not count successful sign-ins", async () => {
    const tenant = await newOrganization();
    await awayFromWindowEdge(25);
    const office = randomAddress();
    for (let i = 0; i < 35; i++) expect((await signIn(tenant.owner.email, tenant.owner.password, office)).status).toBe(200);
  });
});
