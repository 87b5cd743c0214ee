// The REST door: `/api/v1/*` served by trpc-to-openapi over the same routers as the console.
// Around it, the parts of the pipeline it does not do: route matching with 404/405, the key
// checks before the input is read, the product's error envelope for every failure, and the
// X-Request-Id and RateLimit-* headers.
import { createOpenApiNodeHttpHandler, forEachOpenApiProcedure, getPathRegExp, normalizePath } from "trpc-to-openapi";
import { env } from "@/env";
import { requestOrigin, type KeyActor } from "@/server/auth/actor";
import { authenticateApiKey } from "@/server/auth/authenticate";
import { authorize } from "@/server/auth/authorize";
import { rateLimitHeaders, type RateLimitResult } from "@/server/auth/rate-limit";
import type { Db } from "@/server/db";
import { assertStorableText } from "@/server/bounds";
import { AppError, invalidRequest, toAppError } from "@/server/errors";
import { openApiDocument } from "@/server/openapi";
import { labelRoute } from "@/server/observability/route-label";
import {
  AwaitingApprovalOutput,
  ConversationInput,
  ConversationOutput,
  ConversationRunInput,
} from "@/schemas/runs/runtime";
import type { UploadedFile } from "@/server/services/runs/attachments";
import { isAwaiting } from "@/server/services/runs/approval-pause";
import { converse } from "@/server/services/runs/conversations";
import type { Context, Meta } from "@/server/trpc/init";
import { findRun } from "@/server/services/runs/conversation-runs";
import {
  checkIdempotencyKey,
  claimIdempotencyKey,
  finishIdempotencyKey,
  hashRequest,
  releaseIdempotencyKey,
  releaseStreamKey,
  type StoredResponse,
} from "@/server/services/support/idempotency";
import { errorResponse, requestIdFor } from "./envelope";
import { readJsonBody, refuseDeclaredOversize } from "./json-body";
import { textResponse } from "./text-response";
import { attachStream, conversationStream, lastEventIdFrom, resumeStream, streamHeaders } from "./sse";
import { downloadResponse, endUserExportResponse, fileDownloadResponse } from "./download";
import { isAllowedPreflight, preflightHeaders, withCors } from "./cors";
import { handleUpload, readTurnForm, type TurnForm } from "./upload";
import { keepDeclaredCoercion } from "./declared-coercion";
import { appRouter } from "@/server/trpc/root";

export const API_PREFIX = "/api/v1";
const OPENAPI_PATH = "/openapi.json";
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

interface Route {
  method: string;
  pattern: RegExp;
  meta: Meta;
}

/** Routes by their path's first segment (`/end-users/{id}` under `end-users`). */
type RouteTable = Map<string, Route[]>;

/** A path's first segment, as the route table files routes under: lower-cased, as routes match any case. */
function firstSegment(path: string): string {
  const end = path.indexOf("/", 1);
  return (end === -1 ? path.slice(1) : path.slice(1, end)).toLowerCase();
}

function buildRoutes(): RouteTable {
  const routes: RouteTable = new Map();
  forEachOpenApiProcedure(appRouter._def.procedures, ({ meta }) => {
    const openapi = meta.openapi!;
    const path = normalizePath(openapi.path);
    const route = { method: openapi.method, pattern: getPathRegExp(path), meta: meta as Meta };
    const key = firstSegment(path);
    // A parameter there would match paths filed under any segment.
    if (key.startsWith("{")) throw new Error(`The REST route ${path} must start with a fixed segment.`);
    routes.set(key, [...(routes.get(key) ?? []), route]);
  });
  return routes;
}

/**
 * The request body as the procedure's input: JSON within the bounds of json-body.ts, where an
 * empty body reads as `{}` and a missing content type as JSON. Undefined for methods without a body.
 * Every body is an object: `null`, `42`, `[]` or `"x"` once read as `{}` (the path's ids alone) and
 * wrote, or published a version.
 */
