// Webhooks as an integrator sees them: a receiver started here verifies every delivery with the
// `standardwebhooks` package. Deliveries are queued with the change (a rolled-back change sends
// nothing), retried on the schedule with the worker's clock moved forward (no sleeping), carry
// the same webhook-id on every retry and replay, are sent once per attempt however many workers
// run, and survive a worker that dies holding one.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  // The receiver listens on 127.0.0.1.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
  // Webhook secrets are sealed at rest like every stored credential.
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
});

import { Webhook } from "standardwebhooks";
import { getDb } from "@/server/db";
import { RETRY_SCHEDULE_MS, retryDelayMs, runWebhookDeliveriesOnce } from "@/server/jobs/webhook-delivery";
import { recordEvent } from "@/server/services/org/events";
import { sealWebhookSecrets } from "@/server/services/org/secrets";
import { api, expectError, issueKey, newOrganization, type Tenant } from "../helpers";
import { email } from "../provisioning-helpers";

interface Received {
  headers: Record<string, string>;
  body: string;
}

let receiver: http.Server;
let baseUrl: string;
const inbox = new Map<string, Received[]>();
/** Statuses a path answers, in order; 204 once they run out. */
const answers = new Map<string, number[]>();

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "/";
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      inbox.set(path, [...(inbox.get(path) ?? []), { headers, body: Buffer.concat(chunks).toString("utf8") }]);
      response.statusCode = answers.get(path)?.shift() ?? 204;
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => receiver.close(resolve)));

let paths = 0;
async function endpoint(tenant: Tenant, eventTypes: string[] = ["*"]) {
  const path = `/hook-${++paths}`;
  const response = await api("POST", "/webhook-endpoints", {
    key: tenant.orgKey.secret,
    body: { url: `${baseUrl}${path}`, eventTypes },
  });
  expect(response.status).toBe(201);
  return {
    path,
    id: response.body.endpoint.id as string,
    secret: response.body.secret as string,
    endpoint: response.body.endpoint,
  };
}

/** Runs the worker until nothing is due at `now`. */
async function drain(now = new Date()) {
  while ((await runWebhookDeliveriesOnce(getDb(), { now: () => now, random: () => 0.5 })) > 0);
}

function verified(secret: string, received: Received): { type: string; timestamp: string; data: any } {
  return new Webhook(secret).verify(received.body, received.headers) as never;
}

describe("webhook secrets at rest", () => {
  it("are stored sealed, never as the secret, and deliveries still verify with it, before and after a rotation", async () => {
    const tenant = await newOrganization();
    const { id, path, secret } = await endpoint(tenant, ["end_user.created"]);
    const stored = await getDb().webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(stored.secret).not.toContain(secret);
    expect(stored.secret).not.toContain(secret.slice("whsec_".length));
    expect(stored.secret).toMatch(/^v1:/);

    await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email() } });
    await drain();
    expect(verified(secret, inbox.get(path)!.at(-1)!).type).toBe("end_user.created");

    const rotated = await api("POST", `/webhook-endpoints/${id}/rotate-secret`, { key: tenant.orgKey.secret });
    const after = await getDb().webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect([after.secret, after.previousSecret].join(" ")).not.toContain(secret.slice("whsec_".length));
    expect(after.secret).not.toContain(rotated.body.secret.slice("whsec_".length));
    await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email() } });
    await drain();
    const last = inbox.get(path)!.at(-1)!;
    expect(verified(rotated.body.secret, last).type).toBe("end_user.created");
    expect(verified(secret, last).type).toBe("end_user.created");
  });

  it("kept readable before sealing existed are sealed by the start-up step, and still sign", async () => {
    const tenant = await newOrganization();
    const { id, path } = await endpoint(tenant, ["end_user.created"]);
    const legacy = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    await getDb().webhookEndpoint.update({ where: { id }, data: { secret: legacy } });

    expect(await sealWebhookSecrets(getDb())).toBeGreaterThanOrEqual(1);
    const sealed = await getDb().webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(sealed.secret).toMatch(/^v1:/);
    expect(await sealWebhookSecrets(getDb())).toBe(0);

    await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email() } });
    await drain();
    expect(verified(legacy, inbox.get(path)!.at(-1)!).type).toBe("end_user.created");
  });
});

