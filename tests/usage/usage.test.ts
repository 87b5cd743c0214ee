// GET /usage: the numbers are the charges and runs made, by every grouping and interval;
// refusals apart; another organization's usage never appears; CSV.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { USAGE_METRICS } from "@/schemas/runs/usage";
import { recordRefusal } from "@/server/services/runs/run-refusals";
import { getUsage } from "@/server/services/runs/usage";
import { recordRunUsage } from "@/server/services/runs/usage-records";
import { create, publish } from "../builder-helpers";
import { api, expectError, issueKey, newOrganization, signInCookie, trpc } from "../helpers";
import { newKnowledgebase } from "../knowledge-helpers";
import { clientAddress, errorCode, portalCall, portalScenario, signIn, type PortalScenario } from "../portal/helpers";
import { credits, publishedApp } from "../runtime-helpers";

/** A published app whose transaction answers a quote from a flow; `outputSchema` decides whether the reply fits. */
async function quotesApp(key: string, outputSchema: Record<string, unknown>) {
  const flow = await create(key, "flows", {
    name: "Quote",
    inputs: [{ key: "item", label: "Item", type: "text", required: true }],
    nodes: [
      { id: "start", type: "trigger_start", data: {} },
      { id: "out", type: "output", data: { value: '{"item": "{{inputs.item}}"}' } },
    ],
  });
  await publish(key, "flows", flow.id);
  const app = await create(key, "apps", {
    name: "Quotes",
    members: [{ id: flow.id, kind: "flow" }],
    orchestrationMode: "sequential",
    api: {
      transactionEnabled: true,
      inputSchema: { type: "object", properties: { item: { type: "string" } } },
      outputSchema,
    },
  });
  await publish(key, "apps", app.id);
  return app.id as string;
}

const sum = (points: Record<string, number>[], metric: string) =>
  points.reduce((total, point) => total + point[metric]!, 0);

/** The organization's usage over the last day (everything a test just did). */
async function usage(scenario: { key: string }, query = "") {
  const from = new Date(Date.now() - 2 * 3_600_000).toISOString();
  const to = new Date(Date.now() + 3_600_000).toISOString();
  return api("GET", `/usage?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}${query}`, {
    key: scenario.key,
  });
}

/**
 * As the organization: two turns of one conversation, a transaction that fits and one that does
 * not (billed, a failure), a charged document search. As alice (2 credits): two turns, then a
 * third refused for lack of credits.
 */
async function busyOrganization(): Promise<PortalScenario & { quotesId: string; spent: number }> {
  const scenario = await portalScenario({ credits: 2 });
  const { key, appId } = scenario;
  const quotesId = await quotesApp(key, { type: "object", required: ["item"] });
  const strictId = await quotesApp(key, { type: "object", required: ["total"] });
  const kbId = await newKnowledgebase(scenario.tenant);
  const before = await credits(scenario.tenant);

  const first = await api("POST", `/apps/${appId}/conversation`, {
    key,
    body: { message: "How long do refunds take?" },
  });
  expect(first.status).toBe(200);
  expect(
    (
      await api("POST", `/apps/${appId}/conversation`, {
        key,
        body: { message: "And shipping?", conversation_id: first.body.conversation_id },
      })
    ).status,
  ).toBe(200);
  expect(
    (await api("POST", `/apps/${quotesId}/transaction`, { key, body: { input: { item: "widget" } } })).status,
  ).toBe(200);
  expectError(
    await api("POST", `/apps/${strictId}/transaction`, { key, body: { input: { item: "widget" } } }),
    502,
    "output_invalid",
  );
  expect(
    (await api("POST", `/knowledgebases/${kbId}/search`, { key, body: { query: "refunds", kinds: ["sources"] } }))
      .status,
  ).toBe(200);

  const forAlice = { endUserId: scenario.endUser.id, portalId: scenario.portal.id };
  const hers = await api("POST", `/apps/${appId}/conversation`, { key, body: { message: "Hello", ...forAlice } });
  expect(hers.status).toBe(200);
  expect(
    (
      await api("POST", `/apps/${appId}/conversation`, {
        key,
        body: { message: "Again", conversation_id: hers.body.conversation_id, ...forAlice },
      })
    ).status,
  ).toBe(200);
  expectError(
    await api("POST", `/apps/${appId}/conversation`, { key, body: { message: "Once more", ...forAlice } }),
    402,
    "insufficient_credits",
  );

  return { ...scenario, quotesId, spent: before - (await credits(scenario.tenant)) };
}