async function readRequestJson(request: Request): Promise<object | undefined> {
  if (!BODY_METHODS.has(request.method)) return undefined;
  const contentType = request.headers.get("content-type");
  if (contentType && !/^application\/json\b/i.test(contentType)) {
    throw new AppError("invalid_request", `Invalid request: send the body as application/json, not ${contentType}.`);
  }
  const body = await readJsonBody(request);
  if (body === undefined) return {};
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    const given = body === null ? "null" : Array.isArray(body) ? "an array" : `a ${typeof body}`;
    throw new AppError("invalid_request", `Invalid request: the body must be a JSON object, not ${given}.`);
  }
  return body;
}

export function isMultipart(request: Request): boolean {
  return /^multipart\/form-data\b/i.test(request.headers.get("content-type") ?? "");
}

export interface RestHandlerOptions {
  /** Called per request so the database is opened lazily and tests can substitute it. */
  db: () => Db;
  /** The keep-alive interval of conversation streams (default 15 s; tests shorten it). */
  streamHeartbeatMs?: number;
  /** Browser origins allowed to call the API (CORS); default CORS_ORIGINS. */
  corsOrigins?: readonly string[];
}

/** The route `method` takes at `path`, and every method the path takes (405's Allow, OPTIONS). */
function matchRoute(routes: RouteTable, method: string, path: string): { route?: Route; allowed: string[] } {
  // The document is a known path too: another method on it is 405 with Allow, not 404.
  if (path === OPENAPI_PATH) return { allowed: ["GET"] };
  // Only the routes filed under the path's first segment can match it (a regular expression
  // test each: testing all 200-odd cost a few µs a request).
  const candidates = (routes.get(firstSegment(path)) ?? []).filter((route) => route.pattern.test(path));
  return {
    route: candidates.find((route) => route.method === method),
    allowed: [...new Set(candidates.map((r) => r.method))],
  };
}

/** OPTIONS on a known path: the methods it takes, with CORS headers when it is an allowed preflight. */
function optionsResponse(request: Request, allowed: string[], requestId: string, corsOrigins: readonly string[]) {
  const methods = [...allowed, "OPTIONS"];
  const cors = isAllowedPreflight(request, corsOrigins) ? preflightHeaders(request, methods) : {};
  return new Response(null, {
    status: 204,
    headers: { Allow: methods.join(", "), "X-Request-Id": requestId, ...cors },
  });
}

/** No route for the request: 404 on an unknown path, 405 with Allow for a method the path does not take. */
function unrouted(request: Request, path: string, allowed: string[]): AppError {
  if (allowed.length === 0) return new AppError("not_found", `No route ${request.method} ${API_PREFIX}${path}.`);
  return new AppError(
    "method_not_allowed",
    `${request.method} is not allowed on ${API_PREFIX}${path}; use ${allowed.join(", ")}.`,
    {},
    {
      headers: { Allow: allowed.join(", ") },
    },
  );
}

/** A failed request's answer: the error envelope, or nothing to a client that hung up. */
function failure(request: Request, error: unknown, requestId: string, headers: Record<string, string>): Response {
  // A client that hung up mid-request gets no answer; its abort is not a server failure.
  if (request.signal.aborted) return new Response(null, { status: 499 });
  return withoutBodyForHead(request, errorResponse(toAppError(error), requestId, headers));
}

/** What an Idempotency-Key holds a request to: its method, path, body and files. */
function requestHash(request: Request, path: string, body: unknown, files: UploadedFile[]): string {
  return hashRequest([
    request.method,
    path,
    JSON.stringify(body),
    ...files.flatMap((f) => [f.name, Buffer.from(f.bytes)]),
  ]);
}

export function createRestHandler(options: RestHandlerOptions) {
  const routes = buildRoutes();

  // Read per request, as the configuration is read lazily everywhere (tests set it after import).
  const corsOrigins = () => options.corsOrigins ?? env().CORS_ORIGINS;

  return async function handleRest(request: Request): Promise<Response> {
    const response = await answer(request);
    return withCors(
      request,
      response,
      corsOrigins(),
      request.method === "GET" && new URL(request.url).pathname === `${API_PREFIX}${OPENAPI_PATH}`,
    );
  };

  async function answer(request: Request): Promise<Response> {
    const requestId = requestIdFor(request);
    try {
      const url = new URL(request.url);
      const path = normalizePath(url.pathname.slice(API_PREFIX.length) || "/");
      // HEAD is GET without the body; OPTIONS lists the methods a path takes.
      const method = request.method === "HEAD" ? "GET" : request.method;
      if (path === OPENAPI_PATH && method === "GET") {
        const document = Response.json(openApiDocument(), { headers: { "X-Request-Id": requestId } });
        return withoutBodyForHead(request, document);
      }
      const { route, allowed } = matchRoute(routes, method, path);
      if (request.method === "OPTIONS" && allowed.length > 0)
        return optionsResponse(request, allowed, requestId, corsOrigins());
      if (!route) throw unrouted(request, path, allowed);
      return await serveRoute(request, route, path, requestId, options);
    } catch (error) {
      return failure(request, error, requestId, {});
    }
  }
}

