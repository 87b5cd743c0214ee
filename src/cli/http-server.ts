// The production HTTP server: a node:http server of our own that answers the API's paths (REST,
// MCP, the chat streams, console and portal tRPC, health, metrics) straight from their handlers
// (src/server/http/direct-routes.ts) and hands everything else to Next.js (loaded on first use).
// Next.js's own server (`next start`) passes a client-sent X-Forwarded-For on as it came, so with
// no proxy in front anyone could choose the address that sign-in throttling counts. Here, with
// no trusted proxy (`trustProxy: 0`), the header is the socket's address and nothing else;
// behind trusted proxies it is left as they wrote it (src/server/auth/client-address.ts reads it).
// Compiled to dist/server by scripts/build-server.mjs; src/cli/start.ts imports it once the
// database is ready and serves from its own process.
import http from "node:http";
import type { Socket } from "node:net";
import type createNextServer from "next";
import { closeDb, getDb } from "@/server/db";
import { createRequestListener, guardServer } from "@/server/http/listener";
import { env } from "@/env";
import { endOpenStreams } from "@/server/adapters/sse";
import { startEvalWorker } from "@/server/jobs/evaluations";
import { startIndexWorker, type IndexWorker } from "@/server/jobs/indexing";
import { startLostRunSweeper } from "@/server/jobs/lost-runs";
import { startApprovalWorker } from "@/server/jobs/approvals";
import { startNotificationEmailWorker } from "@/server/jobs/notification-emails";
import { startWebhookWorker } from "@/server/jobs/webhook-delivery";
import { logger } from "@/server/observability/log";
import { startTracing, stopTracing } from "@/server/observability/tracing";
import { settleOwnRuns, SERVER_SHUTDOWN } from "@/server/runtime/run-leases";
import { sealWebhookSecrets } from "@/server/services/org/secrets";

/** How long the streams of runs settled at shutdown get to send their final event. */
const FINAL_EVENTS_MS = 1_000;
/** How long the database connections then get to close before the database is stopped anyway. */
const DATABASE_CLOSE_MS = 5_000;

/**
 * This process's indexing worker, from the modules above, started before Next.js's
 * instrumentation hook (src/instrumentation.ts) runs and finds it on globalThis.
 */
function startWorker(): IndexWorker | null {
  try {
    const worker = startIndexWorker(getDb());
    const webhooks = startWebhookWorker(getDb());
    const emails = startNotificationEmailWorker(getDb());
    const lostRuns = startLostRunSweeper(getDb());
    const approvals = startApprovalWorker(getDb());
    const evaluations = startEvalWorker(getDb());
    sealWebhookSecrets(getDb()).catch((error: unknown) =>
      logger().error({ err: error }, "Could not seal the webhook secrets stored readable"),
    );
    (globalThis as { atriumIndexWorker?: IndexWorker }).atriumIndexWorker = worker;
    return {
      stop: () =>
        Promise.all([
          worker.stop(),
          webhooks.stop(),
          emails.stop(),
          lostRuns.stop(),
          approvals.stop(),
          evaluations.stop(),
        ]).then(() => undefined),
      release: () => {
        // Not waited for: a delivery in hand is claimed again by another process once its lease ends.
        void webhooks.stop();
        void emails.stop();
        void lostRuns.stop();
        void approvals.stop();
        // A case in hand is claimed again by another process once its lease ends.
        void evaluations.stop();
        return worker.release();
      },
    };
  } catch (error) {
    logger().error({ err: error }, "The indexing worker did not start");
    return null;
  }
}

type NextHandler = ReturnType<ReturnType<typeof createNextServer>["getRequestHandler"]>;

/**
 * Next.js, loaded and prepared on the first request it answers (a page, an asset): it holds
 * about 40 MB that a server answering only the API never needs. That first request waits for it
 * (about a second); a failed preparation is logged and answered 500 by the listener's last
 * resort (src/server/http/listener.ts), and tried again on the next one.
 */
function nextFallback(port: number) {
  let nextHandler: Promise<NextHandler> | undefined;
  const load = () =>
    (nextHandler ??= (async () => {
      const { default: next } = await import("next");
      const app = next({ dev: false, dir: process.cwd(), port });
      await app.prepare();
      return app.getRequestHandler();
    })().catch((error: unknown) => {
      nextHandler = undefined;
      throw error;
    }));
  return async (message: http.IncomingMessage, response: http.ServerResponse): Promise<void> => {
    const handle = await load();
    await handle(message, response);
  };
}

/** A listen failure as one line a person can act on. */
function listenFailure(error: NodeJS.ErrnoException, port: number): Error {
  if (error.code === "EADDRINUSE")
    return new Error(`port ${port} is already in use; stop what listens on it or set PORT to another port.`);
  if (error.code === "EACCES")
    return new Error(`this user may not listen on port ${port}; set PORT to a port above 1023.`);
  return error;
}

