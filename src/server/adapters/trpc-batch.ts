// How many calls one tRPC batch (console and portal doors) may hold, refused before anything
// runs; how many of them run at once is src/server/trpc/call-slots.ts.
import { MAX_TRPC_BATCH_CALLS } from "@/schemas/limits";
import { AppError } from "@/server/errors";

/** Throws 400 `invalid_request` when `request` is a batch (`?batch=1`) of more than MAX_TRPC_BATCH_CALLS calls. */
export function assertBatchWithinCap(request: Request, endpoint: string): void {
  const url = new URL(request.url);
  if (url.searchParams.get("batch") !== "1") return;
  const calls = url.pathname.slice(endpoint.length + 1).split(",").length;
  if (calls > MAX_TRPC_BATCH_CALLS) {
    throw new AppError(
      "invalid_request",
      `Invalid request: a batch holds at most ${MAX_TRPC_BATCH_CALLS} calls; this one has ${calls}. Nothing was run.`,
    );
  }
}
