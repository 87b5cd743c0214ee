// Every API route handler is wrapped here: one JSON log line per request (request id, method,
// route, status, latency) and the request metrics. Streams count to their response headers.
import { errorResponse, requestIdFor } from "@/server/adapters/envelope";
import { toAppError } from "@/server/errors";
import { trace } from "@opentelemetry/api";
import { logger } from "./log";
import { metrics } from "./metrics";
import { routeLabelOf } from "./route-label";

export function observed<Args extends unknown[]>(
  route: string,
  handler: (request: Request, ...args: Args) => Promise<Response> | Response,
): (request: Request, ...args: Args) => Promise<Response> {
  return async (request, ...args) => {
    const started = performance.now();
    let response: Response;
    try {
      response = await handler(request, ...args);
    } catch (error) {
      response = errorResponse(toAppError(error), requestIdFor(request));
    }
    const seconds = (performance.now() - started) / 1000;
    let requestId = response.headers.get("x-request-id");
    if (!requestId) {
      requestId = requestIdFor(request);
      try {
        response.headers.set("X-Request-Id", requestId);
      } catch {
        // Immutable headers (a proxied response): the log line still carries the id.
      }
    }
    const label = routeLabelOf(request) ?? route;
    const span = trace.getActiveSpan();
    span?.updateName(`${request.method} ${label}`);
    span?.setAttribute("http.route", label);
    const status = String(response.status);
    const registry = metrics();
    registry.requests.inc({ method: request.method, route: label, status });
    registry.duration.observe({ method: request.method, route: label }, seconds);
    if (response.status === 429) registry.rateLimitRefusals.inc({ route: label });
    logger().info(
      {
        requestId,
        method: request.method,
        route: label,
        status: response.status,
        latencyMs: Math.round(seconds * 10_000) / 10,
      },
      "request",
    );
    return response;
  };
}
