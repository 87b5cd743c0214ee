import { requestIdFor } from "@/server/adapters/rest";
import { getDb } from "@/server/db";
import { readMigrations } from "@/server/database/migrate";
import { observed } from "@/server/observability/observe";

export const dynamic = "force-dynamic";

/** 200 once the database answers and every migration in prisma/migrations is applied. */
export const GET = observed("/api/health", async (request: Request): Promise<Response> => {
  const headers = { "X-Request-Id": requestIdFor(request), "Cache-Control": "no-store" };
  try {
    const [expected, rows] = await Promise.all([
      readMigrations(),
      getDb().$queryRaw<{ migration_name: string }[]>`select migration_name from "_prisma_migrations" where finished_at is not null and rolled_back_at is null`,
    ]);
    const applied = new Set(rows.map((row) => row.migration_name));
    const pending = expected.filter((migration) => !applied.has(migration.name)).map((migration) => migration.name);
    if (pending.length) return Response.json({ status: "migrating", pending }, { status: 503, headers });
    return Response.json({ status: "ok" }, { headers });
  } catch {
    return Response.json({ status: "unavailable" }, { status: 503, headers });
  }
});
