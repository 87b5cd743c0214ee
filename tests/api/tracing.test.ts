// Tracing with OpenTelemetry: with an OTLP endpoint configured, a request through our HTTP
// server continues the caller's `traceparent`, and its PostgreSQL queries and the model
// provider's call are spans of the same trace, exported to an OTLP/HTTP receiver started here;
// the provider receives the trace context too. Prompts and answers never go into a span.
import { afterAll, beforeAll, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
  // The fake provider listens on 127.0.0.1.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { getDb } from "@/server/db";
import { flushTraces, startTracing, stopTracing } from "@/server/observability/tracing";
import { createModelProvider } from "@/server/services/org/model-providers";
import { oneAgentApp } from "../runtime-helpers";
import { newOrganization } from "../helpers";
import { listenOnLoopback, type LoopbackServer } from "../loopback-server";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai";

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const QUESTION = "What is the refund window for orders?";

let receiver: http.Server;
const spans: ExportedSpan[] = [];
let server: LoopbackServer;
let fake: FakeOpenAI;

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      if (request.url === "/v1/traces") {
        const sent = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[] };
        for (const resource of sent.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  expect(await startTracing({ endpoint: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}` })).toBe(true);
  server = await listenOnLoopback(0);
  fake = await startFakeOpenAI(() => "Refunds are accepted within 14 days.");
});

afterAll(async () => {
  await stopTracing();
  server.close();
  fake.close();
  receiver.close();
});

it("follows a conversation from the caller's traceparent through PostgreSQL and the provider", async () => {
  const tenant = await newOrganization();
  const key = tenant.orgKey.secret;
  await createModelProvider(getDb(), tenant.operator, {
    slug: "acme",
    kind: "openai-compatible",
    name: "Acme AI",
    baseUrl: fake.baseURL,
    models: [{ id: "gpt-org", kind: "chat" }],
  });
  const appId = await oneAgentApp(
    key,
    { name: "Traced agent", model: "acme/gpt-org" },
    { name: "Traced app", orchestrationMode: "sequential" },
  );

  const response = await fetch(`${server.base}/api/v1/apps/${appId}/conversation`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`,
    },
    body: JSON.stringify({ message: QUESTION }),
  });
  expect(response.status).toBe(200);
  await flushTraces();

  const traced = spans.filter((span) => span.traceId === TRACE_ID);
  const serverSpan = traced.find((span) => span.parentSpanId === CALLER_SPAN);
  expect(serverSpan).toMatchObject({ name: "POST /api/v1/apps/{appId}/conversation", kind: 2 });
  const names = traced.map((span) => span.name);
  expect(names.filter((name) => name.startsWith("pg ")).length).toBeGreaterThan(2);
  expect(names).toContain("pg SELECT");
  expect(names.some((name) => name.startsWith("ai.streamText"))).toBe(true);
  // The provider got the trace context on its request.
  expect(fake.requests.at(-1)?.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
  // No span carries the end user's words.
  expect(JSON.stringify(traced)).not.toContain(QUESTION);
});

it("starts a new trace for a request without traceparent", async () => {
  const tenant = await newOrganization();
  spans.length = 0;
  const response = await fetch(`${server.base}/api/v1/knowledgebases`, {
    headers: { authorization: `Bearer ${tenant.orgKey.secret}` },
  });
  expect(response.status).toBe(200);
  await flushTraces();
  const serverSpan = spans.find((span) => span.name === "GET /api/v1/knowledgebases");
  expect(serverSpan?.parentSpanId ?? "").toBe("");
  expect(spans.some((span) => span.traceId === serverSpan?.traceId && span.name.startsWith("pg "))).toBe(true);
});
