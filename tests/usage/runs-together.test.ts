// Runs of a process that end together are added to the usage rollup in one statement (issue 53):
// what GET /usage reports is the same as if each had been recorded alone.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { UsageGroupBy } from "@/schemas/runs/usage";
import { getDb } from "@/server/db";
import { getUsage } from "@/server/services/runs/usage";
import { recordRunUsage, type RunUsage } from "@/server/services/runs/usage-records";
import { newOrganization, type Tenant } from "../helpers";

const APP = "11111111-1111-4111-8111-111111111111";
const OTHER_APP = "22222222-2222-4222-8222-222222222222";

function call(model: string, credits: number, inputTokens: number, outputTokens: number) {
  return { model, provider: "test", inputTokens, outputTokens, usageReported: true, credits, outcome: "succeeded" };
}

/** Runs across two hours, two apps and two models, a failed one and one that called no model. */
const RUNS: RunUsage[] = [
  {
    kind: "conversation",
    itemId: APP,
    status: "succeeded",
    credits: 3,
    conversationStarted: true,
    at: new Date("2026-02-02T08:10:00Z"),
    usage: {
      inputTokens: 130,
      outputTokens: 40,
      usageReported: true,
      calls: [call("m-one", 1, 100, 30), call("m-two", 2, 30, 10), call("m-one", 0, 0, 0)],
    },
  },
  {
    kind: "conversation",
    itemId: APP,
    status: "failed",
    credits: 1,
    at: new Date("2026-02-02T08:50:00Z"),
    usage: { inputTokens: 7, outputTokens: 0, usageReported: true, calls: [call("m-one", 1, 7, 0)] },
  },
  {
    kind: "transaction",
    itemId: OTHER_APP,
    status: "succeeded",
    credits: 5,
    at: new Date("2026-02-02T09:05:00Z"),
    usage: { inputTokens: 50, outputTokens: 20, usageReported: true, calls: [call("m-two", 5, 50, 20)] },
  },
  { kind: "test", itemId: APP, status: "succeeded", credits: 1, at: new Date("2026-02-02T09:30:00Z") },
];

const WINDOW = { from: "2026-02-02T00:00:00Z", to: "2026-02-03T00:00:00Z" };

/** What GET /usage reports of the runs, by day and every grouping the runs have. */
async function reports(tenant: Tenant) {
  const groupings: (UsageGroupBy | undefined)[] = [undefined, "app", "model", "end_user", "plan"];
  return Promise.all(
    groupings.map((groupBy) => getUsage(getDb(), tenant.operator, { ...WINDOW, interval: "day", groupBy })),
  );
}

/** The statements of `pool` named atrium_record_run_usage while `body` runs. */
async function usageStatements(body: () => Promise<unknown>): Promise<number> {
  const query = vi.spyOn(getDb().pool, "query");
  await body();
  const named = query.mock.calls.filter(([first]) => (first as { name?: string }).name === "atrium_record_run_usage");
  return named.length;
}

afterEach(() => vi.restoreAllMocks());

describe("runs that end together", () => {
  it("share one statement, and GET /usage reports them as if recorded one by one", async () => {
    const [together, alone, other] = [await newOrganization(), await newOrganization(), await newOrganization()];
    const record = (tenant: Tenant, run: RunUsage) => recordRunUsage(getDb(), tenant.organization.id, run);

    const statements = await usageStatements(() =>
      Promise.all([...RUNS.map((run) => record(together, run)), record(other, RUNS[2]!)]),
    );
    expect(statements).toBe(1);
    for (const run of RUNS) await record(alone, run);

    const [byDay, byApp, byModel] = await reports(together);
    expect(byDay!.totals).toMatchObject({
      credits: 10,
      conversations: 1,
      turns: 2,
      transactions: 1,
      testRuns: 1,
      failures: 1,
      inputTokens: 187,
      outputTokens: 60,
    });
    expect(byApp!.groups!.map((group) => [group.id, group.totals.credits]).sort()).toEqual([
      [APP, 5],
      [OTHER_APP, 5],
    ]);
    expect(Object.fromEntries(byModel!.groups!.map((group) => [group.name, group.totals]))).toEqual({
      "m-one": expect.objectContaining({ credits: 2, turns: 2, conversations: 1, failures: 1, inputTokens: 107 }),
      "m-two": expect.objectContaining({ credits: 7, turns: 1, transactions: 1, inputTokens: 80, outputTokens: 30 }),
    });
    expect(await reports(together)).toEqual(await reports(alone));
    expect((await reports(other))[0]!.totals).toMatchObject({ credits: 5, transactions: 1, turns: 0 });
  });

  it("that end while a statement runs wait for it and go together in the next", async () => {
    const tenant = await newOrganization();
    const record = (run: RunUsage) => recordRunUsage(getDb(), tenant.organization.id, run);
    const statements = await usageStatements(async () => {
      const first = record(RUNS[0]!);
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all([first, ...RUNS.slice(1).map(record)]);
    });
    expect(statements).toBe(2);
    expect((await reports(tenant))[0]!.totals).toMatchObject({ credits: 10, turns: 2, transactions: 1, testRuns: 1 });
  });

  it("are recorded each alone when their statement fails: one run that cannot be recorded costs the others nothing", async () => {
    const tenant = await newOrganization();
    const statements = await usageStatements(() =>
      Promise.all([
        recordRunUsage(getDb(), tenant.organization.id, RUNS[0]!),
        // Not an organization's id: its statement fails, and recording it never throws.
        recordRunUsage(getDb(), "not an id", RUNS[2]!),
        recordRunUsage(getDb(), tenant.organization.id, RUNS[3]!),
      ]),
    );
    expect(statements).toBe(4);
    expect((await reports(tenant))[0]!.totals).toMatchObject({ credits: 4, turns: 1, testRuns: 1, transactions: 0 });
  });
});
