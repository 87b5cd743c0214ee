// Prometheus metrics (prom-client) for this server process, served by GET /api/metrics.
// Kept on globalThis: every route bundle of Next.js shares one registry.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Db } from "@/server/db";

function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "atrium_process_" });
  let jobsDb: (() => Db) | undefined;
  // Both job gauges are read in one scrape (collected concurrently): they share one query.
  let inFlight: Promise<{ queued: number; age: number } | null> | undefined;
  function queueState() {
    if (!jobsDb) return Promise.resolve(null);
    inFlight ??= jobsDb()
      .pool.query<{ queued: number; age: number }>(
        "select count(*)::int as queued, coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as age from index_jobs where status = 'queued'",
      )
      .then(({ rows }) => rows[0]!)
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  }
  const jobsQueued = new Gauge({
    name: "atrium_jobs_queued",
    help: "Indexing jobs waiting to run (status queued).",
    registers: [registry],
    async collect() {
      const state = await queueState();
      if (state) this.set(state.queued);
    },
  });
  const jobsOldestAge = new Gauge({
    name: "atrium_jobs_oldest_queued_age_seconds",
    help: "Age of the oldest queued indexing job; 0 when none waits.",
    registers: [registry],
    async collect() {
      const state = await queueState();
      if (state) this.set(state.age);
    },
  });
  // Not among prom-client's defaults: Buffers and ArrayBuffers live outside the JS heap, and a
  // soak (npm run bench -- --soak) tells their growth from the allocator's.
  new Gauge({
    name: "atrium_process_nodejs_array_buffers_bytes",
    help: "Memory of ArrayBuffers and Buffers (process.memoryUsage().arrayBuffers).",
    registers: [registry],
    collect() {
      this.set(process.memoryUsage().arrayBuffers);
    },
  });
  return {
    registry,
    watchJobs(db: () => Db) {
      jobsDb = db;
    },
    requests: new Counter({
      name: "atrium_http_requests_total",
      help: "HTTP requests answered, by method, route and status.",
      labelNames: ["method", "route", "status"] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: "atrium_http_request_duration_seconds",
      help: "Time to the response headers, by method and route.",
      labelNames: ["method", "route"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    rateLimitRefusals: new Counter({
      name: "atrium_rate_limit_refusals_total",
      help: "Requests refused with 429 rate_limited, by route.",
      labelNames: ["route"] as const,
      registers: [registry],
    }),
    creditsSpent: new Counter({
      name: "atrium_credits_spent_total",
      help: "Credits charged to organizations.",
      registers: [registry],
    }),
    creditsRefunded: new Counter({
      name: "atrium_credits_refunded_total",
      help: "Credits given back (runs that did not happen).",
      registers: [registry],
    }),
    jobsQueued,
    jobsOldestAge,
  };
}

const globalForMetrics = globalThis as unknown as { atriumMetrics?: ReturnType<typeof createMetrics> };

export function metrics(): ReturnType<typeof createMetrics> {
  return (globalForMetrics.atriumMetrics ??= createMetrics());
}
