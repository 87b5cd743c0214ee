// The production HTTP server: a node:http server of our own that answers the API's paths (REST,
// MCP, the chat streams, console and portal tRPC, health, metrics) straight from their handlers
// (src/server/http/direct-routes.ts) and hands everything else to Next.js (loaded on first use).
// Next.js's own server (`next start`) passes a client-sent X-Forwarded-For on as it came, so with
// no proxy in front anyone could choose the address that sign-in throttling counts. Here, with
// no trusted proxy (`--trust-proxy 0`), the header is the socket's address and nothing else;
// behind trusted proxies it is left as they wrote it (src/server/auth/client-address.ts reads it).
// Compiled to dist/server by scripts/build-server.mjs and started by src/cli/start.ts.
import http from "node:http";
import { parseArgs } from "node:util";
import type createNextServer from "next";
import { getDb } from "@/server/db";
import { createRequestListener } from "@/server/http/listener";
import { startIndexWorker, type IndexWorker } from "@/server/jobs/indexing";
import { logger } from "@/server/observability/log";

const { values } = parseArgs({ options: { port: { type: "string" }, "trust-proxy": { type: "string", default: "0" } } });
const port = Number(values.port);
const trustProxy = Number(values["trust-proxy"]);
/** How long in-flight requests and streams get to finish once a stop is asked for. */
const SHUTDOWN_GRACE_MS = 15_000;

/**
 * This process's indexing worker, from the modules above, started before Next.js's
 * instrumentation hook (src/instrumentation.ts) runs and finds it on globalThis.
 */
function startWorker(): IndexWorker | null {
  try {
    const worker = startIndexWorker(getDb());
    (globalThis as { atriumIndexWorker?: IndexWorker }).atriumIndexWorker = worker;
    return worker;
  } catch (error) {
    logger().error({ err: error }, "The indexing worker did not start");
    return null;
  }
}
const worker = startWorker();

type NextHandler = ReturnType<ReturnType<typeof createNextServer>["getRequestHandler"]>;
let nextHandler: Promise<NextHandler> | undefined;

/**
 * Next.js, loaded and prepared on the first request it answers (a page, an asset): it holds
 * about 40 MB that a server answering only the API never needs. That first request waits for it
 * (about a second); a failed preparation is logged, answered 500 and tried again on the next one.
 */
function nextRequestHandler(): Promise<NextHandler> {
  nextHandler ??= (async () => {
    const { default: next } = await import("next");
    const app = next({ dev: false, dir: process.cwd(), port });
    await app.prepare();
    return app.getRequestHandler();
  })().catch((error: unknown) => {
    nextHandler = undefined;
    throw error;
  });
  return nextHandler;
}

async function answerWithNext(message: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  try {
    const handle = await nextRequestHandler();
    await handle(message, response);
  } catch (error) {
    logger().error({ err: error }, "Next.js could not answer");
    if (!response.headersSent) response.writeHead(500).end();
    else response.destroy();
  }
}

const server = http.createServer(createRequestListener({ trustProxy, fallback: answerWithNext }));
server.listen(port, () => logger().info({ port }, "listening"));

function stop() {
  // The indexing jobs in hand go back to the queue at once, for another process to take over.
  const released = Promise.allSettled([worker?.release()]);
  server.close(() => void released.then(() => process.exit(0)));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS).unref();
}
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
