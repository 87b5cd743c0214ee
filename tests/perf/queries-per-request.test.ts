// What the hot requests send to PostgreSQL (issue 53), counted on a server process of their own
// whose every statement is recorded, through the REST door. The counts are the budget: a request
// that gains a round trip fails here. And what a process keeps between requests (a key's lookup,
// the organization's model list) is dropped in every process by the change's own commit.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  // The stand-in provider listens on 127.0.0.1.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

import { createRestHandler } from "@/server/adapters/rest";
import { closeDb, createDb, getDb, type Db } from "@/server/db";
import { changeMemberRole, removeMember } from "@/server/services/identity/members";
import { createModelProvider } from "@/server/services/org/model-providers";
import { updateOrganization } from "@/server/services/org/organizations";
import { revokeApiKey } from "@/server/services/identity/api-keys";
import { readRunEvents } from "@/server/services/runs/conversation-runs";
import { storeRunEvents, type EventBatch } from "@/server/services/runs/run-events";
import {
  addPerson,
  api,
  expectError,
  isCounterSweep,
  issueKey,
  newOrganization,
  type Handler,
  type Tenant,
} from "../helpers";
import { email, newGroup, newPlan } from "../provisioning-helpers";
import { newKnowledgebase, newPage } from "../knowledge-helpers";
import { oneAgentApp, publishedApp } from "../runtime-helpers";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { create, patchDraft, publish } from "../builder-helpers";
import { BUILTIN_MODEL_ID } from "@/server/runtime/model-types";

const dbs: Db[] = [];
let provider: FakeOpenAI;
beforeAll(async () => {
  provider = await startFakeOpenAI(() => "Refunds take five days.");
});
afterAll(async () => {
  await Promise.all(dbs.map((db) => closeDb(db)));
  await provider.close();
});

