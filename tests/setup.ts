// Runs before each test file's own imports: gives the file its own database, copied from the
// migrated template, and points DATABASE_URL at it. A file of the "shared" project (vitest.config.ts)
// runs in a worker process after other files, so the environment src/env.ts cached for the file
// before is dropped, and its database client closed and forgotten at the end.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, inject } from "vitest";
import { provideEnv } from "@/env";
import type { Db } from "@/server/db";
import { endFile } from "./file-end";

async function createFileDatabase(): Promise<string> {
  const adminUrl = inject("adminUrl");
  const template = inject("templateDatabase");
  const name = `${inject("databasePrefix")}${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`create database "${name}" template "${template}"`);
        break;
      } catch (error) {
        // 55006: the template is briefly in use by another file's CREATE DATABASE.
        if ((error as { code?: string }).code !== "55006" || attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

const databaseUrl = await createFileDatabase();
// Hermetic defaults, whatever the shell running the tests has set.
process.env.RATE_LIMIT_PER_MINUTE = "120"; // a test file may lower it at its top, before any request
delete process.env.SESSION_TTL_HOURS;
delete process.env.BENCH_BASELINE_ROUTE;
delete process.env.SMTP_URL; // mail goes to the outbox unless a test starts its own SMTP server
delete process.env.MAIL_FROM;
delete process.env.METRICS_TOKEN;
process.env.LOG_LEVEL = "silent"; // request log lines would drown the reporter; observability.test.ts reads them
provideEnv({ DATABASE_URL: databaseUrl }); // sets it, and env() reads the environment afresh

afterAll(async () => {
  await endFile();
  // Close the file's shared client (src/server/db.ts keeps it on globalThis): Prisma and its pool.
  // Imported only then: a file that never opened the database does not load Prisma for this.
  const global = globalThis as { atriumDb?: Db };
  const db = global.atriumDb;
  delete global.atriumDb;
  if (db) await (await import("@/server/db")).closeDb(db);
});
for (const name of [
  "MODEL_PROVIDER_BASE_URL",
  "MODEL_PROVIDER_API_KEY",
  "MODEL_PROVIDER_MODELS",
  "MODEL_PROVIDER_IMAGE_MODELS",
  "MODEL_PROVIDER_NAME",
])
  delete process.env[name];
