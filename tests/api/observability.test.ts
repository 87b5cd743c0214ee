// Issue 13 point 6: a JSON log line per request (request id, route, status, latency) and a
// Prometheus endpoint behind METRICS_TOKEN with request, job, rate-limit and credit metrics.
import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { GET as getMetrics } from "@/app/api/metrics/route";
import * as v1 from "@/app/api/v1/[[...path]]/route";
import { api, type Handler } from "../helpers";
import { drain, tenantWithKnowledgebase } from "../knowledge-helpers";

const TOKEN = "metrics-token-for-tests-0123456789";
process.env.METRICS_TOKEN = TOKEN;
process.env.RATE_LIMIT_PER_MINUTE = "3";

// The process logger, writing to memory instead of stdout.
const lines: Record<string, unknown>[] = [];
(globalThis as { atriumLogger?: pino.Logger }).atriumLogger = pino(
  { base: { service: "atrium" } },
  new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  }),
);

const door: Handler = (request) => (v1 as unknown as Record<string, Handler>)[request.method]!(request);

async function scrape(authorization?: string): Promise<Response> {
  return getMetrics(new Request("http://localhost/api/metrics", { headers: authorization ? { authorization } : {} }));
}

function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text
    .split("\n")
    .find(
      (l) =>
        l.startsWith(name) && (l[name.length] === " " || l[name.length] === "{") && wanted.every((w) => l.includes(w)),
    );
  return line ? Number(line.split(" ").at(-1)) : 0;
}

describe("request log", () => {
  it("writes one JSON line per request with the request id, route template, status and latency", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const response = await api("GET", `/knowledgebases/${kbId}`, {
      key: tenant.orgKey.secret,
      handler: door,
      headers: { "x-request-id": "log-line-1" },
    });
    expect(response.status).toBe(200);
    const line = lines.find((l) => l.requestId === "log-line-1");
    expect(line).toMatchObject({
      service: "atrium",
      msg: "request",
      method: "GET",
      route: "/api/v1/knowledgebases/{knowledgebaseId}",
      status: 200,
    });
    expect(typeof line!.latencyMs).toBe("number");
  });
});

describe("GET /api/metrics", () => {
  it("refuses a missing or wrong token with 401 unauthorized", async () => {
    for (const response of [await scrape(), await scrape("Bearer wrong-token-wrong-token"), await scrape(TOKEN)]) {
      expect(response.status).toBe(401);
      expect((await response.json()).error.code).toBe("unauthorized");
    }
  });

  it("counts requests per route, rate-limit refusals, credits spent and the job queue", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const before = await (await scrape(`Bearer ${TOKEN}`)).text();

    await api("POST", `/knowledgebases/${kbId}/sources`, {
      key,
      handler: door,
      body: { name: "Notes", contentMarkdown: "Lava flows from a volcano vent." },
    });
    // Not drained yet: one job waits in the queue.
    const queued = await scrape(`Bearer ${TOKEN}`);
    expect(queued.status).toBe(200);
    expect(queued.headers.get("content-type")).toContain("text/plain");
    const queuedText = await queued.text();
    expect(sample(queuedText, "atrium_jobs_queued")).toBeGreaterThanOrEqual(1);
    expect(sample(queuedText, "atrium_jobs_oldest_queued_age_seconds")).toBeGreaterThan(0);

    await drain();
    const search = await api("POST", `/knowledgebases/${kbId}/search`, {
      key,
      handler: door,
      body: { query: "volcano", kinds: ["sources"] },
    });
    expect(search.status).toBe(200);
    // The limit is 3 per minute: the third call after two is refused.
    const refused = await api("GET", `/knowledgebases/${kbId}`, { key, handler: door });
    expect(refused.status).toBe(429);

    const after = await (await scrape(`Bearer ${TOKEN}`)).text();
    const route = "/api/v1/knowledgebases/{knowledgebaseId}/search";
    expect(
      sample(after, "atrium_http_requests_total", { method: "POST", route, status: "200" }) -
        sample(before, "atrium_http_requests_total", { method: "POST", route, status: "200" }),
    ).toBe(1);
    expect(
      sample(after, "atrium_http_request_duration_seconds_count", { method: "POST", route }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(after, "atrium_rate_limit_refusals_total", { route: "/api/v1/knowledgebases/{knowledgebaseId}" }) -
        sample(before, "atrium_rate_limit_refusals_total", { route: "/api/v1/knowledgebases/{knowledgebaseId}" }),
    ).toBe(1);
    expect(sample(after, "atrium_credits_spent_total") - sample(before, "atrium_credits_spent_total")).toBe(1);
  });
});