/** A routed request: the key and its limits, then the upload, download, stream or procedure it asks for. */
async function serveRoute(
  request: Request,
  route: Route,
  path: string,
  requestId: string,
  options: RestHandlerOptions,
): Promise<Response> {
  let limitHeaders: Record<string, string> = {};
  try {
    labelRoute(request, `${API_PREFIX}${route.meta.openapi!.path}`);
    // A body declared over its cap is refused before anything else (uploads check their own).
    if (!isMultipart(request)) refuseDeclaredOversize(request);
    const db = options.db();
    const { actor, rateLimit } = await authenticateApiKey(
      db,
      request.headers.get("authorization"),
      route.meta.door ?? "api",
      requestOrigin(request, requestId, "api"),
    );
    limitHeaders = rateLimitHeaders(rateLimit);
    authorize(actor, route.meta.auth ?? {});
    refuseInheritedQueryNames(request.url);
    // A conversation turn with its files is read here and runs as a JSON turn would, files and all.
    let turnForm: TurnForm | null = null;
    if (route.meta.multipart === "conversation" && isMultipart(request)) turnForm = await readTurnForm(request);
    else if (route.meta.multipart && isMultipart(request)) {
      return await handleUpload({ db, actor, rateLimit, request, path, requestId });
    }
    if (route.meta.download === "file") {
      const headers = new Headers({ ...limitHeaders, "X-Request-Id": requestId });
      return await fileDownloadResponse(db, actor, route.pattern.exec(path)?.groups, request, headers);
    }
    if (route.meta.download === "end_user_export") {
      const headers = new Headers({ ...limitHeaders, "X-Request-Id": requestId });
      return await endUserExportResponse(db, actor, route.pattern.exec(path)?.groups, request, headers);
    }
    if (route.meta.download) return await downloadResponse(db, actor, rateLimit, request, requestId);
    if (route.meta.events)
      return await eventsResponse(db, actor, rateLimit, route, path, request, requestId, options.streamHeartbeatMs);
    if (route.meta.jsonText)
      return withoutBodyForHead(request, await jsonTextResponse(db, actor, rateLimit, route, path, request, requestId));
    const idempotencyKey = request.method === "POST" ? request.headers.get("idempotency-key") : null;
    if (idempotencyKey !== null) checkIdempotencyKey(idempotencyKey);
    const body = turnForm ? turnForm.body : await readRequestJson(request);
    const files = turnForm?.files ?? [];
    const keyed =
      idempotencyKey === null ? null : { key: idempotencyKey, hash: requestHash(request, path, body, files) };
    if (route.meta.stream && (body as { stream?: unknown } | undefined)?.stream === true) {
      return await streamResponse(
        db,
        actor,
        rateLimit,
        conversationInput(route, path, body),
        request,
        requestId,
        keyed,
        options.streamHeartbeatMs,
        files,
      );
    }
    const run = () =>
      files.length > 0
        ? turnWithFiles(db, actor, rateLimit, route, path, body, files, requestId)
        : callProcedure(db, actor, rateLimit, request, body, path, requestId);
    if (keyed) return await once(db, actor.organizationId, keyed.key, keyed.hash, rateLimit, requestId, run);
    return withoutBodyForHead(request, await run());
  } catch (error) {
    return failure(request, error, requestId, limitHeaders);
  }
}

/** A HEAD request's answer: the GET's status and headers, without its body. */
function withoutBodyForHead(request: Request, response: Response): Response {
  return request.method === "HEAD"
    ? new Response(null, { status: response.status, headers: response.headers })
    : response;
}

