// "Send test event" as an integrator meets it: a receiver started here gets a ping (or an event
// type's sample) signed like every delivery, verifiable with the `standardwebhooks` package; the
// console and REST answer what was sent and what the receiver answered; the test is in the audit
// log and in the endpoint's deliveries, and a refused connection is told in words, not retried.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
});

import { Webhook } from "standardwebhooks";
import { EndUser } from "@/schemas/provisioning/provisioning";
import { WEBHOOK_SAMPLES } from "@/schemas/org/webhook-samples";
import { WEBHOOK_EVENT_TYPES } from "@/schemas/org/webhooks";
import { getDb } from "@/server/db";
import { api, expectError, issueKey, newOrganization, signInCookie, trpc, type Tenant } from "../helpers";

const received: { headers: Record<string, string>; body: string }[] = [];
let receiver: http.Server;
let baseUrl: string;

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      received.push({ headers, body: Buffer.concat(chunks).toString("utf8") });
      if (request.url === "/broken") {
        response.writeHead(500, { "content-type": "text/plain" }).end("database is down");
      } else response.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => receiver.close(resolve)));

async function endpoint(tenant: Tenant, path = "/hook") {
  const response = await api("POST", "/webhook-endpoints", {
    key: tenant.orgKey.secret,
    body: { url: `${baseUrl}${path}`, eventTypes: ["end_user.created"] },
  });
  expect(response.status).toBe(201);
  return { id: response.body.endpoint.id as string, secret: response.body.secret as string };
}

describe("send a test event", () => {
  it("sends a signed ping through the console, verifiable with standardwebhooks, and shows both sides", async () => {
    const tenant = await newOrganization();
    const hook = await endpoint(tenant);
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    received.length = 0;
    const answer = await trpc("mutation", "webhooks.sendTest", { id: hook.id }, { cookie });
    expect(answer.status, answer.text).toBe(200);
    const sent = answer.body.result.data;

    expect(received).toHaveLength(1);
    const event = new Webhook(hook.secret).verify(received[0]!.body, received[0]!.headers) as any;
    expect(event).toMatchObject({ type: "ping", data: WEBHOOK_SAMPLES.ping });
    // What the console shows is exactly what the receiver got, and what it answered.
    expect(sent.request.body).toBe(received[0]!.body);
    expect(sent.request.headers["webhook-id"]).toBe(received[0]!.headers["webhook-id"]);
    expect(sent.request.headers["webhook-signature"]).toBe(received[0]!.headers["webhook-signature"]);
    expect(sent.response).toMatchObject({ status: 200, body: '{"received":true}', error: null });
    expect(sent.delivery).toMatchObject({ id: received[0]!.headers["webhook-id"], type: "ping", status: "succeeded" });

    // Listed with the endpoint's deliveries, and recorded (by whom) in the audit log.
    const deliveries = await api("GET", `/webhook-endpoints/${hook.id}/deliveries`, { key: tenant.orgKey.secret });
    expect(deliveries.body.deliveries.map((d: any) => [d.type, d.status])).toEqual([["ping", "succeeded"]]);
    const log = await trpc("query", "audit.readable", { limit: 5, action: "webhook_endpoint.test" }, { cookie });
    expect(log.body.result.data.auditEvents.map((e: any) => e.sentence)).toEqual([
      `${tenant.owner.email} sent a test event to webhook endpoint “${baseUrl}/hook”`,
    ]);
  });

  it("sends an event type's sample through REST, whatever types the endpoint listens for", async () => {
    const tenant = await newOrganization();
    const hook = await endpoint(tenant);
    received.length = 0;
    const answer = await api("POST", `/webhook-endpoints/${hook.id}/test`, {
      key: tenant.orgKey.secret,
      body: { type: "credits.low" },
    });
    expect(answer.status, answer.text).toBe(200);
    const event = new Webhook(hook.secret).verify(received[0]!.body, received[0]!.headers) as any;
    expect(event).toMatchObject({ type: "credits.low", data: WEBHOOK_SAMPLES["credits.low"] });
  });

  it("tells a failing endpoint's status and body, and a refused connection in words, without retrying", async () => {
    const tenant = await newOrganization();
    const broken = await endpoint(tenant, "/broken");
    const failed = await api("POST", `/webhook-endpoints/${broken.id}/test`, { key: tenant.orgKey.secret, body: {} });
    expect(failed.status).toBe(200);
    expect(failed.body.response).toMatchObject({ status: 500, body: "database is down", error: "HTTP 500" });
    expect(failed.body.delivery).toMatchObject({ status: "failed", nextAttemptAt: null });

    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const nowhere = await api("POST", "/webhook-endpoints", {
      key: tenant.orgKey.secret,
      body: { url: `http://127.0.0.1:${port}/hook`, eventTypes: ["*"] },
    });
    const refused = await api("POST", `/webhook-endpoints/${nowhere.body.endpoint.id}/test`, {
      key: tenant.orgKey.secret,
      body: {},
    });
    expect(refused.body.response).toMatchObject({
      status: null,
      body: null,
      error: `connection refused (ECONNREFUSED) by 127.0.0.1:${port}`,
    });
    const stored = await getDb().webhookDelivery.findMany({ where: { endpointId: nowhere.body.endpoint.id } });
    expect(stored.map((d) => [d.status, d.nextAttemptAt])).toEqual([["failed", null]]);
  });

  it("is the organization's own, needs webhooks:write, and an endpoint turned on", async () => {
    const tenant = await newOrganization();
    const other = await newOrganization();
    const hook = await endpoint(tenant);
    received.length = 0;
    expectError(
      await api("POST", `/webhook-endpoints/${hook.id}/test`, { key: other.orgKey.secret, body: {} }),
      404,
      "not_found",
    );
    const reader = await issueKey(tenant.operator, { kind: "organization", scopes: ["webhooks:read"] });
    expectError(
      await api("POST", `/webhook-endpoints/${hook.id}/test`, { key: reader.secret, body: {} }),
      403,
      "insufficient_scope",
    );
    await api("PATCH", `/webhook-endpoints/${hook.id}`, { key: tenant.orgKey.secret, body: { enabled: false } });
    expectError(
      await api("POST", `/webhook-endpoints/${hook.id}/test`, { key: tenant.orgKey.secret, body: {} }),
      400,
      "invalid_request",
    );
    expect(received).toHaveLength(0);
  });

  it("has a sample for every event type, the end user ones shaped as EndUser", () => {
    for (const type of WEBHOOK_EVENT_TYPES) expect(WEBHOOK_SAMPLES[type], type).toBeDefined();
    for (const type of ["end_user.created", "end_user.updated", "end_user.suspended", "end_user.reactivated"] as const)
      expect(EndUser.safeParse(WEBHOOK_SAMPLES[type]).success, type).toBe(true);
  });
});
