// The request listener of our own server (src/cli/http-server.ts): the client address rule, then
// the refusals nothing behind it should see (a method Atrium does not serve, a path that does not
// decode, a method the route does not take: fetch's Request throws on some of these and Next.js
// answers the others outside the envelope), then the paths of the route table (direct-routes.ts)
// straight to their handlers, HEAD and OPTIONS answered for routes that take GET as Next.js
// answers them for a route file, and anything else to `fallback` (Next.js's request handler in
// production). The gate and the routing read the one table.
// Whatever one request's handling throws is answered 500 for that request and logged; the
// server goes on serving the others.
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { requestIdFrom } from "@/lib/request-id";
import { AppError } from "@/server/errors";
import { logger } from "@/server/observability/log";
import { contextFromHeaders, tracer, tracingEnabled } from "@/server/observability/tracing";
import { embedFrameOrigins } from "./api-routes";
import {
  allowedMethods,
  directRouteFor,
  embedFramePortal,
  EVERY_METHOD,
  methodsFor,
  SERVED_METHODS,
  type DirectRoute,
} from "./direct-routes";
import { API_SECURITY_HEADERS, sendFetchResponse, toFetchRequest } from "./node-bridge";

export interface ListenerOptions {
  /** Proxies in front that may set X-Forwarded-For; with none it is the socket's address. */
  trustProxy: number;
  fallback: (message: IncomingMessage, response: ServerResponse) => unknown;
}

/** The path of a request target, without its query. */
function pathOf(target: string): string {
  const query = target.indexOf("?");
  return query === -1 ? target : target.slice(0, query);
}

function requestIdOf(message: IncomingMessage): string {
  const sent = message.headers["x-request-id"];
  return requestIdFrom(typeof sent === "string" ? sent : null);
}

function methodNotAllowed(method: string | undefined, allowed: readonly string[]): AppError {
  const refused = method ? `Method ${method} is` : "This method is";
  return new AppError(
    "method_not_allowed",
    `${refused} not allowed here; use ${allowed.join(", ")}.`,
    {},
    { headers: { Allow: allowed.join(", ") } },
  );
}

/** Why this request is refused before any handler sees it, or undefined. */
function refusalOf(message: IncomingMessage): AppError | undefined {
  const method = message.method ?? "GET";
  if (!SERVED_METHODS.includes(method)) return methodNotAllowed(method, SERVED_METHODS);
  const target = message.url ?? "/";
  if (!target.startsWith("/"))
    return new AppError("invalid_request", "Invalid request: the request target must be a path.");
  const path = pathOf(target);
  try {
    decodeURIComponent(path);
  } catch {
    return new AppError("invalid_request", "Invalid request: the path is not valid percent-encoded UTF-8.");
  }
  const allowed = methodsFor(path);
  if (!allowed.includes(method)) return methodNotAllowed(method, allowed);
  return undefined;
}

/** The envelope, with the API's security headers and the request id, written straight to `response`. */
function sendError(
  error: AppError,
  message: IncomingMessage,
  response: ServerResponse,
  requestId = requestIdOf(message),
): void {
  const body = JSON.stringify({ error: error.toBody() });
  response.writeHead(error.status, {
    ...API_SECURITY_HEADERS,
    ...error.headers,
    "X-Request-Id": requestId,
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(body),
  });
  response.end(body);
}

async function handleDirectly(
  route: DirectRoute,
  params: string[],
  message: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const method = message.method ?? "GET";
  const takes = route.methods === EVERY_METHOD || route.methods.includes(method);
  if (!takes && method === "OPTIONS") {
    const allowed = allowedMethods(route.methods).join(", ");
    response.writeHead(204, { ...API_SECURITY_HEADERS, Allow: allowed, "X-Request-Id": requestIdOf(message) });
    response.end();
    return;
  }
  // A HEAD the route does not take itself is its GET without the body.
  const headAsGet = !takes && method === "HEAD";
  const request = toFetchRequest(message, response, headAsGet ? "GET" : method);
  if (!request) {
    sendError(
      new AppError("invalid_request", "Invalid request: the request target is not a usable URL."),
      message,
      response,
    );
    return;
  }
  let answer = await route.handler(request, params);
  if (headAsGet) {
    void answer.body?.cancel().catch(() => {});
    answer = new Response(null, { status: answer.status, headers: answer.headers });
  }
  try {
    await sendFetchResponse(answer, response);
  } catch (error) {
    // The handlers answer their own failures; this is a connection broken mid-response.
    logger().warn({ err: error, path: pathOf(message.url ?? "") }, "Response not completed");
    response.destroy();
  }
}

/** The `frame-ancestors` of a Content-Security-Policy value replaced by `sources`. */
export function withFrameAncestors(policy: string, sources: readonly string[]): string {
  return policy.replace(/frame-ancestors [^;]*/, `frame-ancestors ${sources.join(" ")}`);
}

/**
 * Lets the embed frame page be framed by the portal's allowed origins: whatever headers the page
 * is answered with (the middleware's policy says `frame-ancestors 'none'` and X-Frame-Options
 * DENY), its policy names those origins instead when the headers are written.
 */
