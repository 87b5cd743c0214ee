// Next.js calls register() once per server process: start this process's indexing worker
// (Node.js runtime only). Jobs live in PostgreSQL, so any number of processes share the work.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const [{ getDb }, { startIndexWorker }] = await Promise.all([import("@/server/db"), import("@/server/jobs/indexing")]);
  try {
    startIndexWorker(getDb());
  } catch (error) {
    console.error("The indexing worker did not start:", error);
  }
}
