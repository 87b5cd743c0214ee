// Evaluations at scale, through the REST door: datasets imported whole or refused whole (naming
// the line), runs done by the background job (every case once, even with two job runners, and a
// case whose runner died is taken over), and two versions compared case by case.
import { describe, expect, it } from "vitest";
import { closeDb, createDb, getDb } from "@/server/db";
import { claimEvalCases, runEvalRound, startEvalWorker } from "@/server/jobs/evaluations";
import { api, expectError, newOrganization, signInCookie, trpc, type Tenant } from "../helpers";
import { create, patchDraft, publish } from "../builder-helpers";

/** A flow that answers "<word> <its input>": the built-in judge passes a case when the answer holds its expected words. */
const flowSaying = (word: string) => ({
  name: "Say",
  inputs: [{ key: "q", label: "Question", type: "text", required: true }],
  nodes: [
    { id: "start", type: "trigger_start", data: {} },
    { id: "out", type: "output", data: { value: `${word} {{inputs.q}}` } },
  ],
});

async function flowWithVersions(): Promise<{
  tenant: Tenant;
  key: string;
  flowId: string;
  alpha: string;
  beta: string;
}> {
  const tenant = await newOrganization({ credits: 100_000 });
  const key = tenant.orgKey.secret;
  const flow = await create(key, "flows", flowSaying("alpha"));
  const alpha = (await publish(key, "flows", flow.id)).version.id as string;
  expect((await patchDraft(key, "flows", flow.id, flowSaying("beta"))).status).toBe(200);
  const beta = (await publish(key, "flows", flow.id)).version.id as string;
  return { tenant, key, flowId: flow.id, alpha, beta };
}

function importFile(key: string, flowId: string, format: "csv" | "jsonl", content: string, name = "Cases") {
  return api("POST", `/flows/${flowId}/datasets`, { key, body: { name, format, content } });
}

const jsonl = (count: number) =>
  Array.from({ length: count }, (_, i) => JSON.stringify({ input: `kiwi ${i}`, expectedBehavior: "kiwi" })).join("\n");

async function storedCases(tenant: Tenant): Promise<number> {
  return getDb().evalCase.count({ where: { dataset: { organizationId: tenant.organization.id } } });
}

/** Rounds of this process's job runner until no case is left. */
async function drainEvaluations(): Promise<void> {
  while (await runEvalRound(getDb(), { batch: 3 })) {
    /* next round */
  }
}

/** Two job runners, as two server processes run them (each with its own connection pool), until no case is left. */
async function twoRunners(): Promise<void> {
  const other = createDb(process.env.DATABASE_URL!, 2);
  const workers = [
    startEvalWorker(getDb(), { pollMs: 20, batch: 2 }),
    startEvalWorker(other, { pollMs: 20, batch: 2 }),
  ];
  try {
    while (await getDb().evalResult.count({ where: { status: { not: "done" } } }))
      await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await closeDb(other);
  }
}

