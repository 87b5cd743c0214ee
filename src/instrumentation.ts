// Next.js calls register() once per server process: start this process's indexing worker
// (Node.js runtime only). Jobs live in PostgreSQL, so any number of processes share the work.
// Our production server (src/cli/http-server.ts) starts the worker from its own modules before
// Next.js calls this, and says so on globalThis (its bundle and Next.js's share nothing else):
// starting it here too would load a second copy of the database client and the jobs.
export async function register(): Promise<void> {
  // The test is written as a condition around the import, not an early return, so that the
  // bundler drops the import from the edge build, where `fs` and the database client do not exist.
  if (process.env.NEXT_RUNTIME === "nodejs") await (await import("./instrumentation-node")).startIndexWorkerOnce();
}
