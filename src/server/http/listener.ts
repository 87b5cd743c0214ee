// The request listener of our own server (src/cli/http-server.ts): the client address rule, then
// the API's paths straight to their handlers (direct-routes.ts) and anything else to `fallback`
// (Next.js's request handler in production).
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { logger } from "@/server/observability/log";
import { directHandlerFor, type DirectHandler } from "./direct-routes";
import { sendFetchResponse, toFetchRequest } from "./node-bridge";

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

async function handleDirectly(handler: DirectHandler, message: IncomingMessage, response: ServerResponse): Promise<void> {
  const request = toFetchRequest(message, response);
  if (!request) {
    response.writeHead(400).end();
    return;
  }
  try {
    await sendFetchResponse(await handler(request), response);
  } catch (error) {
    // The handlers answer their own failures; this is a connection broken mid-response.
    logger().warn({ err: error, path: pathOf(message.url ?? "") }, "Response not completed");
    response.destroy();
  }
}

export function createRequestListener(options: ListenerOptions): RequestListener {
  return (message, response) => {
    // Next.js passes a client-sent X-Forwarded-For on as it came; with no trusted proxy anyone
    // could then choose the address that sign-in throttling counts.
    if (options.trustProxy === 0) message.headers["x-forwarded-for"] = message.socket.remoteAddress ?? "unknown";
    const handler = directHandlerFor(pathOf(message.url ?? "/"), message.method ?? "GET");
    if (handler) void handleDirectly(handler, message, response);
    else void options.fallback(message, response);
  };
}
