// GET /api/metrics: this process's Prometheus metrics, for a scraper holding METRICS_TOKEN.
// Without a configured token the endpoint does not exist (404), so nothing leaks by default.
import { createHash, timingSafeEqual } from "node:crypto";
import { env } from "@/env";
import type { Db } from "@/server/db";
import { AppError, toAppError } from "@/server/errors";
import { metrics } from "@/server/observability/metrics";
import { errorResponse, requestIdFor } from "./envelope";

const digest = (value: string) => createHash("sha256").update(value).digest();

export function createMetricsHandler(options: { db: () => Db }) {
  return async function handleMetrics(request: Request): Promise<Response> {
    const requestId = requestIdFor(request);
    try {
      const token = env().METRICS_TOKEN;
      if (!token) throw new AppError("not_found", "No route GET /api/metrics: set METRICS_TOKEN to serve metrics.");
      const sent = /^Bearer (.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
      if (!timingSafeEqual(digest(sent), digest(token))) {
        throw new AppError(
          "unauthorized",
          "Send the metrics token as Authorization: Bearer <METRICS_TOKEN>.",
          {},
          { headers: { "WWW-Authenticate": "Bearer" } },
        );
      }
      const registry = metrics();
      registry.watchJobs(options.db);
      return new Response(await registry.registry.metrics(), {
        headers: {
          "Content-Type": registry.registry.contentType,
          "Cache-Control": "no-store",
          "X-Request-Id": requestId,
        },
      });
    } catch (error) {
      return errorResponse(toAppError(error), requestId);
    }
  };
}
