// Next.js calls register() once per server process: start this process's indexing worker
// (Node.js runtime only). Jobs live in PostgreSQL, so any number of processes share the work.
// Our production server (src/cli/http-server.ts) starts the worker from its own modules before
// Next.js calls this, and says so on globalThis (its bundle and Next.js's share nothing else):
// starting it here too would load a second copy of the database client and the jobs.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  if ((globalThis as { atriumIndexWorker?: unknown }).atriumIndexWorker) return;
  const [{ getDb }, { startIndexWorker }, { logger }] = await Promise.all([import("@/server/db"), import("@/server/jobs/indexing"), import("@/server/observability/log")]);
  try {
    startIndexWorker(getDb());
  } catch (error) {
    logger().error({ err: error }, "The indexing worker did not start");
  }
}