function allowFramingBy(response: ServerResponse, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
  const rewrite = (headers: Record<string, unknown>) => {
    for (const name of Object.keys(headers)) {
      const lower = name.toLowerCase();
      if (lower === "x-frame-options") delete headers[name];
      else if (lower === "content-security-policy") headers[name] = withFrameAncestors(String(headers[name]), origins);
    }
  };
  response.writeHead = ((...args: unknown[]) => {
    const policy = response.getHeader("content-security-policy");
    if (policy !== undefined)
      response.setHeader("Content-Security-Policy", withFrameAncestors(String(policy), origins));
    response.removeHeader("X-Frame-Options");
    const headers = args.find(
      (arg, index) => index > 0 && typeof arg === "object" && arg !== null && !Array.isArray(arg),
    );
    if (headers) rewrite(headers as Record<string, unknown>);
    return writeHead(...args);
  }) as typeof response.writeHead;
}

async function route(options: ListenerOptions, message: IncomingMessage, response: ServerResponse): Promise<void> {
  const refusal = refusalOf(message);
  if (refusal) return sendError(refusal, message, response);
  const path = pathOf(message.url ?? "/");
  const found = directRouteFor(path);
  if (found) return handleDirectly(found.route, found.params, message, response);
  const embedded = embedFramePortal(path);
  if (embedded !== undefined) allowFramingBy(response, await embedFrameOrigins(embedded));
  await options.fallback(message, response);
}

/** The last resort: a request whose handling threw is answered 500 (or cut when its answer had begun). */
function failed(error: unknown, message: IncomingMessage, response: ServerResponse): void {
  const requestId = requestIdOf(message);
  logger().error(
    { err: error, requestId, method: message.method, path: pathOf(message.url ?? "") },
    "Request failed unexpectedly; answered 500",
  );
  if (response.headersSent) response.destroy();
  else
    sendError(
      new AppError("server_error", "Something went wrong on our side. It is safe to retry."),
      message,
      response,
      requestId,
    );
}

export function createRequestListener(options: ListenerOptions): RequestListener {
  return (message, response) => {
    // Next.js passes a client-sent X-Forwarded-For on as it came; with no trusted proxy anyone
    // could then choose the address that sign-in throttling counts.
    if (options.trustProxy === 0) message.headers["x-forwarded-for"] = message.socket.remoteAddress ?? "unknown";
    const serve = () => route(options, message, response).catch((error: unknown) => failed(error, message, response));
    if (tracingEnabled()) inServerSpan(message, response, serve);
    else void serve();
  };
}

/**
 * A server span around one request, continuing the caller's `traceparent`; it ends when the
 * answer is complete (a stream's too) or the connection closes. The API's routes name it by
 * their route (src/server/observability/observe.ts).
 */
function inServerSpan(message: IncomingMessage, response: ServerResponse, serve: () => Promise<void>): void {
  const method = message.method ?? "GET";
  const parent = contextFromHeaders(message.headers);
  const span = tracer().startSpan(
    method,
    { kind: SpanKind.SERVER, attributes: { "http.request.method": method, "url.path": pathOf(message.url ?? "/") } },
    parent,
  );
  response.once("close", () => {
    span.setAttribute("http.response.status_code", response.statusCode);
    if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  void context.with(trace.setSpan(parent, span), serve);
}

/** A complete HTTP/1.1 answer in the envelope, for a socket no ServerResponse is attached to. */
function rawAnswer(error: AppError, requestId: string): string {
  const body = JSON.stringify({ error: error.toBody() });
  const headers = {
    ...error.headers,
    "X-Request-Id": requestId,
    "Content-Type": "application/json",
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close",
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return [`HTTP/1.1 ${error.status} ${http.STATUS_CODES[error.status] ?? ""}`, ...lines, "", body].join("\r\n");
}

/** The X-Request-Id header of a request node:http could not parse, read from the bytes it kept. */
function sentRequestId(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): string | null {
  const lines = error.rawPacket?.toString("latin1").split("\r\n") ?? [];
  const line = lines.find((candidate) => candidate.toLowerCase().startsWith("x-request-id:"));
  return line === undefined ? null : line.slice("x-request-id:".length).trim();
}

/** How long an idle keep-alive connection stays open. */
export const KEEP_ALIVE_MS = 65_000;

/**
 * Answers in the envelope what node:http refuses before the listener: CONNECT (emitted apart
 * and otherwise met with a closed connection) and requests it cannot parse (a method unknown to
 * its parser, such as TRACK, a malformed request line or header).
 */
export function guardServer(server: http.Server): void {
  // An idle keep-alive connection stays open longer than the 60 s load balancers commonly keep
  // theirs, so a client never reuses one the server is just closing (Node's 5 s default made
  // such reuse a reset). Headers must still arrive within a bounded time after that.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  server.on("connect", (message: IncomingMessage, socket: Duplex) => {
    socket.on("error", () => socket.destroy());
    socket.end(rawAnswer(methodNotAllowed(message.method ?? "CONNECT", SERVED_METHODS), requestIdOf(message)));
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal =
      error.code === "HPE_INVALID_METHOD"
        ? methodNotAllowed(undefined, SERVED_METHODS)
        : error.code === "HPE_HEADER_OVERFLOW"
          ? new AppError("invalid_request", "Invalid request: the request headers are too large.", {}, { status: 431 })
          : new AppError("invalid_request", "Invalid request: the request could not be parsed as HTTP/1.1.");
    socket.end(rawAnswer(refusal, requestIdFrom(sentRequestId(error))));
  });
}