/**
 * A POST with an Idempotency-Key, for every operation
 * in one place: the first request runs and its success is remembered for 24 hours per
 * organization, method and path; the same key and body replay it with `Idempotent-Replayed: true`.
 * A refusal or failure is not remembered, so the client may fix the request and retry the key.
 */
async function once(
  db: Db,
  organizationId: string,
  key: string,
  requestHash: string,
  rateLimit: RateLimitResult,
  requestId: string,
  run: () => Promise<Response>,
): Promise<Response> {
  const remembered = await claimIdempotencyKey(db, organizationId, key, requestHash);
  if (remembered) {
    const headers = new Headers(rateLimitHeaders(rateLimit));
    headers.set("X-Request-Id", requestId);
    headers.set("Idempotent-Replayed", "true");
    if (remembered.status === 204) return new Response(null, { status: 204, headers });
    headers.set("Content-Type", "application/json");
    return new Response(JSON.stringify(remembered.body), { status: remembered.status, headers });
  }
  let response: Response;
  try {
    response = await run();
  } catch (error) {
    await releaseIdempotencyKey(db, organizationId, key);
    throw error;
  }
  if (response.status >= 400) {
    await releaseIdempotencyKey(db, organizationId, key);
    return response;
  }
  const text = await response.text();
  await finishIdempotencyKey(db, organizationId, key, {
    status: response.status,
    body: text === "" ? null : JSON.parse(text),
  });
  return new Response(text === "" ? null : text, { status: response.status, headers: response.headers });
}

/** Per-request state for trpc-to-openapi's handler, which is built once: keyed by the request it is given. */
interface RequestState {
  context: Context;
  failure?: unknown;
}

const requestStates = new WeakMap<object, RequestState>();

forEachOpenApiProcedure(appRouter._def.procedures, ({ procedure }) => keepDeclaredCoercion(procedure));

// Built once: building it indexes every procedure's path (about 0.4 ms), too much per request.
// It is given a fetch Request, as the library's own fetch adapter (createOpenApiFetchHandler)
// gives it one; tests/api/rest-bridge.test.ts pins what this door relies on.
const openApiHandler = createOpenApiNodeHttpHandler({
  router: appRouter,
  createContext: ({ req }) => requestStates.get(req)!.context,
  onError: ({ error, req }) => {
    requestStates.get(req)!.failure = error;
  },
  responseMeta: ({ ctx }) => ({ status: (ctx as Context | undefined)?.response.status }),
});

const JSON_CONTENT = new Headers({ "content-type": "application/json" });
const NO_CONTENT = new Headers();

/**
 * The request trpc-to-openapi's handler is given: what it reads of a fetch Request (it checks
 * `instanceof Request`, then reads method, url, the content type, the signal, and takes a `body`
 * that is not a stream as the input already parsed), without building a second Request, its
 * AbortSignal and a JSON round trip of the body we have read. tests/api/rest-bridge.test.ts
 * pins the behaviour this relies on.
 */
function procedureRequestFor(method: string, target: string, body: unknown, signal: AbortSignal): Request {
  return Object.create(Request.prototype, {
    method: { value: method },
    url: { value: target },
    headers: { value: body === undefined ? NO_CONTENT : JSON_CONTENT },
    body: { value: body },
    signal: { value: signal },
  }) as Request;
}

interface HandlerResult {
  status: number;
  body: string | undefined;
}

/**
 * Runs the matched procedure through trpc-to-openapi (path parameters, query coercion, input
 * and output validation): it is given the request at the procedure's own path with the body
 * already read within bounds, and answers into a sink that keeps the status and the text.
 */
