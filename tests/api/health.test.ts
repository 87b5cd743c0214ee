// GET /api/health: 200 {"status":"ok"} once the database answers and is migrated.
import { describe, expect, it } from "vitest";
import { GET } from "@/app/api/health/route";
import { getDb } from "@/server/db";

describe("GET /api/health", () => {
  it("answers 200 ok on a migrated database, without caching", async () => {
    const response = await GET(new Request("http://localhost/api/health"));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-request-id")).toBeTruthy();
  });

  it("answers 503 while a migration is missing", async () => {
    const db = getDb();
    const [row] = await db.$queryRaw<{ id: string }[]>`select id from "_prisma_migrations" limit 1`;
    await db.$executeRaw`update "_prisma_migrations" set finished_at = null where id = ${row!.id}`;
    try {
      const response = await GET(new Request("http://localhost/api/health"));
      expect(response.status).toBe(503);
      expect((await response.json()).status).toBe("migrating");
    } finally {
      await db.$executeRaw`update "_prisma_migrations" set finished_at = now() where id = ${row!.id}`;
    }
    expect((await GET(new Request("http://localhost/api/health"))).status).toBe(200);
  });
});