/** Waits for `work` to settle, for `ms` at most; whether it settled in time. */
async function atMost(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    Promise.allSettled([work]).then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  return settled;
}

/**
 * A failure no request's handler caught (a rejected promise nobody awaited, an exception thrown
 * from a callback) is logged and the process keeps serving: ending it would drop every tenant's
 * requests in flight for the sake of one. Each request's own failures are answered 500 by the
 * listener; these are what remains.
 */
function keepServingOnStrayFailures(): void {
  process.on("unhandledRejection", (reason) =>
    logger().error({ err: reason }, "A promise failed and nothing handled it; the server keeps serving"),
  );
  process.on("uncaughtException", (error) =>
    logger().error({ err: error }, "An exception reached the top of the event loop; the server keeps serving"),
  );
}

/**
 * Past the grace: the runs this process runs end (their streams, here or elsewhere, read the
 * final `error` event stored for them), then every stream still open is ended with its own.
 */
async function endRunsInFlight(closed: Promise<unknown>): Promise<void> {
  const settled = await settleOwnRuns(getDb(), SERVER_SHUTDOWN).catch((error: unknown) => {
    logger().error({ err: error }, "The runs in flight could not be settled; the sweeper of another process will");
    return 0;
  });
  if (settled > 0) await atMost(closed, FINAL_EVENTS_MS);
  const streams = endOpenStreams();
  if (settled + streams > 0)
    logger().warn({ runsEnded: settled, streamsEnded: streams }, "Runs in flight ended and open streams told so");
  // The final events are written before the connections are cut.
  if (streams > 0) await atMost(closed, FINAL_EVENTS_MS);
}

export interface HttpServer {
  /**
   * Stops accepting connections, lets in-flight requests and streams finish (up to
   * SHUTDOWN_GRACE_MS), hands the indexing jobs in hand back to the queue at once (the attempt is
   * not counted, another process takes them over) and closes this process's database connections.
   * Past the grace, the runs this process still runs are settled (runtime/run-leases.ts: ended
   * `server_shutdown`, credit given back) and every stream still open gets a final `error` event.
   */
  stop(): Promise<void>;
}

/**
 * Connections the kernel holds for this process before it accepts them (capped by the kernel's
 * net.core.somaxconn). Node's default, 511, dropped connections when thousands of chat streams
 * opened within seconds: their clients' connects timed out or were reset.
 */
const LISTEN_BACKLOG = 4096;

/** Listens on `port`, then starts this process's indexing worker. */
export async function serve(options: { port: number; trustProxy: number }): Promise<HttpServer> {
  if (await startTracing()) logger().info("Tracing: spans are exported over OTLP");
  const listener = createRequestListener({ trustProxy: options.trustProxy, fallback: nextFallback(options.port) });
  let stopping = false;
  const server = http.createServer((message, response) => {
    // Once stopping, each answer closes its connection: a keep-alive client would otherwise go on
    // sending requests over it, served until the grace period ends, instead of moving elsewhere.
    if (stopping) response.setHeader("Connection", "close");
    return listener(message, response);
  });
  guardServer(server);
  const connections = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    connections.add(socket);
    socket.once("close", () => connections.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(listenFailure(error, options.port));
    server.once("error", failed);
    server.listen({ port: options.port, backlog: LISTEN_BACKLOG }, () => {
      server.off("error", failed);
      resolve();
    });
  });
  logger().info({ port: options.port }, "listening");
  keepServingOnStrayFailures();
  const worker = startWorker();
  return {
    async stop() {
      stopping = true;
      const open = connections.size;
      const graceMs = env().SHUTDOWN_GRACE_MS;
      logger().info(
        { openConnections: open },
        `Stopping: no new connections; requests in flight get up to ${graceMs / 1000} s`,
      );
      const released = worker?.release().then(
        (jobs) => logger().info({ jobsHandedBack: jobs }, `Indexing: ${jobs} job(s) in hand handed back to the queue`),
        (error: unknown) =>
          logger().error(
            { err: error },
            "Indexing: the jobs in hand could not be handed back; their lease will expire",
          ),
      );
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeIdleConnections();
      const drained = await atMost(closed, graceMs);
      if (!drained) await endRunsInFlight(closed);
      const cut = connections.size;
      server.closeAllConnections();
      if (drained)
        logger().info({ connectionsClosed: open }, "Connections closed: every request in flight was answered");
      else
        logger().warn(
          { connectionsClosed: open, cutAfterGrace: cut },
          `Connections closed: ${cut} still busy after ${graceMs / 1000} s were cut`,
        );
      await released;
      if (await atMost(closeDb(getDb()), DATABASE_CLOSE_MS)) logger().info("Database connections closed");
      else logger().warn(`Database connections not closed within ${DATABASE_CLOSE_MS / 1000} s; stopping anyway`);
      // The spans still buffered go out before the process ends.
      await atMost(stopTracing(), DATABASE_CLOSE_MS);
    },
  };
}