async function callProcedure(
  db: Db,
  actor: KeyActor,
  rateLimit: RateLimitResult,
  request: Request,
  body: unknown,
  path: string,
  requestId: string,
): Promise<Response> {
  const context: Context = {
    db,
    actor,
    requestId,
    requestHeaders: request.headers,
    response: { headers: new Headers() },
  };
  const query = request.url.indexOf("?");
  const procedureRequest = procedureRequestFor(
    request.method === "HEAD" ? "GET" : request.method,
    query === -1 ? path : `${path}${request.url.slice(query)}`,
    body,
    request.signal,
  );
  const state: RequestState = { context };
  requestStates.set(procedureRequest, state);
  const result = await new Promise<HandlerResult>((resolve) => {
    const sink = {
      statusCode: 200,
      setHeader: () => sink,
      end: (text?: string) => resolve({ status: sink.statusCode, body: text }),
    };
    void openApiHandler(procedureRequest as never, sink as never);
  });

  const responseHeaders = new Headers(context.response.headers);
  for (const [name, value] of Object.entries(rateLimitHeaders(rateLimit))) responseHeaders.set(name, value);
  responseHeaders.set("X-Request-Id", requestId);
  if (state.failure !== undefined || result.status >= 400) {
    return errorResponse(
      toAppError(state.failure ?? new Error(`Unexpected status ${result.status} from the OpenAPI handler`)),
      requestId,
      responseHeaders,
    );
  }
  if (result.status === 204) return new Response(null, { status: 204, headers: responseHeaders });
  const asText = context.response.asText;
  if (asText && result.body !== undefined) {
    responseHeaders.set("Content-Type", asText.contentType);
    return textResponse(asText.render(JSON.parse(result.body)), { status: result.status, headers: responseHeaders });
  }
  responseHeaders.set("Content-Type", "application/json");
  return result.body === undefined
    ? new Response(null, { status: result.status, headers: responseHeaders })
    : textResponse(result.body, { status: result.status, headers: responseHeaders });
}

/**
 * A query parameter named like a property every object inherits (`__proto__`, `constructor`,
 * `toString`) is an unknown field: trpc-to-openapi collects the query into a plain object, where
 * such a name reads the inherited value and the request failed as a 500.
 */
function refuseInheritedQueryNames(url: string): void {
  const names = [...new Set(new URL(url).searchParams.keys())].filter((name) => name in Object.prototype);
  if (names.length) throw invalidRequest(names.map((name) => ({ path: name, message: "Unknown field" })));
}

/** A query string as trpc-to-openapi gives it to a procedure: each parameter's value, a repeated one's as a list. */
function queryInput(url: string): Record<string, string | string[]> {
  const params = new URL(url).searchParams;
  return Object.fromEntries(
    [...new Set(params.keys())].map((name) => {
      const values = params.getAll(name);
      return [name, values.length === 1 ? values[0]! : values];
    }),
  );
}

/**
 * A GET whose service writes its output's JSON text (Meta.jsonText): the input taken as
 * trpc-to-openapi takes it (the query's parameters and the path's) and checked as the procedure
 * checks it (storable text, then the input schema), and the text sent without being parsed,
 * checked and written again. The test that holds the service's text to the output schema
 * stands in for the check of each answer (service-procedures.ts, `queryJson`).
 */
async function jsonTextResponse(
  db: Db,
  actor: KeyActor,
  rateLimit: RateLimitResult,
  route: Route,
  path: string,
  request: Request,
  requestId: string,
): Promise<Response> {
  const { input, service } = route.meta.jsonText!;
  const raw = { ...queryInput(request.url), ...route.pattern.exec(path)?.groups };
  assertStorableText(raw);
  const text = await service(db, actor, input.parse(raw) as never);
  const headers = new Headers(rateLimitHeaders(rateLimit));
  headers.set("X-Request-Id", requestId);
  headers.set("Content-Type", "application/json");
  return textResponse(text, { status: 200, headers });
}

/** The app conversation's input: the body with the path's ids, held to the text rule and checked as the procedure checks it. */
function conversationInput(route: Route, path: string, body: unknown) {
  assertStorableText(body);
  return ConversationInput.parse({ ...(body as object), ...route.pattern.exec(path)?.groups });
}

/**
 * `stream: true` on a streaming route (the app conversation): the same service, as SSE, through a
 * run that outlives the connection (services/runs/conversation-runs.ts). With an Idempotency-Key the
 * key names the run from the moment it starts: the same key and body attach to it, while it runs
 * or after it finished (from the start, or after `Last-Event-ID`), with `Idempotent-Replayed:
 * true`. A refusal, or a run that fails (not canceled), frees the key.
 */
