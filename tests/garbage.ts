// Runs V8's garbage collector every few milliseconds, for tests of what must still happen after a
// collection (an abort reaching a request whose Request object nobody holds any more).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** Collects every `ms` until the returned function is called. */
export function collectGarbageEvery(ms: number): () => void {
  const collector = setInterval(collectGarbage, ms);
  return () => clearInterval(collector);
}

/** What `pending` settles to within `ms`, or "still waiting". */
export function within<T>(ms: number, pending: Promise<T>): Promise<T | "still waiting"> {
  return Promise.race([pending, new Promise<"still waiting">((resolve) => setTimeout(resolve, ms, "still waiting"))]);
}