describe("importing a dataset", () => {
  it("keeps 1,000 cases with the flow and refuses 1,001 whole, writing nothing", async () => {
    const { tenant, key, flowId } = await flowWithVersions();
    const refused = await importFile(key, flowId, "jsonl", jsonl(1_001));
    const error = expectError(refused, 400, "invalid_request");
    expect(error.line).toBe(1_001);
    expect(error.message).toContain("line 1001");
    expect(await storedCases(tenant)).toBe(0);
    expect(await getDb().evalDataset.count({ where: { organizationId: tenant.organization.id } })).toBe(0);

    const imported = await importFile(key, flowId, "jsonl", jsonl(1_000), "Thousand");
    expect(imported.status).toBe(201);
    expect(imported.body.dataset).toMatchObject({
      name: "Thousand",
      format: "jsonl",
      caseCount: 1_000,
      itemId: flowId,
    });
    expect(await storedCases(tenant)).toBe(1_000);
    const listed = await api("GET", `/flows/${flowId}/datasets`, { key });
    expect(listed.body.datasets.map((d: { id: string }) => d.id)).toEqual([imported.body.dataset.id]);
    const page = await api("GET", `/flows/${flowId}/datasets/${imported.body.dataset.id}/cases?limit=2&cursor=998`, {
      key,
    });
    expect(page.body.cases.map((c: { position: number; input: string }) => [c.position, c.input])).toEqual([
      [999, "kiwi 998"],
      [1_000, "kiwi 999"],
    ]);
    expect(page.body.nextCursor).toBeNull();
  });

  it("reads CSV with quoted fields over several lines, and names a malformed CSV or JSONL line", async () => {
    const { tenant, key, flowId } = await flowWithVersions();
    const csv = 'id,input,expectedBehavior\nc1,"first\nover two lines",first\nc2,second,"says ""second"""\n';
    const ok = await importFile(key, flowId, "csv", csv);
    expect(ok.status).toBe(201);
    const cases = await api("GET", `/flows/${flowId}/datasets/${ok.body.dataset.id}/cases`, { key });
    expect(cases.body.cases.map((c: any) => [c.externalId, c.input, c.expectedBehavior])).toEqual([
      ["c1", "first\nover two lines", "first"],
      ["c2", "second", 'says "second"'],
    ]);
    const before = await storedCases(tenant);

    for (const [format, content, line] of [
      // A row with a field too many, after a quoted field spanning lines 2 and 3.
      ["csv", 'input,expected\n"a\nb",x\nc,d,e\n', 4],
      ["csv", "question,expected\nhi,there\n", 1],
      ["csv", 'input\nok\n"never closed\n', 3],
      ["jsonl", '{"input":"a"}\n\n{"input": "b"\n', 3],
      ["jsonl", '{"input":"a"}\n{"input":"b","colour":"red"}\n', 2],
      ["jsonl", '{"input":"a"}\n{"input":""}\n', 2],
      ["jsonl", `{"input":"a"}\n{"input":"${"x".repeat(8_001)}"}\n`, 2],
      // NUL written as JSON's escape inside a line of the file.
      ["jsonl", '{"input":"a"}\n{"input":"b\\u0000"}\n', 2],
    ] as const) {
      const refused = await importFile(key, flowId, format, content);
      const error = expectError(refused, 400, "invalid_request");
      expect({ format, content, line: error.line }).toEqual({ format, content, line });
      expect(error.message).toContain(`line ${line}:`);
    }
    // A NUL byte in the file itself: the door refuses the body before anything reads it, naming the field.
    const nul = await importFile(key, flowId, "csv", "input\nfine\nnul \u0000 here\n");
    expect(expectError(nul, 400, "invalid_request").problems).toEqual([
      { path: "content", message: expect.any(String) },
    ]);
    const tooLarge = await importFile(key, flowId, "jsonl", "x".repeat(2 * 1024 * 1024 + 1));
    expectError(tooLarge, 413, "invalid_request");
    expect(await storedCases(tenant)).toBe(before);
  });

  it("answers not_found for another organization's flow and keeps datasets private", async () => {
    const { key, flowId } = await flowWithVersions();
    const other = await newOrganization();
    expectError(await importFile(other.orgKey.secret, flowId, "jsonl", jsonl(2)), 404, "not_found");
    const imported = await importFile(key, flowId, "jsonl", jsonl(2));
    expectError(
      await api("GET", `/flows/${flowId}/datasets/${imported.body.dataset.id}/cases`, { key: other.orgKey.secret }),
      404,
      "not_found",
    );
  });
});

