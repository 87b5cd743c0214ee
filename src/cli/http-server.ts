// The production HTTP server: a node:http server of our own that answers the API's paths (REST,
// MCP, the chat streams, console and portal tRPC, health, metrics) straight from their handlers
// (src/server/http/direct-routes.ts) and hands everything else to Next.js's request handler.
// Next.js's own server (`next start`) passes a client-sent X-Forwarded-For on as it came, so with
// no proxy in front anyone could choose the address that sign-in throttling counts. Here, with
// no trusted proxy (`--trust-proxy 0`), the header is the socket's address and nothing else;
// behind trusted proxies it is left as they wrote it (src/server/auth/client-address.ts reads it).
// Compiled to dist/server by scripts/build-server.mjs and started by src/cli/start.ts.
import http from "node:http";
import { parseArgs } from "node:util";
import next from "next";
import { createRequestListener } from "@/server/http/listener";
import { logger } from "@/server/observability/log";

const { values } = parseArgs({ options: { port: { type: "string" }, "trust-proxy": { type: "string", default: "0" } } });
const port = Number(values.port);
const trustProxy = Number(values["trust-proxy"]);
/** How long in-flight requests and streams get to finish once a stop is asked for. */
const SHUTDOWN_GRACE_MS = 15_000;

const app = next({ dev: false, dir: process.cwd(), port });
await app.prepare();

const server = http.createServer(createRequestListener({ trustProxy, fallback: app.getRequestHandler() }));
server.listen(port, () => logger().info({ port }, "listening"));

/** Listeners in the server's modules (src/instrumentation.ts: indexing jobs handed back) run before exit. */
const SHUTDOWN_EVENT = "atrium:shutdown";

function stop() {
  const hooks = Promise.allSettled(process.listeners(SHUTDOWN_EVENT as NodeJS.Signals).map((listener) => (listener as () => unknown)()));
  server.close(() => void hooks.then(() => process.exit(0)));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS).unref();
}
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
