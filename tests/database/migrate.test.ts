// The migrator on an installation's database: a migration changed after it was applied is refused,
// except the rewrites it knows (the provisioning migration made to run on PostgreSQL 14), whose
// follow-up migration brings an older installation to the same schema.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "@/server/database/migrate";

const ORIGINAL_PROVISIONING_CHECKSUM = "7f40811f1ad29655f0afcda569d42a96bdce188382a639f7258f0bc5eba68b28";
const url = process.env.DATABASE_URL!;
const client = new pg.Client({ connectionString: url });

beforeAll(() => client.connect());
afterAll(() => client.end());

async function setRecordedChecksum(migration: string, checksum: string): Promise<void> {
  await client.query(`update "_prisma_migrations" set checksum = $1 where migration_name = $2`, [checksum, migration]);
}

async function grantIndexes(): Promise<string[]> {
  const { rows } = await client.query<{ indexdef: string }>(
    `select indexdef from pg_indexes where tablename = 'grants' and indexname in ('grants_end_user_unique', 'grants_group_unique') order by indexname`,
  );
  return rows.map((row) => row.indexdef);
}

describe("migrate on an existing installation", () => {
  it("refuses a migration whose applied text was changed", async () => {
    const {
      rows: [recorded],
    } = await client.query<{ checksum: string }>(
      `select checksum from "_prisma_migrations" where migration_name = '20261121060641_provisioning'`,
    );
    await setRecordedChecksum("20261121060641_provisioning", "0".repeat(64));
    try {
      await expect(migrate(url)).rejects.toThrow(
        "Migration 20261121060641_provisioning was changed after it was applied",
      );
    } finally {
      await setRecordedChecksum("20261121060641_provisioning", recorded!.checksum);
    }
  });

  it("upgrades an installation that applied the original provisioning migration to the indexes PostgreSQL 14 accepts", async () => {
    const {
      rows: [server],
    } = await client.query<{ version: number }>("select current_setting('server_version_num')::int as version");
    const hadNullsNotDistinct = server!.version >= 150000;
    await setRecordedChecksum("20261121060641_provisioning", ORIGINAL_PROVISIONING_CHECKSUM);
    if (hadNullsNotDistinct) {
      // What the original migration left behind, on the servers that could run it.
      await client.query(`drop index "grants_end_user_unique"; drop index "grants_group_unique"`);
      await client.query(
        `create unique index "grants_end_user_unique" on "grants"("end_user_id", "target_kind", "target_id", "effect", "deployment_id") nulls not distinct where "end_user_id" is not null`,
      );
      await client.query(
        `create unique index "grants_group_unique" on "grants"("group_id", "target_kind", "target_id", "effect", "deployment_id") nulls not distinct where "group_id" is not null`,
      );
      await client.query(
        `delete from "_prisma_migrations" where migration_name = '20261123093000_grants_unique_any_postgres'`,
      );
    }

    const applied = await migrate(url);

    expect(applied).toEqual(hadNullsNotDistinct ? ["20261123093000_grants_unique_any_postgres"] : []);
    const indexes = await grantIndexes();
    expect(indexes).toHaveLength(2);
    for (const definition of indexes) {
      expect(definition).toContain("COALESCE(deployment_id");
      expect(definition).not.toContain("NULLS NOT DISTINCT");
    }
  });
});
