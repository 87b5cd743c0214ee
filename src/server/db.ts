// The Prisma client: one per process, created on first use from DATABASE_URL.
import { PrismaPg } from "@prisma/adapter-pg";
import { env } from "@/env";
import { PrismaClient } from "@/generated/prisma/client";

export type Db = PrismaClient;

export function createDb(databaseUrl: string, poolSize = 10): Db {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: poolSize }) });
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
