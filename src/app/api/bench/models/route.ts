// The benchmark's baseline: the same JSON as GET /api/v1/models with no auth, database or
// pipeline. It exists only when the server runs with BENCH_BASELINE_ROUTE=1 (npm run bench).
import { env } from "@/env";
import { errorResponse, requestIdFor } from "@/server/adapters/rest";
import { AppError } from "@/server/errors";
import { listModels } from "@/server/services/models";

export const dynamic = "force-dynamic";

export function GET(request: Request): Response {
  if (!env().BENCH_BASELINE_ROUTE) return errorResponse(new AppError("not_found", "Not found."), requestIdFor(request));
  return Response.json(listModels());
}
