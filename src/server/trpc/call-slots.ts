// How many calls of one tRPC request (a batch of up to MAX_TRPC_BATCH_CALLS) run at once, so that
// one client's batch holds a few of the process's database connections (10 in its pool, see
// src/server/db.ts) and never all of them: other requests still find a free one.
/** Calls of one request that run at once. */
export const MAX_CONCURRENT_CALLS_PER_REQUEST = 4;

/** Runs the work handed to it at most `limit` at a time, the rest in the order they came. */
export function callSlots(limit = MAX_CONCURRENT_CALLS_PER_REQUEST) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async function inSlot<T>(work: () => Promise<T>): Promise<T> {
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiting call, or is freed.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

export type CallSlot = ReturnType<typeof callSlots>;