describe("evaluation runs", () => {
  it("runs every case once with two job runners, then compares two versions case by case", async () => {
    const { tenant, key, flowId, alpha, beta } = await flowWithVersions();
    // Cases 1-3 expect "alpha", 4-6 "beta", 7-12 only their own input.
    const lines = [
      ...[1, 2, 3].map((i) => ({ input: `apple ${i}`, expectedBehavior: "alpha" })),
      ...[4, 5, 6].map((i) => ({ input: `pear ${i}`, expectedBehavior: "beta" })),
      ...[7, 8, 9, 10, 11, 12].map((i) => ({ input: `plum${i}`, expectedBehavior: `plum${i}` })),
    ];
    const dataset = (await importFile(key, flowId, "jsonl", lines.map((l) => JSON.stringify(l)).join("\n"))).body
      .dataset;
    const before = (await getDb().organization.findUniqueOrThrow({ where: { id: tenant.organization.id } })).credits;

    const started = await api("POST", `/flows/${flowId}/evaluations`, {
      key,
      body: { datasetId: dataset.id, version: alpha },
    });
    expect(started.status).toBe(202);
    expect(started.body.run).toMatchObject({
      status: "queued",
      total: 12,
      done: 0,
      versionId: alpha,
      versionNumber: 1,
    });
    const second = await api("POST", `/flows/${flowId}/evaluations`, {
      key,
      body: { datasetId: dataset.id, version: beta },
    });
    await twoRunners();

    const first = (await api("GET", `/flows/${flowId}/evaluations/${started.body.run.id}`, { key })).body.run;
    expect(first).toMatchObject({ status: "completed", total: 12, done: 12, passed: 9, failed: 3, credits: 12 });
    expect(first.passRate).toBeCloseTo(0.75);
    expect(first.finishedAt).not.toBeNull();
    // Every case ran once: one claim each, one execution each, each charged once.
    const results = await getDb().evalResult.findMany({ where: { runId: { in: [first.id, second.body.run.id] } } });
    expect(results).toHaveLength(24);
    expect(results.every((r) => r.attempts === 1 && r.status === "done" && r.executionId !== null)).toBe(true);
    expect(
      await getDb().execution.count({
        where: { organizationId: tenant.organization.id, kind: "test", itemId: flowId },
      }),
    ).toBe(24);
    expect((await getDb().organization.findUniqueOrThrow({ where: { id: tenant.organization.id } })).credits).toBe(
      before - 24,
    );

    const failed = await api("GET", `/flows/${flowId}/evaluations/${first.id}/results?outcome=failed`, { key });
    expect(failed.body.results.map((r: any) => [r.position, r.passed, r.output])).toEqual([
      [4, false, "alpha pear 4"],
      [5, false, "alpha pear 5"],
      [6, false, "alpha pear 6"],
    ]);

    const compared = await api(
      "GET",
      `/flows/${flowId}/evaluation-comparison?base=${first.id}&candidate=${second.body.run.id}`,
      { key },
    );
    expect(compared.status).toBe(200);
    expect(compared.body.passRateChange).toBeCloseTo(0);
    expect(compared.body.creditsChange).toBe(0);
    expect(compared.body.changed.map((c: any) => [c.position, c.change, c.base.passed, c.candidate.passed])).toEqual([
      [1, "broken", true, false],
      [2, "broken", true, false],
      [3, "broken", true, false],
      [4, "fixed", false, true],
      [5, "fixed", false, true],
      [6, "fixed", false, true],
    ]);
    expect(compared.body.changed[0].candidate.output).toBe("beta apple 1");
  });

  it("a case whose runner died is run by another once its lease ends, and a version of another flow is refused", async () => {
    const { tenant, key, flowId } = await flowWithVersions();
    const other = await flowWithVersions();
    const dataset = (await importFile(key, flowId, "jsonl", jsonl(3))).body.dataset;
    expectError(
      await api("POST", `/flows/${flowId}/evaluations`, { key, body: { datasetId: dataset.id, version: other.alpha } }),
      422,
      "version_not_found",
    );
    const run = (await api("POST", `/flows/${flowId}/evaluations`, { key, body: { datasetId: dataset.id } })).body.run;
    // A runner claims two cases and dies (its process is gone: nothing renews the lease).
    const lost = await claimEvalCases(getDb(), 2, 50);
    expect(lost).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await drainEvaluations();
    const done = (await api("GET", `/flows/${flowId}/evaluations/${run.id}`, { key })).body.run;
    expect(done).toMatchObject({ status: "completed", done: 3, passed: 3 });
    const rows = await getDb().evalResult.findMany({ where: { runId: run.id }, orderBy: { position: "asc" } });
    expect(rows.map((r) => r.attempts)).toEqual([2, 2, 1]);
    expect(
      await getDb().execution.count({
        where: { organizationId: tenant.organization.id, kind: "test", itemId: flowId },
      }),
    ).toBe(3);
  });

  it("is the same service through the console's tRPC procedures, and runs the draft as it was started", async () => {
    const { tenant, flowId } = await flowWithVersions();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const imported = await trpc(
      "mutation",
      "evaluations.flows.importDataset",
      { id: flowId, name: "From the console", format: "csv", content: "input,expected\nkiwi,kiwi\n" },
      { cookie },
    );
    expect(imported.status, imported.text).toBe(200);
    const dataset = imported.body.result.data.dataset;
    expect(dataset).toMatchObject({ caseCount: 1, format: "csv" });
    const started = await trpc(
      "mutation",
      "evaluations.flows.startRun",
      { id: flowId, datasetId: dataset.id },
      { cookie },
    );
    const runId = started.body.result.data.run.id;
    // The run keeps the draft it started with: an edit made meanwhile does not change it.
    expect((await patchDraft(tenant.orgKey.secret, "flows", flowId, flowSaying("nothing"))).status).toBe(200);
    await patchDraft(tenant.orgKey.secret, "flows", flowId, {
      nodes: [
        { id: "start", type: "trigger_start", data: {} },
        { id: "out", type: "output", data: { value: "no fruit here" } },
      ],
    });
    await drainEvaluations();
    const run = await trpc("query", "evaluations.flows.run", { id: flowId, runId }, { cookie });
    expect(run.body.result.data.run).toMatchObject({ status: "completed", passed: 1, versionId: null });
  });
});
