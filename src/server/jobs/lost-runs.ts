// The sweeper of lost runs, in every server process: a round every quarter of RUN_LOST_AFTER_MS
// settles the runs whose lease no process renews (src/server/runtime/run-leases.ts). Each lost
// run is settled once, whichever process takes its lease first (FOR UPDATE SKIP LOCKED).
import type { Db } from "@/server/db";
import { sweepIntervalMs, sweepLostRuns } from "@/server/runtime/run-leases";
import { startPollingWorker, type PollingWorker } from "./polling-worker";

export function startLostRunSweeper(db: Db): PollingWorker {
  return startPollingWorker({ name: "Lost runs sweeper", pollMs: sweepIntervalMs(), maxBackoffMs: 60_000 }, () =>
    sweepLostRuns(db),
  );
}