describe("webhook endpoints", () => {
  it("answers the whsec_ secret once, never again (nor in the audit log); refuses a URL that is not http(s) and unknown event types", async () => {
    const tenant = await newOrganization();
    const { id, secret, endpoint: created } = await endpoint(tenant, ["end_user.created", "end_user.created"]);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created).toEqual({
      id,
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/hook-\d+$/),
      eventTypes: ["end_user.created"],
      description: "",
      enabled: true,
      disabledReason: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const got = await api("GET", `/webhook-endpoints/${id}`, { key: tenant.orgKey.secret });
    expect(got.text).not.toContain(secret.slice(6));
    const listed = await api("GET", "/webhook-endpoints", { key: tenant.orgKey.secret });
    expect(listed.body).toEqual({ endpoints: [got.body.endpoint], nextCursor: null });
    expect(
      JSON.stringify(await getDb().auditEvent.findMany({ where: { organizationId: tenant.organization.id } })),
    ).not.toContain(secret.slice(6));

    expectError(
      await api("POST", "/webhook-endpoints", {
        key: tenant.orgKey.secret,
        body: { url: "ftp://example.com", eventTypes: ["*"] },
      }),
      400,
      "invalid_request",
    );
    expectError(
      await api("POST", "/webhook-endpoints", {
        key: tenant.orgKey.secret,
        body: { url: `${baseUrl}/x`, eventTypes: [] },
      }),
      400,
      "invalid_request",
    );
    expectError(
      await api("POST", "/webhook-endpoints", {
        key: tenant.orgKey.secret,
        body: { url: `${baseUrl}/x`, eventTypes: ["nope"] },
      }),
      400,
      "invalid_request",
    );
  });

  it("needs webhooks:read and webhooks:write, and admin for personal keys; another organization's endpoint is not found", async () => {
    const tenant = await newOrganization();
    const readOnly = await issueKey(tenant.operator, { kind: "organization", scopes: ["webhooks:read"] });
    expectError(
      await api("POST", "/webhook-endpoints", {
        key: readOnly.secret,
        body: { url: `${baseUrl}/x`, eventTypes: ["*"] },
      }),
      403,
      "insufficient_scope",
    );
    expect((await api("GET", "/webhook-endpoints", { key: readOnly.secret })).status).toBe(200);
    const { id } = await endpoint(tenant);
    const other = await newOrganization();
    expectError(await api("GET", `/webhook-endpoints/${id}`, { key: other.orgKey.secret }), 404, "not_found");
    expectError(await api("DELETE", `/webhook-endpoints/${id}`, { key: other.orgKey.secret }), 404, "not_found");
    const removed = await api("DELETE", `/webhook-endpoints/${id}`, { key: tenant.orgKey.secret });
    expect(removed.status).toBe(204);
  });
});

