// GET /usage by model: real tokens summed from the runs' calls, each model a group with its tokens
// and its share of the credits (adding up to the totals), a run counted in each model it called; CSV too.
import { afterAll, beforeAll, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.MODEL_PROVIDER_MODELS = "tool-model";
  process.env.MODEL_PROVIDER_NAME = "testai";
});

import { getDb } from "@/server/db";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { create, publish } from "../builder-helpers";
import { api, newOrganization } from "../helpers";
import { converse, credits } from "../runtime-helpers";

let openai: FakeOpenAI;

beforeAll(async () => {
  openai = await startFakeOpenAI(() => "From the provider.");
  openai.reportUsage(() => ({ input: 1000, output: 250 }));
  process.env.MODEL_PROVIDER_BASE_URL = openai.baseURL;
});
afterAll(() => openai.close());

async function usage(key: string, query: string) {
  const from = new Date(Date.now() - 2 * 3_600_000).toISOString();
  const to = new Date(Date.now() + 3_600_000).toISOString();
  return api("GET", `/usage?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}${query}`, { key });
}

it("sums real tokens and splits them, and the credits, by model", async () => {
  const tenant = await newOrganization();
  const key = tenant.orgKey.secret;
  const priced = await create(key, "agents", { name: "Priced", model: "tool-model" });
  const offline = await create(key, "agents", { name: "Offline" });
  await publish(key, "agents", priced.id);
  await publish(key, "agents", offline.id);
  const app = await create(key, "apps", {
    name: "Mixed",
    members: [
      { id: priced.id, kind: "agent" },
      { id: offline.id, kind: "agent" },
    ],
    orchestrationMode: "sequential",
  });
  await publish(key, "apps", app.id);
  // 1,000 × 0.01 + 250 × 0.02 = 15 credits a turn.
  const price = { inputCreditsPerMillion: 10_000, outputCreditsPerMillion: 20_000, minimumCredits: 1 };
  expect((await api("PUT", "/model-prices/tool-model", { key, body: price })).status).toBe(200);
  const before = await credits(tenant);
  for (const message of ["Hello", "Hello again"]) expect((await converse(key, app.id, { message })).status).toBe(200);
  const spent = before - (await credits(tenant));
  expect(spent).toBe(30);

  const executions = await getDb().execution.findMany({ where: { organizationId: tenant.organization.id } });
  const tokens = (field: "inputTokens" | "outputTokens") =>
    executions.reduce((sum, row) => sum + (row.usage as Record<typeof field, number>)[field], 0);
  const response = await usage(key, "&groupBy=model");
  expect(response.status, response.text).toBe(200);
  expect(response.body.totals).toMatchObject({
    credits: 30,
    turns: 2,
    inputTokens: tokens("inputTokens"),
    outputTokens: tokens("outputTokens"),
  });
  expect(response.body.totals.inputTokens).toBeGreaterThan(2000);
  const byModel = Object.fromEntries(
    response.body.groups.map((group: { name: string; totals: Record<string, number> }) => [group.name, group.totals]),
  );
  expect(Object.keys(byModel).sort()).toEqual(["atrium-offline", "tool-model"]);
  expect(byModel["tool-model"]).toMatchObject({ credits: 30, turns: 2, inputTokens: 2000, outputTokens: 500 });
  expect(byModel["atrium-offline"]).toMatchObject({ credits: 0, turns: 2 });
  for (const metric of ["credits", "inputTokens", "outputTokens"])
    expect(byModel["tool-model"]![metric]! + byModel["atrium-offline"]![metric]!).toBe(response.body.totals[metric]);

  const csv = await usage(key, "&groupBy=model&format=csv");
  expect(csv.status, csv.text).toBe(200);
  expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  const rows = csv.text.trim().split("\r\n");
  expect(rows[0]).toBe(
    "start,group_id,group_name,credits,conversations,turns,transactions,testRuns,searches,failures,inputTokens,outputTokens",
  );
  const priced30 = rows.filter((row) => row.split(",")[2] === "tool-model" && row.split(",")[3] === "30");
  expect(priced30).toHaveLength(1);
  expect(priced30[0]!.split(",").slice(-2)).toEqual(["2000", "500"]);

  // Another organization's runs never appear.
  const other = await newOrganization();
  expect((await usage(other.orgKey.secret, "&groupBy=model")).body.groups).toEqual([]);
});
