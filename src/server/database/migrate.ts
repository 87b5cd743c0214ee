// Applies prisma/migrations/*/migration.sql in order, once, under an advisory lock, and records
// them in Prisma's own `_prisma_migrations` table so `prisma migrate status` agrees.
import { createHash, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";

const LOCK_KEY = 7_441_203_911; // arbitrary, constant: serializes migrators across processes

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function migrationsDir(root = process.cwd()): string {
  return path.join(root, "prisma", "migrations");
}

export async function readMigrations(dir = migrationsDir()): Promise<Migration[]> {
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

const CREATE_TABLE = `
create table if not exists "_prisma_migrations" (
  "id" varchar(36) primary key not null,
  "checksum" varchar(64) not null,
  "finished_at" timestamptz,
  "migration_name" varchar(255) not null,
  "logs" text,
  "rolled_back_at" timestamptz,
  "started_at" timestamptz not null default now(),
  "applied_steps_count" integer not null default 0
)`;

/**
 * Migrations rewritten after release, with the checksums of the versions installations may have
 * applied. The rewrite must leave the same schema once the later migrations have run:
 * 20261121060641_provisioning lost its two NULLS NOT DISTINCT indexes (PostgreSQL 15 and later
 * only), which 20261123093000_grants_unique_any_postgres makes anew in a form PostgreSQL 14 accepts.
 */
const EARLIER_CHECKSUMS: Record<string, string[]> = {
  "20261121060641_provisioning": ["7f40811f1ad29655f0afcda569d42a96bdce188382a639f7258f0bc5eba68b28"],
};

/** Returns the names of the migrations it applied. */
export async function migrate(databaseUrl: string, dir = migrationsDir()): Promise<string[]> {
  const migrations = await readMigrations(dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock($1)", [LOCK_KEY]);
    await client.query(CREATE_TABLE);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `select migration_name, checksum from "_prisma_migrations" where finished_at is not null and rolled_back_at is null`,
    );
    const done = new Map(rows.map((row) => [row.migration_name, row.checksum]));
    for (const migration of migrations) {
      const recorded = done.get(migration.name);
      if (recorded) {
        if (recorded !== migration.checksum && !EARLIER_CHECKSUMS[migration.name]?.includes(recorded)) {
          throw new Error(`Migration ${migration.name} was changed after it was applied; add a new migration instead.`);
        }
        continue;
      }
      await client.query(migration.sql);
      await client.query(
        `insert into "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) values ($1, $2, now(), $3, 1)`,
        [randomUUID(), migration.checksum, migration.name],
      );
      applied.push(migration.name);
    }
    await client.query("commit");
    return applied;
  } catch (error) {
    await client.query("rollback").catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}
