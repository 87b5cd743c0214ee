/** The event src/cli/http-server.ts emits on shutdown; its listeners' promises are awaited. */
const SHUTDOWN_EVENT = "atrium:shutdown";

// Next.js calls register() once per server process: start this process's indexing worker
// (Node.js runtime only). Jobs live in PostgreSQL, so any number of processes share the work.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const [{ getDb }, { startIndexWorker }, { logger }] = await Promise.all([import("@/server/db"), import("@/server/jobs/indexing"), import("@/server/observability/log")]);
  try {
    const worker = startIndexWorker(getDb());
    // The production server (src/cli/http-server.ts) runs these hooks on SIGTERM before it exits.
    process.on(SHUTDOWN_EVENT, () => worker.release());
  } catch (error) {
    logger().error({ err: error }, "The indexing worker did not start");
  }
}
