// Guessing portal sign-in codes from many addresses at once (issue 25, item 3): one live code per
// end user, its tries taken atomically before comparing, an hourly cap on codes (and so mails)
// per email whatever the address, and the real person signing in again within the hour.
import { afterEach, describe, expect, it, vi } from "vitest";
import { getDb } from "@/server/db";
import { CODE_REQUESTS_PER_HOUR, MAX_WRONG_TRIES } from "@/server/services/portal/portal-sign-in";
import type { ApiResponse } from "../helpers";
import {
  clientAddress,
  codeFromOutbox,
  errorCode,
  portalCall,
  portalScenario,
  signIn,
  type PortalScenario,
} from "./helpers";

async function requestCode(portal: string, email: string, headers: Record<string, string>) {
  return portalCall("mutation", "auth.requestCode", { portal, email }, { headers });
}

async function verify(portal: string, email: string, code: string, headers: Record<string, string>) {
  return portalCall("mutation", "auth.verifyCode", { portal, email, code }, { headers });
}

/** `count` distinct six-digit codes, none of them `right`. */
function wrongCodes(right: string, count: number): string[] {
  const codes: string[] = [];
  for (let n = 0; codes.length < count; n++) {
    const code = String((Number(right) + 1 + n * 7919) % 1_000_000).padStart(6, "0");
    if (code !== right) codes.push(code);
  }
  return codes;
}

async function codeRows(scenario: PortalScenario) {
  return getDb().endUserSignInCode.findMany({ where: { endUserId: scenario.endUser.id } });
}

function expectRateLimited(response: ApiResponse, maxSeconds: number): number {
  expect(response.status).toBe(429);
  expect(errorCode(response)).toBe("rate_limited");
  const retryAfter = Number(response.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= maxSeconds).toBe(true);
  return retryAfter;
}

/** Waits until the mails of accepted requests are written (they are sent after the answer). */
async function settledMailCount(scenario: PortalScenario, expected: number): Promise<number> {
  await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email, expected);
  await new Promise((resolve) => setTimeout(resolve, 300));
  return getDb().outboxMessage.count({
    where: { organizationId: scenario.tenant.organization.id, to: scenario.endUser.email },
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("guessing a sign-in code", () => {
  it("30 parallel wrong guesses from 30 addresses take at most 5 tries, and the code is void after", async () => {
    const scenario = await portalScenario();
    await requestCode(scenario.portal.slug, scenario.endUser.email, clientAddress());
    const code = (await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email))!;

    const answers = await Promise.all(
      wrongCodes(code, 30).map((guess) => verify(scenario.portal.slug, scenario.endUser.email, guess, clientAddress())),
    );
    for (const answer of answers) expect(errorCode(answer)).toBe("invalid_code");
    const [row] = await codeRows(scenario);
    expect(row!.wrongTries).toBe(MAX_WRONG_TRIES);

    const late = await verify(scenario.portal.slug, scenario.endUser.email, code, clientAddress());
    expect(late.status).toBe(400);
    expect(errorCode(late)).toBe("invalid_code");
    expect(await getDb().endUserSession.count({ where: { endUserId: scenario.endUser.id } })).toBe(0);
  });

  it("80 guesses from 80 addresses: only 5 are checked, so the right code among the rest signs nobody in", async () => {
    const scenario = await portalScenario();
    await requestCode(scenario.portal.slug, scenario.endUser.email, clientAddress());
    const code = (await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email))!;
    const guesses = wrongCodes(code, 79);
    for (const guess of guesses.slice(0, 5))
      expect(errorCode(await verify(scenario.portal.slug, scenario.endUser.email, guess, clientAddress()))).toBe(
        "invalid_code",
      );
    const rest = [...guesses.slice(5, 40), code, ...guesses.slice(40)];
    const answers = await Promise.all(
      rest.map((guess) => verify(scenario.portal.slug, scenario.endUser.email, guess, clientAddress())),
    );
    for (const answer of answers) expect(answer.status).toBe(400);
    expect((await codeRows(scenario))[0]!.wrongTries).toBe(MAX_WRONG_TRIES);
    expect(await getDb().endUserSession.count({ where: { endUserId: scenario.endUser.id } })).toBe(0);
  });

  it("a new code replaces the old one: a guess is compared with the one live code only", async () => {
    const scenario = await portalScenario();
    const from = clientAddress();
    await requestCode(scenario.portal.slug, scenario.endUser.email, from);
    const first = (await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email))!;
    await requestCode(scenario.portal.slug, scenario.endUser.email, from);
    const second = (await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email, 2))!;
    const now = new Date();
    const live = (await codeRows(scenario)).filter(
      (row) => !row.usedAt && row.expiresAt > now && row.wrongTries < MAX_WRONG_TRIES,
    );
    expect(live).toHaveLength(1);
    if (first !== second) {
      const old = await verify(scenario.portal.slug, scenario.endUser.email, first, from);
      expect(errorCode(old)).toBe("invalid_code");
    }
    expect((await verify(scenario.portal.slug, scenario.endUser.email, second, from)).status).toBe(200);
  });

  it("the right code on the fifth try still signs in; a wrong try never counts past 5", async () => {
    const scenario = await portalScenario();
    const from = clientAddress();
    await requestCode(scenario.portal.slug, scenario.endUser.email, from);
    const code = (await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email))!;
    for (const guess of wrongCodes(code, MAX_WRONG_TRIES - 1))
      await verify(scenario.portal.slug, scenario.endUser.email, guess, from);
    expect((await verify(scenario.portal.slug, scenario.endUser.email, code, from)).status).toBe(200);
    const [row] = await codeRows(scenario);
    expect(row!.usedAt).not.toBeNull();
    expect(row!.wrongTries).toBe(MAX_WRONG_TRIES - 1);
  });
});

