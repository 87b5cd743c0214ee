// The REST door: `/api/v1/*` served by trpc-to-openapi over the same routers as the console.
// Around it, the parts of the pipeline it does not do: route matching with 404/405, the key
// checks in contract.md's order, the product's error envelope for every failure, and the
// X-Request-Id and RateLimit-* headers.
import { randomUUID } from "node:crypto";
import { createOpenApiFetchHandler, forEachOpenApiProcedure, getPathRegExp, normalizePath } from "trpc-to-openapi";
import type { KeyActor } from "@/server/auth/actor";
import { authenticateApiKey } from "@/server/auth/authenticate";
import { authorize } from "@/server/auth/authorize";
import { rateLimitHeaders, type RateLimitResult } from "@/server/auth/rate-limit";
import type { Db } from "@/server/db";
import { AppError, logIfUnexpected, toAppError } from "@/server/errors";
import { openApiDocument } from "@/server/openapi";
import type { Context, Meta } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/root";

export const API_PREFIX = "/api/v1";
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

interface Route {
  method: string;
  pattern: RegExp;
  meta: Meta;
}

function buildRoutes(): Route[] {
  const routes: Route[] = [];
  forEachOpenApiProcedure(appRouter._def.procedures, ({ meta }) => {
    const openapi = meta.openapi!;
    routes.push({ method: openapi.method, pattern: getPathRegExp(normalizePath(openapi.path)), meta: meta as Meta });
  });
  return routes;
}

export function requestIdFor(request: Request): string {
  const sent = request.headers.get("x-request-id");
  return sent && REQUEST_ID.test(sent) ? sent : randomUUID();
}

export function errorResponse(error: AppError, requestId: string, headers: Record<string, string> = {}): Response {
  logIfUnexpected(error);
  return Response.json(
    { error: error.toBody() },
    { status: error.status, headers: { ...headers, ...error.headers, "X-Request-Id": requestId } },
  );
}

/** Reads the body once so that an empty body reads as `{}` and a missing content type as JSON. */
async function normalizedRequest(request: Request): Promise<Request> {
  if (!BODY_METHODS.has(request.method)) return request;
  const contentType = request.headers.get("content-type");
  if (contentType && !contentType.toLowerCase().startsWith("application/json")) return request;
  const text = await request.text();
  const headers = new Headers(request.headers);
  headers.set("content-type", "application/json");
  return new Request(request.url, { method: request.method, headers, body: text.trim() === "" ? "{}" : text, signal: request.signal });
}

export interface RestHandlerOptions {
  /** Called per request so the database is opened lazily and tests can substitute it. */
  db: () => Db;
}

export function createRestHandler(options: RestHandlerOptions) {
  const routes = buildRoutes();

  function match(method: string, path: string): { route?: Route; allowed: string[] } {
    const candidates = routes.filter((route) => route.pattern.test(path));
    return { route: candidates.find((route) => route.method === method), allowed: [...new Set(candidates.map((r) => r.method))] };
  }

  return async function handleRest(request: Request): Promise<Response> {
    const requestId = requestIdFor(request);
    let limitHeaders: Record<string, string> = {};
    try {
      const url = new URL(request.url);
      const path = normalizePath(url.pathname.slice(API_PREFIX.length) || "/");
      if (path === "/openapi.json" && request.method === "GET") {
        return Response.json(openApiDocument(), { headers: { "X-Request-Id": requestId } });
      }
      const { route, allowed } = match(request.method, path);
      if (!route) {
        if (allowed.length === 0) throw new AppError("not_found", `No route ${request.method} ${API_PREFIX}${path}.`);
        throw new AppError("method_not_allowed", `${request.method} is not allowed on ${API_PREFIX}${path}; use ${allowed.join(", ")}.`, {}, {
          headers: { Allow: allowed.join(", ") },
        });
      }

      const db = options.db();
      const { actor, rateLimit } = await authenticateApiKey(db, request.headers.get("authorization"), route.meta.door ?? "api");
      limitHeaders = rateLimitHeaders(rateLimit);
      authorize(actor, route.meta.auth ?? {});
      return await callProcedure(db, actor, rateLimit, await normalizedRequest(request), requestId);
    } catch (error) {
      return errorResponse(toAppError(error), requestId, limitHeaders);
    }
  };
}

async function callProcedure(db: Db, actor: KeyActor, rateLimit: RateLimitResult, request: Request, requestId: string): Promise<Response> {
  const context: Context = { db, actor, requestId, response: { headers: new Headers() } };
  let failure: unknown;
  const response = await createOpenApiFetchHandler({
    endpoint: API_PREFIX,
    req: request,
    router: appRouter,
    createContext: () => context,
    onError: ({ error }) => {
      failure = error;
    },
    responseMeta: () => ({ status: context.response.status }),
  });

  const headers = new Headers(context.response.headers);
  for (const [name, value] of Object.entries(rateLimitHeaders(rateLimit))) headers.set(name, value);
  headers.set("X-Request-Id", requestId);
  if (failure !== undefined || response.status >= 400) {
    const error = toAppError(failure ?? new Error(`Unexpected status ${response.status} from the OpenAPI handler`));
    return errorResponse(error, requestId, Object.fromEntries(headers));
  }
  if (response.status === 204) return new Response(null, { status: 204, headers });
  headers.set("Content-Type", "application/json");
  return new Response(response.body, { status: response.status, headers });
}
