// The benchmark's baseline: the same JSON as GET /api/v1/models (for an organization without
// providers of its own) with no auth, database or
// pipeline. It exists only when the server runs with BENCH_BASELINE_ROUTE=1 (npm run bench).
import { env } from "@/env";
import { errorResponse, requestIdFor } from "@/server/adapters/envelope";
import { AppError } from "@/server/errors";
import { builtInStatus } from "@/server/runtime/built-ins";
import { defaultModels } from "@/server/runtime/models";

export const dynamic = "force-dynamic";

export function GET(request: Request): Response {
  if (!env().BENCH_BASELINE_ROUTE) return errorResponse(new AppError("not_found", "Not found."), requestIdFor(request));
  return Response.json({ models: defaultModels(), builtIns: builtInStatus() });
}
