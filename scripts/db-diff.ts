// `npm run db:diff -- <name>`: writes prisma/migrations/<timestamp>_<name>/migration.sql with
// the SQL from the schema as of the last committed migration to prisma/schema.prisma.
// Prisma's offline (WebAssembly) engine can diff two schema files but cannot read a live
// PostgreSQL schema; it still wants a connection, which a
// throwaway embedded cluster provides.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureDatabase, startEmbeddedCluster } from "@/server/database/embedded";

function git(args: string[]): string {
  const result = spawnSync("git", args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(result.stderr);
  return result.stdout.trim();
}

async function main() {
  const name = process.argv[2];
  if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error("Usage: npm run db:diff -- <snake_case_name>");
  const dir = mkdtempSync(path.join(os.tmpdir(), "atrium-diff-"));
  chmodSync(dir, 0o755);
  const cluster = await startEmbeddedCluster(path.join(dir, "postgres"), { ephemeral: true });
  try {
    await ensureDatabase(cluster.adminUrl, "scratch");
    const lastMigrationCommit = git(["log", "-1", "--format=%H", "--", "prisma/migrations"]);
    const from = path.join(dir, "from.prisma");
    writeFileSync(from, git(["show", `${lastMigrationCommit}:prisma/schema.prisma`]));
    const result = spawnSync(
      process.execPath,
      [
        "scripts/prisma.mjs",
        "migrate",
        "diff",
        "--from-schema-datamodel",
        from,
        "--to-schema-datamodel",
        "prisma/schema.prisma",
        "--script",
      ],
      { encoding: "utf8", env: { ...process.env, DATABASE_URL: cluster.urlFor("scratch") } },
    );
    if (result.status !== 0) throw new Error(result.stderr || "prisma migrate diff failed");
    const sql = result.stdout.trim();
    if (!sql || sql === "-- This is an empty migration.") {
      console.log("The schema matches the migrations; nothing to write.");
      return;
    }
    const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
    const folder = path.join("prisma", "migrations", `${stamp}_${name}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, "migration.sql"), `${sql}\n`);
    console.log(`Wrote ${folder}/migration.sql`);
  } finally {
    await cluster.release();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
