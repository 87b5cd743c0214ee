// GET /executions as the console's log reads it: newest first on request, filtered by status and
// item, each run naming its item, and never another organization's runs.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { recordExecution } from "@/server/services/runs/executions";
import { api, expectError, newOrganization, type Tenant } from "../helpers";
import { create } from "../builder-helpers";

async function run(tenant: Tenant, itemId: string, status: "succeeded" | "failed", at: string) {
  const row = await recordExecution(getDb(), tenant.operator, {
    kind: "conversation",
    itemId,
    itemKind: "app",
    versionId: null,
    status,
    credits: 1,
    latencyMs: 5,
    input: `run at ${at}`,
    output: "",
    trace: [],
  });
  await getDb().execution.update({ where: { id: row.id }, data: { createdAt: new Date(at) } });
  return row.id;
}

async function seed() {
  const tenant = await newOrganization();
  const key = tenant.orgKey.secret;
  const helpdesk = await create(key, "apps", { name: "Helpdesk" });
  const billing = await create(key, "apps", { name: "Billing" });
  const ids = {
    first: await run(tenant, helpdesk.id, "succeeded", "2026-01-01T10:00:00Z"),
    second: await run(tenant, billing.id, "failed", "2026-01-01T11:00:00Z"),
    third: await run(tenant, helpdesk.id, "failed", "2026-01-01T12:00:00Z"),
  };
  return { tenant, key, helpdesk, billing, ids };
}

const idsOf = (body: { executions: { id: string }[] }) => body.executions.map((execution) => execution.id);

describe("GET /executions filters and order", () => {
  it("lists newest first with order=newest, page after page, and oldest first by default", async () => {
    const { key, ids } = await seed();
    expect(idsOf((await api("GET", "/executions", { key })).body)).toEqual([ids.first, ids.second, ids.third]);

    const page1 = await api("GET", "/executions?order=newest&limit=2", { key });
    expect(page1.status).toBe(200);
    expect(idsOf(page1.body)).toEqual([ids.third, ids.second]);
    const page2 = await api("GET", `/executions?order=newest&limit=2&cursor=${page1.body.nextCursor}`, { key });
    expect(idsOf(page2.body)).toEqual([ids.first]);
    expect(page2.body.nextCursor).toBeNull();
  });

  it("filters by status and by item, and names each run's item", async () => {
    const { key, helpdesk, ids } = await seed();
    const failed = await api("GET", "/executions?status=failed&order=newest", { key });
    expect(idsOf(failed.body)).toEqual([ids.third, ids.second]);
    expect(failed.body.executions.map((e: { itemName: string }) => e.itemName)).toEqual(["Helpdesk", "Billing"]);

    const failedHelpdesk = await api("GET", `/executions?status=failed&itemId=${helpdesk.id}`, { key });
    expect(idsOf(failedHelpdesk.body)).toEqual([ids.third]);
  });

  it("names no item that is gone, and never shows another organization's runs", async () => {
    const { tenant, key, ids } = await seed();
    const gone = await run(tenant, "00000000-0000-4000-8000-000000000001", "succeeded", "2026-01-02T10:00:00Z");
    const [latest] = (await api("GET", "/executions?order=newest&limit=1", { key })).body.executions;
    expect(latest).toMatchObject({ id: gone, itemName: null });

    const other = await newOrganization();
    const theirs = await api("GET", "/executions?order=newest&status=failed", { key: other.orgKey.secret });
    expect(theirs.body.executions).toEqual([]);
    expect((await api("GET", `/executions/${ids.first}`, { key: other.orgKey.secret })).status).toBe(404);
  });

  it("refuses an unknown status or order with invalid_request", async () => {
    const { key } = await seed();
    expectError(await api("GET", "/executions?status=exploded", { key }), 400, "invalid_request");
    expectError(await api("GET", "/executions?order=sideways", { key }), 400, "invalid_request");
  });
});