async function streamResponse(
  db: Db,
  actor: KeyActor,
  rateLimit: RateLimitResult,
  input: ReturnType<typeof conversationInput>,
  request: Request,
  requestId: string,
  keyed: { key: string; hash: string } | null,
  heartbeatMs: number | undefined,
  files: UploadedFile[],
): Promise<Response> {
  const after = lastEventIdFrom(request);
  const headers = new Headers(rateLimitHeaders(rateLimit));
  headers.set("X-Request-Id", requestId);
  const organizationId = actor.organizationId;
  const { appId, message, conversation_id, endUserId, portalId, regenerate, version, fileIds } = input;
  if (keyed) {
    const remembered = await claimIdempotencyKey(db, organizationId, keyed.key, keyed.hash);
    if (remembered) {
      headers.set("Idempotent-Replayed", "true");
      return attachKeyedRun(db, actor, appId, remembered, after, headers, heartbeatMs);
    }
  }
  let executionId = "";
  const result = await conversationStream(
    db,
    actor,
    { appId, message, conversationId: conversation_id, endUserId, portalId, regenerate, version, fileIds, files },
    headers,
    {
      heartbeatMs,
      onStarted: keyed
        ? async (run) => {
            executionId = run.executionId;
            await finishIdempotencyKey(db, organizationId, keyed.key, {
              status: 200,
              body: { execution_id: run.executionId, conversation_id: run.conversationId },
            });
          }
        : undefined,
      onFailed: keyed ? () => releaseStreamKey(db, organizationId, keyed.key, executionId) : undefined,
    },
  );
  if (result instanceof Response) return result;
  if (keyed) await releaseIdempotencyKey(db, organizationId, keyed.key);
  return errorResponse(result, requestId, headers);
}

/** A multipart turn that carries files, not streamed: the conversation service itself, answered as the procedure would. */
async function turnWithFiles(
  db: Db,
  actor: KeyActor,
  rateLimit: RateLimitResult,
  route: Route,
  path: string,
  body: unknown,
  files: UploadedFile[],
  requestId: string,
): Promise<Response> {
  const { appId, message, conversation_id, endUserId, portalId, regenerate, version, fileIds } = conversationInput(
    route,
    path,
    body,
  );
  const result = await converse(db, actor, {
    appId,
    message,
    conversationId: conversation_id,
    endUserId,
    portalId,
    regenerate,
    version,
    fileIds,
    files,
  });
  const headers = new Headers(rateLimitHeaders(rateLimit));
  headers.set("X-Request-Id", requestId);
  if (isAwaiting(result)) return Response.json(AwaitingApprovalOutput.parse(result), { status: 202, headers });
  return Response.json(ConversationOutput.parse(result), { status: 200, headers });
}

/** The run an Idempotency-Key names; a key remembered before runs were kept replays its answer as one `done` event. */
async function attachKeyedRun(
  db: Db,
  actor: KeyActor,
  appId: string,
  remembered: StoredResponse,
  after: number,
  headers: Headers,
  heartbeatMs: number | undefined,
): Promise<Response> {
  const named = remembered.body as { execution_id?: string; reply?: string };
  try {
    const run = await findRun(db, actor, { appId, executionId: String(named.execution_id) });
    return await attachStream(db, run, after, headers, { heartbeatMs });
  } catch (error) {
    if (typeof named.reply !== "string") throw error;
    return new Response(`: replayed\n\nid: 1\nevent: done\ndata: ${JSON.stringify(named)}\n\n`, {
      status: 200,
      headers: streamHeaders(headers),
    });
  }
}

/** A conversation run's events (GET …/runs/{executionId}/events): the same key rules as the conversation POST. */
async function eventsResponse(
  db: Db,
  actor: KeyActor,
  rateLimit: RateLimitResult,
  route: Route,
  path: string,
  request: Request,
  requestId: string,
  heartbeatMs: number | undefined,
): Promise<Response> {
  const parsed = ConversationRunInput.safeParse({ ...route.pattern.exec(path)?.groups });
  if (!parsed.success) throw parsed.error;
  const after = lastEventIdFrom(request);
  const headers = new Headers(rateLimitHeaders(rateLimit));
  headers.set("X-Request-Id", requestId);
  return resumeStream(db, actor, parsed.data, after, headers, { heartbeatMs });
}
