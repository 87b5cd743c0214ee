// The loop a background worker runs in each server process: a round every pollMs (at once again
// when a round found work), backing off while rounds fail (the database away), and a stop that
// waits for the round in hand. The indexing worker keeps its own loop: it also holds leases.
import { logger } from "@/server/observability/log";
import { backoffDelay } from "./indexing";

export interface PollingWorker {
  stop(): Promise<void>;
}

export interface PollingOptions {
  /** Named in the log line of a failed round. */
  name: string;
  pollMs: number;
  maxBackoffMs: number;
}

/** Runs `round` until stopped; a round that answers `true` (it found work) is followed by another at once. */
export function startPollingWorker(options: PollingOptions, round: () => Promise<boolean>): PollingWorker {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    let failures = 0;
    while (!stopped) {
      let busy = false;
      try {
        busy = await round();
        failures = 0;
      } catch (error) {
        failures++;
        if (failures === 1) logger().error({ err: error }, `${options.name}: a round failed; retrying with backoff`);
      }
      if (stopped) break;
      if (busy) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        const delay = failures > 0 ? backoffDelay(failures, options.pollMs, options.maxBackoffMs) : options.pollMs;
        timer = setTimeout(resolve, delay);
      });
    }
  })();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
      await loop;
    },
  };
}
