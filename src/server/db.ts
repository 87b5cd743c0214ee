// The database client: one per process, created on first use from DATABASE_URL. Prisma runs
// over a pg pool it shares with the few hot paths (key check, rate limit) that send plain SQL
// straight to the pool, where a query costs a fifth of the CPU time of Prisma's $queryRaw.
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { env } from "@/env";
import { PrismaClient } from "@/generated/prisma/client";
import { logger } from "@/server/observability/log";

export type Db = PrismaClient & { readonly pool: pg.Pool };

export function createDb(databaseUrl: string, poolSize = 10): Db {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  // An idle connection dropped by the server must not take the process down; the pool reconnects.
  pool.on("error", (error) => logger().error({ reason: error.message }, "Database connection lost"));
  return Object.assign(new PrismaClient({ adapter: new PrismaPg(pool) }), { pool });
}

export async function closeDb(db: Db): Promise<void> {
  await db.$disconnect();
  await db.pool.end();
}

const globalForDb = globalThis as unknown as { atriumDb?: Db };

export function getDb(): Db {
  if (!globalForDb.atriumDb) {
    const url = env().DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set: start Atrium with `npm start`, which provides the database.");
    globalForDb.atriumDb = createDb(url);
  }
  return globalForDb.atriumDb;
}