describe("GET /usage", () => {
  it("counts what was charged and run, refusals apart, and adds up to the balance's movement", async () => {
    const world = await busyOrganization();
    const response = await usage(world);
    expect(response.status).toBe(200);
    // Tokens are the built-in model's own counts of every run's calls, as the executions hold them.
    const tokens = { inputTokens: 0, outputTokens: 0 };
    for (const row of await getDb().execution.findMany({ where: { organizationId: world.tenant.organization.id } })) {
      const used = row.usage as typeof tokens;
      tokens.inputTokens += used.inputTokens;
      tokens.outputTokens += used.outputTokens;
    }
    expect(tokens.inputTokens).toBeGreaterThan(0);
    expect(tokens.outputTokens).toBeGreaterThan(0);
    expect(response.body.totals).toEqual({
      credits: world.spent,
      conversations: 2,
      turns: 4,
      transactions: 2,
      testRuns: 0,
      searches: 1,
      failures: 1,
      ...tokens,
    });
    expect(world.spent).toBe(7);
    expect(response.body.refusals).toEqual({ insufficient_credits: 1 });
    expect(response.body.groups).toBeUndefined();
    for (const metric of USAGE_METRICS) expect(sum(response.body.series, metric)).toBe(response.body.totals[metric]);
    // The executions agree: the rollup holds what the runs were charged.
    const executions = await getDb().execution.aggregate({
      where: { organizationId: world.tenant.organization.id },
      _sum: { credits: true },
      _count: true,
    });
    expect(executions._sum.credits! + 1).toBe(world.spent);
    expect(executions._count).toBe(6);
  });

  it("splits the same numbers by app, end user, portal and plan, by day, week and month", async () => {
    const world = await busyOrganization();
    const expected = {
      app: { [world.appId]: 4, [world.quotesId]: 1 },
      end_user: { [world.endUser.id]: 2 },
      portal: { [world.portal.id]: 2 },
      plan: { [world.plan.id]: 2 },
    };
    for (const interval of ["day", "week", "month"]) {
      for (const groupBy of ["app", "end_user", "portal", "plan"] as const) {
        const response = await usage(world, `&interval=${interval}&groupBy=${groupBy}`);
        expect(response.status).toBe(200);
        const { totals, groups } = response.body;
        expect(totals.credits).toBe(world.spent);
        for (const metric of USAGE_METRICS) {
          expect(
            groups.reduce(
              (total: number, group: { totals: Record<string, number> }) => total + group.totals[metric]!,
              0,
            ),
            `${groupBy} ${metric}`,
          ).toBe(totals[metric]);
        }
        for (const group of groups)
          for (const metric of USAGE_METRICS) expect(sum(group.series, metric)).toBe(group.totals[metric]);
        const credited = Object.fromEntries(
          groups
            .filter((group: { id: string | null }) => group.id)
            .map((group: { id: string; totals: { credits: number } }) => [group.id, group.totals.credits]),
        );
        expect(credited).toMatchObject(expected[groupBy]);
        // Runs without an end user (the organization's own, and its search) are one group named so.
        if (groupBy !== "app")
          expect(groups.find((group: { id: string | null }) => group.id === null)).toMatchObject({
            totals: { credits: world.spent - 2 },
          });
      }
    }
    const byUser = await usage(world, "&groupBy=end_user");
    expect(byUser.body.groups.find((group: { id: string }) => group.id === world.endUser.id)).toMatchObject({
      name: `Alice <${world.endUser.email}>`,
      totals: { turns: 2, conversations: 1, credits: 2, failures: 0 },
    });
    const byApp = await usage(world, "&groupBy=app");
    expect(byApp.body.groups.find((group: { id: string }) => group.id === world.appId)).toMatchObject({
      name: "Helpdesk",
      totals: { turns: 4, conversations: 2 },
    });
  });

  it("links its failures to the same runs: GET /executions?outcome=failure", async () => {
    const world = await busyOrganization();
    const list = async (query: string) => {
      const response = await api("GET", `/executions?${query}`, { key: world.key });
      expect(response.status).toBe(200);
      return response.body.executions as { status: string }[];
    };
    const failures = await list("outcome=failure");
    expect(failures.map((execution) => execution.status)).toEqual(["output_invalid"]);
    expect(failures).toHaveLength((await usage(world)).body.totals.failures);
    expect(await list("outcome=failure&status=succeeded")).toEqual([]);
    expectError(await api("GET", "/executions?outcome=refused", { key: world.key }), 400, "invalid_request");
  });

  it("never shows another organization's apps or numbers", async () => {
    const world = await busyOrganization();
    const other = await publishedApp();
    expect(
      (await api("POST", `/apps/${other.appId}/conversation`, { key: other.key, body: { message: "Hello" } })).status,
    ).toBe(200);
    const ours = await usage(world, "&groupBy=app");
    expect(ours.body.groups.map((group: { id: string }) => group.id)).not.toContain(other.appId);
    expect(ours.body.totals.credits).toBe(world.spent);
    const theirs = await usage(other, "&groupBy=app");
    expect(theirs.body.totals).toMatchObject({ credits: 1, turns: 1 });
    expect(theirs.body.groups.map((group: { id: string }) => group.id)).toEqual([other.appId]);
    expect(theirs.body.refusals).toEqual({});
  });

  it("answers CSV with format=csv: a row per group and bucket", async () => {
    const world = await busyOrganization();
    const response = await usage(world, "&groupBy=app&format=csv");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const lines = response.text.trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "start,group_id,group_name,credits,conversations,turns,transactions,testRuns,searches,failures,inputTokens,outputTokens",
    );
    const json = await usage(world, "&groupBy=app");
    expect(lines).toHaveLength(1 + json.body.groups.length * json.body.series.length);
    const helpdesk = lines.slice(1).filter((line) => line.includes(world.appId));
    expect(helpdesk.reduce((total, line) => total + Number(line.split(",")[5]), 0)).toBe(4);
  });

  it("refuses a window over 366 days, one that ends before it starts, and keys without end_users:read", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    expectError(
      await api("GET", "/usage?from=2025-01-01T00:00:00Z&to=2026-01-03T00:00:00Z", { key }),
      400,
      "invalid_request",
    );
    expectError(
      await api("GET", "/usage?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", { key }),
      400,
      "invalid_request",
    );
    expectError(await api("GET", "/usage?interval=hour", { key }), 400, "invalid_request");
    expect((await api("GET", "/usage?from=2025-01-01T00:00:00Z&to=2026-01-02T00:00:00Z", { key })).status).toBe(200);
    const narrow = await issueKey(tenant.operator, { kind: "organization", scopes: ["apps:read"] });
    expectError(await api("GET", "/usage", { key: narrow.secret }), 403, "insufficient_scope");
    // The default: the last 30 days, by day.
    const defaults = await api("GET", "/usage", { key });
    expect(defaults.body.interval).toBe("day");
    expect(new Date(defaults.body.to).getTime() - new Date(defaults.body.from).getTime()).toBe(30 * 86_400_000);
    expect(defaults.body.series.length).toBeGreaterThanOrEqual(30);
  });
});

