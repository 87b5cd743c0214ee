// The Idempotency-Key of a first request lost with its process (issue 44): the process running a
// keyed request renews the key's heartbeat, so a key nobody renewed for RUN_LOST_AFTER_MS is free
// again at once (not minutes later), and a slow request still running keeps its key (409 to a retry).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, createDb, getDb } from "@/server/db";
import { claimIdempotencyKey } from "@/server/services/support/idempotency";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";
import { api, newOrganization } from "../helpers";
import { email } from "../provisioning-helpers";
import { publishedApp } from "../runtime-helpers";

process.env.RUN_LOST_AFTER_MS = "1000";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI(() => "Refunds are paid within fourteen days of the request, shipping costs are not", {
    tokenDelayMs: 250,
  });
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  process.env.MODEL_PROVIDER_MODELS = "slow-model";
});
afterAll(async () => {
  await fake.close();
});

/** The row a process leaves behind when it dies running a keyed first request, renewed last `heartbeatAgoMs` ago. */
async function runningKey(organizationId: string, key: string, heartbeatAgoMs: number): Promise<void> {
  await getDb()
    .$executeRaw`insert into idempotency_keys (organization_id, key, request_hash, state, created_at, heartbeat_at)
    values (${organizationId}::uuid, ${key}, 'hash of the lost request', 'running',
            now() - make_interval(secs => ${heartbeatAgoMs / 1000}), now() - make_interval(secs => ${heartbeatAgoMs / 1000}))`;
}

describe("a keyed first request lost with its process", () => {
  it("frees its key once nobody renewed it for RUN_LOST_AFTER_MS; a renewed one stays taken", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    await runningKey(tenant.organization.id, "lost-with-its-process", 1500);
    // Another process that is alive runs a first request with this key, and renews it meanwhile.
    const otherProcess = createDb(process.env.DATABASE_URL!, 1);
    expect(
      await claimIdempotencyKey(otherProcess, tenant.organization.id, "still-running-elsewhere", "hash"),
    ).toBeNull();

    const body = { email: email() };
    const retried = await api("POST", "/end-users", {
      key,
      body,
      headers: { "idempotency-key": "lost-with-its-process" },
    });
    expect(retried.status).toBe(201);
    const replayed = await api("POST", "/end-users", {
      key,
      body,
      headers: { "idempotency-key": "lost-with-its-process" },
    });
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");

    await new Promise((resolve) => setTimeout(resolve, 2000));
    const taken = await api("POST", "/end-users", {
      key,
      body: { email: email() },
      headers: { "idempotency-key": "still-running-elsewhere" },
    });
    expect({ status: taken.status, code: taken.body?.error?.code }).toEqual({ status: 409, code: "conflict" });
    await closeDb(otherProcess);
  });

  it("keeps the key of a slow request that is still running past RUN_LOST_AFTER_MS, then replays its answer", async () => {
    const app = await publishedApp({ billingModel: "slow-model" });
    const turn = () =>
      api("POST", `/apps/${app.appId}/conversation`, {
        key: app.key,
        body: { message: "When are refunds paid?" },
        headers: { "idempotency-key": "slow-turn" },
      });
    const first = turn();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const during = await turn();
    expect({ status: during.status, code: during.body?.error?.code }).toEqual({ status: 409, code: "conflict" });
    const answered = await first;
    expect(answered.status).toBe(200);
    const after = await turn();
    expect(after.status).toBe(200);
    expect(after.headers.get("idempotent-replayed")).toBe("true");
    expect(after.body).toEqual(answered.body);
  });
});