describe("deliveries", () => {
  it("sends end_user.created signed per Standard Webhooks, with the end user as the REST API shows it", async () => {
    const tenant = await newOrganization();
    const hook = await endpoint(tenant, ["end_user.created"]);
    const address = email();
    const created = await api("POST", "/end-users", {
      key: tenant.orgKey.secret,
      body: { email: address, fullName: "Alice" },
    });
    await api("PATCH", `/end-users/${created.body.endUser.id}`, {
      key: tenant.orgKey.secret,
      body: { fullName: "Alice L." },
    });
    await drain();

    const [delivery, ...more] = inbox.get(hook.path) ?? [];
    expect(more).toEqual([]);
    const payload = verified(hook.secret, delivery!);
    expect(payload.type).toBe("end_user.created");
    expect(payload.data).toMatchObject({
      id: created.body.endUser.id,
      email: address,
      fullName: "Alice",
      revokedAt: null,
    });
    expect(delivery!.headers["webhook-id"]).toEqual(expect.any(String));

    const deliveries = await api("GET", `/webhook-endpoints/${hook.id}/deliveries`, { key: tenant.orgKey.secret });
    expect(deliveries.body.deliveries).toEqual([
      {
        id: delivery!.headers["webhook-id"],
        eventId: expect.any(String),
        type: "end_user.created",
        status: "succeeded",
        attempts: [{ at: expect.any(String), responseStatus: 204, durationMs: expect.any(Number), error: null }],
        nextAttemptAt: null,
        createdAt: expect.any(String),
      },
    ]);
  });

  it("records why an attempt got no answer: a refused connection names its code, host and port", async () => {
    const tenant = await newOrganization();
    // A loopback port nothing listens on.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const created = await api("POST", "/webhook-endpoints", {
      key: tenant.orgKey.secret,
      body: { url: `http://127.0.0.1:${port}/hook`, eventTypes: ["*"] },
    });
    await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email() } });
    await drain();
    const [delivery] = (
      await api("GET", `/webhook-endpoints/${created.body.endpoint.id}/deliveries`, { key: tenant.orgKey.secret })
    ).body.deliveries;
    expect(delivery.status).toBe("pending");
    expect(delivery.attempts).toEqual([
      {
        at: expect.any(String),
        responseStatus: null,
        durationMs: expect.any(Number),
        error: `connection refused (ECONNREFUSED) by 127.0.0.1:${port}`,
      },
    ]);
  });

  it("retries on the schedule with the same webhook-id, then succeeds; the schedule is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h with ±10% jitter", async () => {
    expect(RETRY_SCHEDULE_MS.map((_, i) => retryDelayMs(i + 1, () => 0.5))).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
    expect(retryDelayMs(1, () => 0)).toBe(4_500);
    expect(retryDelayMs(1, () => 0.9999999)).toBe(5_500);
    expect(retryDelayMs(8)).toBeNull();

    const tenant = await newOrganization();
    const hook = await endpoint(tenant);
    answers.set(hook.path, [500, 503]);
    await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email() } });
    const start = Date.now();
    await drain(new Date(start));
    expect(inbox.get(hook.path)).toHaveLength(1);
    // Not yet due 4 s later; due once the 5 s have passed (the worker's clock, not a sleep).
    await drain(new Date(start + 4_000));
    expect(inbox.get(hook.path)).toHaveLength(1);
    await drain(new Date(start + 6_000));
    expect(inbox.get(hook.path)).toHaveLength(2);
    await drain(new Date(start + 6_000 + 300_000 + 1_000));
    const received = inbox.get(hook.path)!;
    expect(received).toHaveLength(3);
    expect(new Set(received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    for (const r of received) verified(hook.secret, r);
    const [delivery] = (await api("GET", `/webhook-endpoints/${hook.id}/deliveries`, { key: tenant.orgKey.secret }))
      .body.deliveries;
    expect(delivery.status).toBe("succeeded");
    expect(delivery.attempts.map((a: any) => a.responseStatus)).toEqual([500, 503, 204]);
  });

  it("disables the endpoint at once on 410 Gone", async () => {
    const tenant = await newOrganization();
    const hook = await endpoint(tenant);
    answers.set(hook.path, [410]);
    await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email() } });
    await drain();
    const { endpoint: after } = (await api("GET", `/webhook-endpoints/${hook.id}`, { key: tenant.orgKey.secret })).body;
    expect(after).toMatchObject({ enabled: false, disabledReason: expect.stringContaining("410") });
    await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email() } });
    await drain();
    expect(inbox.get(hook.path)).toHaveLength(1);
  });

  it("disables an endpoint whose deliveries have all failed for 5 days", async () => {
    const tenant = await newOrganization();
    const hook = await endpoint(tenant);
    answers.set(hook.path, [500]);
    await getDb()
      .$executeRaw`update webhook_endpoints set failing_since = now() - interval '5 days 1 minute' where id = ${hook.id}::uuid`;
    await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email() } });
    await drain();
    const { endpoint: after } = (await api("GET", `/webhook-endpoints/${hook.id}`, { key: tenant.orgKey.secret })).body;
    expect(after).toMatchObject({ enabled: false, disabledReason: "Every delivery failed for 5 days." });
    // Turned on again by an admin, it starts afresh.
    const enabled = await api("PATCH", `/webhook-endpoints/${hook.id}`, {
      key: tenant.orgKey.secret,
      body: { enabled: true },
    });
    expect(enabled.body.endpoint).toMatchObject({ enabled: true, disabledReason: null });
  });

  it("replays a delivery with 202 and the same webhook-id", async () => {
    const tenant = await newOrganization();
    const hook = await endpoint(tenant);
    await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email() } });
    await drain();
    const [delivery] = (await api("GET", `/webhook-endpoints/${hook.id}/deliveries`, { key: tenant.orgKey.secret }))
      .body.deliveries;
    const replayed = await api("POST", `/webhook-endpoints/${hook.id}/deliveries/${delivery.id}/replay`, {
      key: tenant.orgKey.secret,
    });
    expect(replayed.status).toBe(202);
    expect(replayed.body.delivery).toMatchObject({ id: delivery.id, status: "pending" });
    await drain();
    const received = inbox.get(hook.path)!;
    expect(received.map((r) => r.headers["webhook-id"])).toEqual([delivery.id, delivery.id]);
    expect(verified(hook.secret, received[1]!).type).toBe("end_user.created");
  });

  it("signs with the old and the new secret for 24 hours after a rotation", async () => {
    const tenant = await newOrganization();
    const hook = await endpoint(tenant);
    const rotated = await api("POST", `/webhook-endpoints/${hook.id}/rotate-secret`, { key: tenant.orgKey.secret });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(hook.secret);
    await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email() } });
    await drain();
    const [received] = inbox.get(hook.path)!;
    expect(received!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    verified(hook.secret, received!);
    verified(rotated.body.secret, received!);
  });

  it("sends nothing for a change that rolled back", async () => {
    const tenant = await newOrganization();
    const hook = await endpoint(tenant);
    const db = getDb();
    await expect(
      db.$transaction(async (tx) => {
        const user = await tx.endUser.create({ data: { organizationId: tenant.organization.id, email: email() } });
        await recordEvent(tx, tenant.operator, {
          action: "end_user.create",
          target: { type: "end_user", id: user.id },
          data: { id: user.id },
        });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await db.webhookDelivery.count({ where: { endpointId: hook.id } })).toBe(0);
    await drain();
    expect(inbox.get(hook.path)).toBeUndefined();
  });

  it("two workers send each due delivery exactly once, and a worker that dies holding one loses nothing", async () => {
    const tenant = await newOrganization();
    const hook = await endpoint(tenant);
    for (let i = 0; i < 6; i++)
      await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email() } });
    await Promise.all([
      runWebhookDeliveriesOnce(getDb(), { batch: 4 }),
      runWebhookDeliveriesOnce(getDb(), { batch: 4 }),
    ]);
    await drain();
    const ids = inbox.get(hook.path)!.map((r) => r.headers["webhook-id"]);
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);

    // A worker claims with a short lease, then dies before sending: after the lease another sends it.
    await api("POST", "/end-users", { key: tenant.orgKey.secret, body: { email: email() } });
    const died = runWebhookDeliveriesOnce(getDb(), {
      leaseMs: 1,
      afterClaim: () => {
        throw new Error("the process died");
      },
    });
    await expect(died).rejects.toThrow("the process died");
    await new Promise((resolve) => setTimeout(resolve, 20));
    await drain();
    expect(inbox.get(hook.path)).toHaveLength(7);
  });
});