describe("the console's usage", () => {
  it("shows an end user's usage on their page and who is closest to their limit, for the organization's own only", async () => {
    const world = await busyOrganization();
    const other = await publishedApp();
    const cookie = await signInCookie(world.tenant.owner.email, world.tenant.owner.password);
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const hers = await trpc("query", "usage.scoped", { from, to, endUserId: world.endUser.id }, { cookie });
    expect(hers.body.result.data.totals).toMatchObject({ credits: 2, turns: 2, conversations: 1 });
    expect(hers.body.result.data.refusals).toEqual({ insufficient_credits: 1 });
    const app = await trpc("query", "usage.scoped", { from, to, appId: world.quotesId }, { cookie });
    expect(app.body.result.data.totals).toMatchObject({ credits: 1, transactions: 1 });
    // Another organization's app reads as nothing happened.
    const theirs = await trpc("query", "usage.scoped", { from, to, appId: other.appId }, { cookie });
    expect(theirs.body.result.data.totals.credits).toBe(0);
    const near = await trpc("query", "usage.nearLimit", { limit: 5 }, { cookie });
    expect(near.body.result.data.endUsers).toEqual([
      { id: world.endUser.id, email: world.endUser.email, fullName: "Alice", used: 2, allowance: 2 },
    ]);
  });
});

