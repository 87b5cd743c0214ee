// Log lines an operator acts on (src/server/observability/operator-log.ts), read from the JSON
// log stream as a log stack would: refused sign-ins at both doors, failed and cancelled runs,
// indexing failures; each at warn with an `event` to alert on.
import { Writable } from "node:stream";
import pino from "pino";
import { beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { drainIndexJobs } from "@/server/jobs/indexing";
import { recordExecution } from "@/server/services/runs/executions";
import { api, newOrganization, trpc } from "../helpers";
import { newKnowledgebase } from "../knowledge-helpers";
import { clientAddress, codeFromOutbox, portalCall, portalScenario } from "../portal/helpers";

const lines: { level: number; event?: string; [field: string]: unknown }[] = [];
(globalThis as { atriumLogger?: pino.Logger }).atriumLogger = pino(
  { base: { service: "atrium" } },
  new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as (typeof lines)[number]);
      done();
    },
  }),
);

const WARN = 40;

beforeEach(() => {
  lines.length = 0;
});

function logged(event: string) {
  return lines.filter((line) => line.event === event);
}

describe("refused sign-ins", () => {
  it("a wrong console password is logged at warn with the email, the address and the code", async () => {
    const tenant = await newOrganization();
    const refused = await trpc("mutation", "auth.signIn", { email: tenant.owner.email, password: "not the password" });
    expect(refused.status).toBe(401);
    expect(logged("sign_in_refused")).toEqual([
      expect.objectContaining({
        level: WARN,
        door: "console",
        email: tenant.owner.email,
        clientAddress: expect.any(String),
        code: "unauthorized",
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain("not the password");
  });

  it("a wrong portal code is logged at warn, without the code tried", async () => {
    const scenario = await portalScenario();
    const from = clientAddress();
    await portalCall(
      "mutation",
      "auth.requestCode",
      { portal: scenario.portal.slug, email: scenario.endUser.email },
      { headers: from },
    );
    const code = (await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email))!;
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    const refused = await portalCall(
      "mutation",
      "auth.verifyCode",
      { portal: scenario.portal.slug, email: scenario.endUser.email, code: wrong },
      { headers: from },
    );
    expect(refused.status).toBe(400);
    expect(logged("sign_in_refused")).toEqual([
      expect.objectContaining({
        level: WARN,
        door: "portal",
        portal: scenario.portal.slug,
        email: scenario.endUser.email,
        code: "invalid_code",
      }),
    ]);
    expect(JSON.stringify(logged("sign_in_refused"))).not.toContain(wrong);
  });
});

describe("runs", () => {
  it("a failed and a cancelled run are logged at warn; a succeeded one is not", async () => {
    const tenant = await newOrganization();
    const base = {
      kind: "conversation" as const,
      itemId: "00000000-0000-4000-8000-000000000001",
      itemKind: "app" as const,
      versionId: null,
      credits: 0,
      latencyMs: 5,
      input: "hi",
      output: "",
      trace: [],
    };
    const failed = await recordExecution(getDb(), tenant.operator, {
      ...base,
      status: "failed",
      error: "The model provider failed or timed out.",
    });
    const cancelled = await recordExecution(getDb(), tenant.operator, {
      ...base,
      status: "canceled",
      error: "The client disconnected.",
    });
    await recordExecution(getDb(), tenant.operator, { ...base, status: "succeeded", output: "hello" });
    expect(logged("run_unsuccessful")).toEqual([
      expect.objectContaining({
        level: WARN,
        organizationId: tenant.organization.id,
        executionId: failed.id,
        status: "failed",
      }),
      expect.objectContaining({
        level: WARN,
        organizationId: tenant.organization.id,
        executionId: cancelled.id,
        status: "canceled",
      }),
    ]);
  });
});

describe("indexing", () => {
  it("a source that fails indexing is logged at warn with its id and the reason", async () => {
    const tenant = await newOrganization();
    const kbId = await newKnowledgebase(tenant);
    const created = await api("POST", `/knowledgebases/${kbId}/sources`, {
      key: tenant.orgKey.secret,
      body: { contentMarkdown: "# Doomed\n\ntext" },
    });
    const sourceId = created.body.source.id as string;
    // As if attempts kept dying for an hour.
    await getDb()
      .$executeRaw`update index_jobs set status = 'running', attempts = 2, started_at = now() - interval '1 hour',
      lease_until = now() - interval '1 second', last_error = 'worker died' where source_id = ${sourceId}::uuid`;
    await drainIndexJobs(getDb());
    expect(logged("indexing_failed")).toEqual([
      expect.objectContaining({ level: WARN, sourceId, reason: expect.stringContaining("worker died") }),
    ]);
  });
});
