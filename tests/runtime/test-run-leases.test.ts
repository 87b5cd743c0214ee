// A graded test case is charged as it runs, with its lease (runtime/run-leases.ts), like every
// other run: a case lost with its process is given back and recorded failed by the sweeper, so
// every charge has its execution (issue 44). Before, a test run paid for all its cases at once
// with no lease, and a process lost mid-run kept the whole charge with no execution for the rest.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getDb } from "@/server/db";
import { RUN_LOST, settleLostRun } from "@/server/runtime/run-leases";
import { updateOrganization } from "@/server/services/org/organizations";
import { create } from "../builder-helpers";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { api, expectError, newOrganization } from "../helpers";
import { credits } from "../runtime-helpers";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI(() => "Refunds are paid within fourteen days of the request", { tokenDelayMs: 150 });
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_MODELS = "slow-model";
});
afterAll(async () => {
  await fake.close();
});

const CASES = [
  { input: "How long do refunds take?", expectedBehavior: "Says fourteen days" },
  { input: "When is a refund paid?", expectedBehavior: "Says fourteen days" },
];

describe("a test run's cases", () => {
  it("are charged one by one as each runs, with its lease; a case lost with its process is given back and recorded failed", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const agent = await create(key, "agents", { name: "Slow helper", model: "slow-model" });
    const before = await credits(tenant);
    const running = api("POST", `/agents/${agent.id}/tests`, { key, body: { cases: CASES } });

    const lease = await vi.waitFor(
      async () => {
        const row = await getDb().runLease.findFirst({ where: { organizationId: tenant.organization.id } });
        expect(row).not.toBeNull();
        return row!;
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(lease.execution).toMatchObject({ kind: "test", itemId: agent.id, itemKind: "agent" });
    // Only the case that runs is charged.
    expect(await credits(tenant)).toBe(before - 1);

    // Its process is lost: the sweeper of another settles the case.
    expect(await settleLostRun(getDb(), lease.id, RUN_LOST, null)).toBe(true);
    const response = await running;
    expect(response.status).toBe(200);
    const [lost, second] = response.body.results;
    expect(lost).toMatchObject({ passed: false, error: RUN_LOST.message, executionId: lease.id });
    expect(second.error).toBeNull();

    const recorded = await api("GET", `/executions/${lease.id}`, { key });
    expect(recorded.body.execution).toMatchObject({ kind: "test", status: "failed", credits: 0 });
    const secondRecord = await api("GET", `/executions/${second.executionId}`, { key });
    expect(secondRecord.body.execution).toMatchObject({ status: "succeeded", credits: 1 });
    // The lost case was given back; the one that ran paid its credit; no lease is left.
    expect(await credits(tenant)).toBe(before - 1);
    expect(await getDb().runLease.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
    expect(await getDb().execution.count({ where: { organizationId: tenant.organization.id, kind: "test" } })).toBe(2);
  });

  it("a run the balance cannot cover for every case is refused before any case runs; nothing is charged", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const agent = await create(key, "agents", { name: "Slow helper", model: "slow-model" });
    await updateOrganization(getDb(), tenant.operator, { credits: 1 });
    expectError(
      await api("POST", `/agents/${agent.id}/tests`, { key, body: { cases: CASES } }),
      402,
      "insufficient_credits",
    );
    expect(await credits(tenant)).toBe(1);
    expect(await getDb().execution.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
    expect(await getDb().runLease.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  });
});