describe("an end user's own usage in the portal", () => {
  it("shows her credits by day over this month, never anyone else's", async () => {
    const world = await busyOrganization();
    const cookie = await signIn(world, world.endUser.email, clientAddress());
    const mine = await portalCall("query", "credits.usage", { portal: world.portal.slug }, { cookie });
    expect(mine.status).toBe(200);
    const usage = mine.body.result.data;
    expect(usage.total).toBe(2);
    const now = new Date();
    expect(usage.from).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString());
    expect(usage.series).toHaveLength(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate());
    expect(usage.series.find((day: { credits: number }) => day.credits > 0)).toMatchObject({
      start: `${now.toISOString().slice(0, 10)}T00:00:00.000Z`,
      credits: 2,
    });
    expect(errorCode(await portalCall("query", "credits.usage", { portal: world.portal.slug }))).toBe("unauthorized");
  });
});

describe("usage buckets", () => {
  it("puts runs in their UTC day, Monday week and month across a month boundary", async () => {
    const tenant = await newOrganization();
    const db = getDb();
    const organizationId = tenant.organization.id;
    const appId = "11111111-1111-4111-8111-111111111111";
    const run = (at: string, credits: number, status = "succeeded") =>
      recordRunUsage(db, organizationId, {
        kind: "conversation",
        itemId: appId,
        status,
        credits,
        at: new Date(at),
        conversationStarted: true,
      });
    await run("2026-01-31T23:59:00Z", 1); // Saturday
    await run("2026-02-01T00:00:00Z", 2); // Sunday: same Monday week, next month
    await run("2026-02-02T08:30:00Z", 4, "failed"); // Monday
    await run("2026-02-02T08:45:00Z", 8); // same hour
    await recordRefusal(db, { organizationId, appId, at: new Date("2026-02-02T09:00:00Z") }, "insufficient_credits");
    await run("2026-03-01T00:00:00Z", 16); // outside the window below
    const window = { from: "2026-01-26T00:00:00Z", to: "2026-03-01T00:00:00Z" };

    const series = async (interval: "day" | "week" | "month", groupBy?: "app") =>
      getUsage(db, tenant.operator, { ...window, interval, groupBy });
    const credited = (points: { start: string; credits: number }[]) =>
      Object.fromEntries(points.filter((p) => p.credits).map((p) => [p.start, p.credits]));

    const days = await series("day");
    expect(days.series).toHaveLength(34);
    expect(credited(days.series)).toEqual({
      "2026-01-31T00:00:00.000Z": 1,
      "2026-02-01T00:00:00.000Z": 2,
      "2026-02-02T00:00:00.000Z": 12,
    });
    const weeks = await series("week");
    expect(weeks.series[0]!.start).toBe("2026-01-26T00:00:00.000Z");
    expect(credited(weeks.series)).toEqual({ "2026-01-26T00:00:00.000Z": 3, "2026-02-02T00:00:00.000Z": 12 });
    const months = await series("month", "app");
    expect(credited(months.series)).toEqual({ "2026-01-01T00:00:00.000Z": 1, "2026-02-01T00:00:00.000Z": 14 });
    expect(months.totals).toMatchObject({ credits: 15, turns: 4, conversations: 4, failures: 1 });
    expect(months.refusals).toEqual({ insufficient_credits: 1 });
    expect(months.groups).toEqual([expect.objectContaining({ id: appId, name: "(deleted)", totals: months.totals })]);
    // An hour later, twice refused: the counts add up per code.
    await recordRefusal(db, { organizationId, appId, at: new Date("2026-02-02T09:10:00Z") }, "insufficient_credits");
    expect((await series("day")).refusals).toEqual({ insufficient_credits: 2 });
  });

  it("backfills recorded executions into the same rows (the migration and the bench)", async () => {
    const tenant = await newOrganization();
    const db = getDb();
    const organizationId = tenant.organization.id;
    const appId = "22222222-2222-4222-8222-222222222222";
    const conversationId = "33333333-3333-4333-8333-333333333333";
    const row = (
      createdAt: string,
      kind: string,
      status: string,
      credits: number,
      conversation: string | null = null,
    ) => ({
      organizationId,
      kind,
      itemId: appId,
      itemKind: "app",
      status,
      credits,
      latencyMs: 1,
      input: "",
      trace: [],
      actor: "test",
      conversationId: conversation,
      createdAt: new Date(createdAt),
    });
    await db.execution.createMany({
      data: [
        row("2026-01-31T23:10:00Z", "conversation", "succeeded", 1, conversationId),
        row("2026-02-01T00:20:00Z", "conversation", "succeeded", 1, conversationId),
        row("2026-02-01T00:30:00Z", "transaction", "output_invalid", 1),
        row("2026-02-01T00:40:00Z", "test", "failed", 0),
      ],
    });
    await db.$executeRaw`select usage_rollup_backfill(${organizationId}::uuid)`;
    const report = await getUsage(db, tenant.operator, {
      from: "2026-01-01T00:00:00Z",
      to: "2026-03-01T00:00:00Z",
      interval: "month",
      groupBy: "app",
    });
    expect(report.totals).toMatchObject({
      credits: 3,
      conversations: 1,
      turns: 2,
      transactions: 1,
      testRuns: 1,
      failures: 2,
    });
    expect(report.series.map((point) => point.credits)).toEqual([1, 2]);
    expect(report.groups!.map((group) => group.id)).toEqual([appId]);
  });

  it("ranks groups over the whole window (whole months and the days around them) and keeps the top 50", async () => {
    const tenant = await newOrganization();
    const db = getDb();
    const organizationId = tenant.organization.id;
    const endUser = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
    const run = (n: number, at: string, credits: number) =>
      recordRunUsage(db, organizationId, {
        kind: "transaction",
        itemId: endUser(0),
        status: "succeeded",
        credits,
        endUserId: endUser(n),
        at: new Date(at),
      });
    for (let n = 1; n <= 51; n++) await run(n, "2026-02-10T12:00:00Z", n);
    await run(100, "2026-01-29T12:00:00Z", 60); // only in the days before the whole month
    await run(100, "2026-03-01T08:00:00Z", 1); // outside the window
    const report = await getUsage(db, tenant.operator, {
      from: "2026-01-28T00:00:00Z",
      to: "2026-03-01T00:00:00Z",
      interval: "month",
      groupBy: "end_user",
    });
    expect(report.totals.credits).toBe(60 + (51 * 52) / 2);
    expect(report.groups).toHaveLength(50);
    expect(report.groups!.map((group) => group.id)).toEqual([
      endUser(100),
      ...Array.from({ length: 49 }, (_, i) => endUser(51 - i)),
    ]);
    expect(report.groups![0]!.totals.credits).toBe(60);
  });
});