describe("asking for codes", () => {
  it("150 requests from 30 addresses for one end user send at most the hourly cap of codes and mails, then 429 with Retry-After", async () => {
    const scenario = await portalScenario();
    const addresses = Array.from({ length: 30 }, clientAddress);
    const answers = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        requestCode(scenario.portal.slug, scenario.endUser.email, addresses[i % addresses.length]!),
      ),
    );
    const accepted = answers.filter((answer) => answer.status === 200);
    expect(accepted).toHaveLength(CODE_REQUESTS_PER_HOUR);
    for (const answer of answers.filter((a) => a.status !== 200)) expectRateLimited(answer, 3600);
    expect(await settledMailCount(scenario, CODE_REQUESTS_PER_HOUR)).toBe(CODE_REQUESTS_PER_HOUR);
    expect(await codeRows(scenario)).toHaveLength(CODE_REQUESTS_PER_HOUR);
    const now = new Date();
    expect((await codeRows(scenario)).filter((row) => row.expiresAt > now)).toHaveLength(1);
  });

  it("Retry-After stays within the hour when a parallel request read the clock after this one", async () => {
    const scenario = await portalScenario();
    const later = new Date(Date.now() + 2_000);
    await getDb().portalCodeRequest.create({
      data: {
        organizationId: scenario.tenant.organization.id,
        email: scenario.endUser.email,
        requestedAt: Array<Date>(CODE_REQUESTS_PER_HOUR).fill(later),
        lastRequestedAt: later,
      },
    });
    expectRateLimited(await requestCode(scenario.portal.slug, scenario.endUser.email, clientAddress()), 3600);
  });

  it("an unknown email is capped exactly as a real one (no account oracle)", async () => {
    const scenario = await portalScenario();
    const statusesFor = async (email: string) => {
      const statuses: number[] = [];
      for (let i = 0; i <= CODE_REQUESTS_PER_HOUR; i++)
        statuses.push((await requestCode(scenario.portal.slug, email, clientAddress())).status);
      return statuses;
    };
    const real = await statusesFor(scenario.endUser.email);
    expect(real).toEqual([...Array<number>(CODE_REQUESTS_PER_HOUR).fill(200), 429]);
    expect(await statusesFor(`nobody-${scenario.endUser.email}`)).toEqual(real);
  });

  it("after codes were spent and guessed from many addresses, the real person gets a fresh code within the hour and signs in", async () => {
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    const scenario = await portalScenario();
    for (let n = 1; n <= CODE_REQUESTS_PER_HOUR; n++) {
      expect((await requestCode(scenario.portal.slug, scenario.endUser.email, clientAddress())).status).toBe(200);
      const code = (await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email, n))!;
      for (const guess of wrongCodes(code, MAX_WRONG_TRIES))
        await verify(scenario.portal.slug, scenario.endUser.email, guess, clientAddress());
    }
    const own = clientAddress();
    const retryAfter = expectRateLimited(await requestCode(scenario.portal.slug, scenario.endUser.email, own), 3600);

    vi.setSystemTime(Date.now() + retryAfter * 1000);
    expect(await signIn(scenario, scenario.endUser.email, own)).toMatch(/^atrium_portal_session=/);
  });
});