/** Waits until nothing `db` was asked to send is still queued or running (writes left after an answer included). */
async function settled(db: Db): Promise<void> {
  const busy = () => db.pool.waitingCount > 0 || db.pool.totalCount > db.pool.idleCount;
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (let waited = 0; busy() && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Another server process: its own pool and REST handler; `statements` records what it sends. */
function serverProcess() {
  const db = createDb(process.env.DATABASE_URL!);
  dbs.push(db);
  const statements: string[] = [];
  db.pool.on("connect", (client) => {
    const send = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      const first = args[0] as { name?: string; text?: string } | string;
      // The hourly sweeps (rate-limit counters; idempotency keys and runs kept 24 hours) are no request's.
      const text = typeof first === "string" ? first : (first.text ?? "");
      if (!isCounterSweep(first) && !/interval '24 hours'/.test(text)) {
        statements.push(typeof first === "string" ? first : (first.name ?? first.text ?? "(unnamed)"));
      }
      return send(...args);
    };
  });
  const handler: Handler = createRestHandler({ db: () => db });
  return {
    db,
    handler,
    /** The statements `call` sent, the writes it left to run after its answer (the key's use) included. */
    async statementsOf(call: () => Promise<unknown>): Promise<string[]> {
      statements.length = 0;
      await call();
      await settled(db);
      return [...statements];
    },
  };
}

/** A priced turn's statements: the flat turn's five and the settlement that gives back the rest. */
const PRICED_TURN = [
  "atrium_charge_run_credits",
  "atrium_give_back_credits",
  "atrium_key_count",
  "atrium_record_run_usage",
  "atrium_retrieve_small",
  "atrium_save_turn",
];

/** One turn of `appId` on `server`, the same question each time. */
function turnOn(server: ReturnType<typeof serverProcess>, key: string, appId: string) {
  return () =>
    api("POST", `/apps/${appId}/conversation`, {
      key,
      handler: server.handler,
      body: { message: "How long do refunds take?" },
    });
}

/** Prices the built-in model, then the statements of one turn of `appId` after a first one. */
async function pricedTurnStatements(key: string, appId: string): Promise<string[]> {
  const server = serverProcess();
  const priced = await api("PUT", `/model-prices/${BUILTIN_MODEL_ID}`, {
    key,
    body: { inputCreditsPerMillion: 1_000, outputCreditsPerMillion: 4_000, minimumCredits: 1 },
  });
  expect(priced.status).toBe(200);
  const converse = turnOn(server, key, appId);
  await server.statementsOf(converse);
  const statements = await server.statementsOf(async () => expect((await converse()).status).toBe(200));
  return [...statements].sort();
}

describe("statements per request, once the process has seen the key", () => {
  it("GET /models: one, the rate-limit count (was two: the key check and the providers)", async () => {
    const server = serverProcess();
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    // The first request looks the key up, reads the providers and records the key's use.
    await server.statementsOf(() => api("GET", "/models", { key, handler: server.handler }));
    const statements = await server.statementsOf(async () => {
      expect((await api("GET", "/models", { key, handler: server.handler })).status).toBe(200);
    });
    expect(statements).toEqual(["atrium_key_count"]);
  });

  it("GET /models: the rate-limit count is planned once per connection, not on every call", async () => {
    const db = createDb(process.env.DATABASE_URL!, 1);
    dbs.push(db);
    const handler: Handler = createRestHandler({ db: () => db });
    const tenant = await newOrganization();
    for (let call = 0; call < 12; call++) {
      expect((await api("GET", "/models", { key: tenant.orgKey.secret, handler })).status).toBe(200);
    }
    await settled(db);
    // PostgreSQL keeps the generic plan after its first five custom ones when it costs no more.
    const { rows } = await db.pool.query<{ generic_plans: string; custom_plans: string }>(
      "select generic_plans, custom_plans from pg_prepared_statements where name = 'atrium_key_count'",
    );
    expect(Number(rows[0]!.custom_plans)).toBeLessThanOrEqual(5);
    expect(Number(rows[0]!.generic_plans)).toBeGreaterThanOrEqual(5);
  });

  it("POST /end-users with two plans, a group and a grant, GET /end-users/{id}, GET /knowledgebases/{id}: two each; four with an Idempotency-Key", async () => {
    const server = serverProcess();
    const app = await publishedApp();
    const { key, tenant } = app;
    const [basic, gold, group] = [
      await newPlan(tenant.operator),
      await newPlan(tenant.operator, { withGroup: true }),
      await newGroup(tenant.operator),
    ];
    const kb = await newKnowledgebase(tenant);
    for (let i = 0; i < 3; i++) await newPage(key, kb, { title: `Page ${i}`, markdown: `# Page ${i}\n\nText ${i}.` });
    await server.statementsOf(() => api("GET", "/models", { key, handler: server.handler }));

    let endUserId = "";
    const provision = await server.statementsOf(async () => {
      const response = await api("POST", "/end-users", {
        key,
        handler: server.handler,
        body: {
          email: email(),
          tierPlanIds: [basic.tierPlan.id, gold.tierPlan.id],
          groupIds: [group.id],
          grants: [{ targetKind: "app", targetId: app.appId }],
        },
      });
      expect(response.status).toBe(201);
      endUserId = response.body.endUser.id;
    });
    expect(provision).toEqual(["atrium_key_count", "atrium_provision"]);

    // With an Idempotency-Key: the key taken and the answer kept, on the pool.
    const keyed = () =>
      api("POST", "/end-users", {
        key,
        handler: server.handler,
        headers: { "idempotency-key": `provision-${email()}` },
        body: { email: email() },
      });
    await keyed();
    const idempotent = await server.statementsOf(async () => expect((await keyed()).status).toBe(201));
    expect(idempotent).toEqual([
      "atrium_key_count",
      "atrium_idempotency_claim",
      "atrium_provision",
      "atrium_idempotency_finish",
    ]);

    const detail = await server.statementsOf(async () => {
      expect((await api("GET", `/end-users/${endUserId}`, { key, handler: server.handler })).status).toBe(200);
    });
    expect(detail).toEqual(["atrium_key_count", "atrium_end_user_details"]);

    const knowledgebase = await server.statementsOf(async () => {
      expect((await api("GET", `/knowledgebases/${kb}`, { key, handler: server.handler })).status).toBe(200);
    });
    expect(knowledgebase).toEqual(["atrium_key_count", "atrium_knowledgebase_details"]);
  });

  it("GET /end-users/{id} and GET /knowledgebases/{id} asked together, of two organizations: one statement for each kind", async () => {
    const server = serverProcess();
    const tenants = [await newOrganization(), await newOrganization()];
    const reads = await Promise.all(
      tenants.map(async (tenant) => {
        const key = tenant.orgKey.secret;
        const users = [];
        for (let i = 0; i < 3; i++) {
          const created = await api("POST", "/end-users", { key, body: { email: email() } });
          users.push(created.body.endUser.id as string);
        }
        return { key, users, kb: await newKnowledgebase(tenant) };
      }),
    );
    await server.statementsOf(() =>
      Promise.all(reads.map(({ key }) => api("GET", "/models", { key, handler: server.handler }))),
    );
    const get = (key: string, path: string) => api("GET", path, { key, handler: server.handler });
    const statements = await server.statementsOf(async () => {
      const answers = await Promise.all(
        reads.flatMap(({ key, users, kb }) => [
          ...users.map((id) => get(key, `/end-users/${id}`)),
          get(key, `/knowledgebases/${kb}`),
        ]),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
      expect(answers.map((answer) => answer.body.endUser?.id ?? answer.body.id)).toEqual(
        reads.flatMap(({ users, kb }) => [...users, kb]),
      );
    });
    expect(statements.sort()).toEqual(["atrium_end_user_details", "atrium_key_count", "atrium_knowledgebase_details"]);
  });

  it("a conversation turn: five (was eight), its usage totals and rows by model in one, the app as published kept by the process", async () => {
    const server = serverProcess();
    const app = await publishedApp({ app: { orchestrationMode: "broadcast" } });
    const converse = turnOn(server, app.key, app.appId);
    await server.statementsOf(converse); // reads the versions into the process's cache
    const statements = await server.statementsOf(async () => expect((await converse()).status).toBe(200));
    expect([...statements].sort()).toEqual([
      "atrium_charge_run_credits",
      "atrium_key_count",
      "atrium_record_run_usage",
      "atrium_retrieve_small",
      "atrium_save_turn",
    ]);
  });
  it("a turn answered by the organization's provider: its model found among the providers kept with the app", async () => {
    const server = serverProcess();
    const tenant = await newOrganization();
    await createModelProvider(getDb(), tenant.operator, {
      slug: "acme",
      kind: "openai-compatible",
      name: "Acme AI",
      baseUrl: provider.baseURL,
      models: [{ id: "gpt-org", kind: "chat" }],
    });
    const key = tenant.orgKey.secret;
    const appId = await oneAgentApp(key, { name: "Acme agent", model: "acme/gpt-org" }, { name: "Acme app" });
    const converse = turnOn(server, key, appId);
    await server.statementsOf(converse);
    const asked = provider.requests.length;
    const statements = await server.statementsOf(async () => {
      const turn = await converse();
      expect(turn.status).toBe(200);
      expect(turn.body.reply).toBe("Refunds take five days.");
    });
    expect(provider.requests.length).toBe(asked + 1);
    // No read of the providers of its own (it was a Prisma query for each model a run used).
    expect([...statements].sort()).toEqual([
      "atrium_charge_run_credits",
      "atrium_key_count",
      "atrium_record_run_usage",
      "atrium_save_turn",
    ]);
  });

  it("a priced turn of two calls (route, answer): the flat turn's five and the settlement (was ten: the answer's reservation, the route's cost on the lease)", async () => {
    const app = await publishedApp();
    expect(await pricedTurnStatements(app.key, app.appId)).toEqual(PRICED_TURN);
  });
  it("a priced turn of one call (one agent, as in the metering bench): the flat turn's five and the settlement", async () => {
    const { key, billingAgentId } = await publishedApp();
    const app = await create(key, "apps", {
      name: "Billing only",
      members: [{ id: billingAgentId, kind: "agent" }],
      orchestrationMode: "sequential",
    });
    await publish(key, "apps", app.id);
    expect(await pricedTurnStatements(key, app.id)).toEqual(PRICED_TURN);
  });
});

// Streams through a server of its own on a loaded two-core machine take a while.
describe("a streamed turn", { timeout: 120_000 }, () => {
  it("the flat turn's five, its run started and ended, its events stored: none read back", async () => {
    const server = serverProcess();
    const app = await publishedApp({ app: { orchestrationMode: "broadcast" } });
    const stream = async () => {
      const response = await api("POST", `/apps/${app.appId}/conversation`, {
        key: app.key,
        handler: server.handler,
        body: { message: "How long do refunds take, and are shipping costs refunded?", stream: true },
      });
      expect(response.status).toBe(200);
      expect(response.text).toContain("event: done");
    };
    await server.statementsOf(stream);
    const statements = await server.statementsOf(stream);
    const stores = statements.filter((name) => name === "atrium_store_run_events").length;
    // A quick answer's events may all be stored in one statement, a slow one's over several
    // (tests/runtime/stream-stores.test.ts trickles them).
    expect(stores).toBeGreaterThanOrEqual(1);
    // The run started on this process: its first event, and every later one, is handed to the
    // stream as it comes, none read back (a resumed stream reads storage: tests/runtime/resume.test.ts).
    // The run's own row is written and ended on the pool, as the turn's other statements are.
    expect(statements.filter((name) => name !== "atrium_store_run_events").sort()).toEqual([
      "atrium_charge_run_credits",
      "atrium_end_conversation_run",
      "atrium_key_count",
      "atrium_record_run_usage",
      "atrium_retrieve_small",
      "atrium_save_turn",
      "atrium_start_conversation_run",
    ]);
  });
});

/** Runs in progress of `tenant` with these ids, for their events to be stored against. */
async function runningRuns(tenant: Tenant, runIds: string[]) {
  await getDb().conversationRun.createMany({
    data: runIds.map((id) => ({
      id,
      organizationId: tenant.organization.id,
      appId: crypto.randomUUID(),
      conversationId: crypto.randomUUID(),
      door: "api",
      status: "running",
    })),
  });
}

describe("the events of many runs", () => {
  it("are stored in one statement per turn of the event loop; a retried batch is skipped, a failing one fails alone", async () => {
    const server = serverProcess();
    const tenant = await newOrganization();
    const runIds = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    await runningRuns(tenant, runIds);
    const batch = (runId: string, first: number, texts: string[]): EventBatch => ({
      runId,
      first,
      events: texts.map(() => "delta"),
      data: texts.map((text) => JSON.stringify({ text })),
    });
    const storedOf = async (runId: string) =>
      (await readRunEvents(getDb(), { id: runId, organizationId: tenant.organization.id }, 0)).map(
        (event) => `${event.seq}:${JSON.parse(event.data).text}`,
      );

    const statements = await server.statementsOf(() =>
      Promise.all(runIds.map((runId) => storeRunEvents(server.db, batch(runId, 0, ["a", "b"])))),
    );
    expect(statements).toEqual(["atrium_store_runs_events"]);
    for (const runId of runIds) expect(await storedOf(runId)).toEqual(["1:a", "2:b"]);

    // A retry of a batch already stored (its answer lost) beside a new one: nothing twice.
    await Promise.all([
      storeRunEvents(server.db, batch(runIds[0]!, 0, ["a", "b"])),
      storeRunEvents(server.db, batch(runIds[1]!, 2, ["c"])),
    ]);
    expect(await storedOf(runIds[0]!)).toEqual(["1:a", "2:b"]);
    expect(await storedOf(runIds[1]!)).toEqual(["1:a", "2:b", "3:c"]);

    // A run deleted meanwhile fails its own batch, not the others'.
    const results = await Promise.allSettled([
      storeRunEvents(server.db, batch(crypto.randomUUID(), 0, ["lost"])),
      storeRunEvents(server.db, batch(runIds[2]!, 2, ["c"])),
    ]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "fulfilled"]);
    expect(await storedOf(runIds[2]!)).toEqual(["1:a", "2:b", "3:c"]);
  });

  it("wait while two statements store, then go together in the next one", async () => {
    const server = serverProcess();
    const tenant = await newOrganization();
    const runIds = Array.from({ length: 5 }, () => crypto.randomUUID());
    await runningRuns(tenant, runIds);
    const store = (runId: string) =>
      storeRunEvents(server.db, { runId, first: 0, events: ["delta"], data: [JSON.stringify({ text: runId })] });
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

    const statements = await server.statementsOf(async () => {
      // Each of the first two turns starts a statement; the three batches asked for in the next
      // turns, while those two run, go in one.
      const stores = [store(runIds[0]!)];
      await nextTurn();
      stores.push(store(runIds[1]!));
      await nextTurn();
      stores.push(store(runIds[2]!), store(runIds[3]!));
      await nextTurn();
      stores.push(store(runIds[4]!));
      await Promise.all(stores);
    });
    // Sorted: a statement that waits for a new connection is sent after one that found an idle one.
    expect(statements.sort()).toEqual([
      "atrium_store_run_events",
      "atrium_store_run_events",
      "atrium_store_runs_events",
    ]);
    const stored = await getDb().conversationRunEvent.findMany({ where: { runId: { in: runIds } } });
    expect(stored.map((row) => `${row.runId}:${row.seq}`).sort()).toEqual(runIds.map((id) => `${id}:1`).sort());
  });
});

describe("what a process keeps is dropped by the change's commit, in every process", () => {
  it("a key revoked through one process is refused by another on its next request", async () => {
    const [a, b] = [serverProcess(), serverProcess()];
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    await b.statementsOf(async () => {
      expect((await api("GET", "/models", { key, handler: b.handler })).status).toBe(200);
    });
    expect(await b.statementsOf(() => api("GET", "/models", { key, handler: b.handler }))).toEqual([
      "atrium_key_count",
    ]);
    // Keys are revoked in the console: the service, on the other process's database client.
    await revokeApiKey(a.db, tenant.operator, { keyId: tenant.orgKey.id });
    const started = Date.now();
    expectError(await api("GET", "/models", { key, handler: b.handler }), 401, "api_key_revoked");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("a member removed, a role lowered, a scope taken away, the API switched off: each seen at once", async () => {
    const b = serverProcess();
    const tenant = await newOrganization();
    const person = await addPerson(tenant.operator, "admin");
    const personal = await issueKey(tenant.operator, { kind: "personal", memberId: person.member.id });
    const models = (key: string) => api("GET", "/models", { key, handler: b.handler });
    const write = (key: string) =>
      api("POST", "/user-groups", { key, handler: b.handler, body: { name: `Group ${Math.random()}` } });
    expect((await write(personal.secret)).status).toBe(201);

    await changeMemberRole(getDb(), tenant.operator, { memberId: person.member.id, role: "viewer" });
    expectError(await write(personal.secret), 403, "forbidden_role");

    await removeMember(getDb(), tenant.operator, { memberId: person.member.id });
    expectError(await models(personal.secret), 401, "member_removed");

    const readOnly = await issueKey(tenant.operator, { kind: "organization", scopes: ["end_users:read"] });
    expect((await api("GET", "/end-users", { key: readOnly.secret, handler: b.handler })).status).toBe(200);
    await getDb().apiKey.update({ where: { id: readOnly.id }, data: { scopes: ["knowledge:read"] } });
    expectError(
      await api("GET", "/end-users", { key: readOnly.secret, handler: b.handler }),
      403,
      "insufficient_scope",
    );

    expect((await models(tenant.orgKey.secret)).status).toBe(200);
    await updateOrganization(getDb(), tenant.operator, { apiEnabled: false });
    expectError(await models(tenant.orgKey.secret), 403, "api_disabled");
  });

  it("a model provider added through one process is listed by another's next GET /models", async () => {
    const b = serverProcess();
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const before = await api("GET", "/models", { key, handler: b.handler });
    expect(before.body.models.map((m: { id: string }) => m.id)).not.toContain("acme/gpt-org");
    await createModelProvider(getDb(), tenant.operator, {
      slug: "acme",
      kind: "anthropic",
      name: "Acme AI",
      models: [{ id: "gpt-org", kind: "chat" }],
    });
    const after = await api("GET", "/models", { key, handler: b.handler });
    expect(after.body.models.map((m: { id: string }) => m.id)).toContain("acme/gpt-org");
  });

  it("an app republished through one process answers at its new version in another; a draft's save keeps what it holds", async () => {
    const b = serverProcess();
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const flowSaying = (word: string) => ({
      name: "Echo",
      nodes: [
        { id: "start", type: "trigger_start", data: {} },
        { id: "out", type: "output", data: { value: `The flow says ${word}.` } },
      ],
    });
    const flow = await create(key, "flows", flowSaying("first"));
    await publish(key, "flows", flow.id);
    const app = await create(key, "apps", {
      name: "Echo app",
      members: [{ id: flow.id, kind: "flow" }],
      orchestrationMode: "sequential",
    });
    await publish(key, "apps", app.id);
    const converse = turnOn(b, key, app.id);
    expect((await converse()).body.reply).toContain("first");
    const kept = await b.statementsOf(async () => expect((await converse()).body.reply).toContain("first"));
    expect(kept).not.toContain("atrium_live_app");

    // A draft saved elsewhere changes nothing that runs: the process keeps the app.
    expect((await patchDraft(key, "flows", flow.id, flowSaying("second"))).status).toBe(200);
    const afterDraft = await b.statementsOf(async () => expect((await converse()).body.reply).toContain("first"));
    expect(afterDraft).not.toContain("atrium_live_app");

    await publish(key, "flows", flow.id);
    const republished = (await publish(key, "apps", app.id)).version.id as string;
    const afterPublish = await b.statementsOf(async () => expect((await converse()).body.reply).toContain("second"));
    expect(afterPublish).toContain("atrium_live_app");
    const latest = await getDb().execution.findFirst({
      where: { organizationId: tenant.organization.id },
      orderBy: { createdAt: "desc" },
    });
    expect(latest?.versionId).toBe(republished);
  });

  it("an app deleted through one process is not found by another's next turn", async () => {
    const b = serverProcess();
    const app = await publishedApp();
    const converse = turnOn(b, app.key, app.appId);
    expect((await converse()).status).toBe(200);
    expect((await converse()).status).toBe(200);
    expect((await api("DELETE", `/apps/${app.appId}`, { key: app.key })).status).toBe(204);
    expectError(await converse(), 404, "not_found");
  });

  it("a member of an app deleted through one process: another's next turn names it", async () => {
    const b = serverProcess();
    const app = await publishedApp();
    const converse = turnOn(b, app.key, app.appId);
    expect((await converse()).status).toBe(200);
    expect((await api("DELETE", `/agents/${app.supportAgentId}`, { key: app.key })).status).toBe(204);
    const refused = expectError(await converse(), 422, "unpublished_dependencies");
    expect(refused.dependencies).toEqual([{ id: app.supportAgentId, kind: "agent", name: expect.any(String) }]);
  });

  it("a model price set through one process is charged by another's next turn", async () => {
    const b = serverProcess();
    const app = await publishedApp();
    const converse = turnOn(b, app.key, app.appId);
    const latestCredits = async () =>
      (
        await getDb().execution.findFirst({
          where: { organizationId: app.tenant.organization.id },
          orderBy: { createdAt: "desc" },
        })
      )?.credits;
    expect((await converse()).status).toBe(200);
    expect((await converse()).status).toBe(200);
    const flat = await latestCredits();
    expect(flat).toBeLessThan(50);
    const priced = await api("PUT", `/model-prices/${BUILTIN_MODEL_ID}`, {
      key: app.key,
      body: { inputCreditsPerMillion: 1_000, outputCreditsPerMillion: 4_000, minimumCredits: 50 },
    });
    expect(priced.status).toBe(200);
    expect((await converse()).status).toBe(200);
    expect(await latestCredits()).toBeGreaterThanOrEqual(50);
  });

  it("a key's use every minute does not drop what the process keeps", async () => {
    const b = serverProcess();
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    await b.statementsOf(() => api("GET", "/models", { key, handler: b.handler }));
    await getDb().apiKey.update({ where: { id: tenant.orgKey.id }, data: { lastUsedAt: new Date(0) } });
    await getDb().organization.update({ where: { id: tenant.organization.id }, data: { credits: { increment: 5 } } });
    expect(await b.statementsOf(() => api("GET", "/models", { key, handler: b.handler }))).toEqual([
      "atrium_key_count",
    ]);
  });
});
