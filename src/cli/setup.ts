// The launcher's one-off step after migrating (src/cli/start.ts runs it in a child process that
// exits after it, so that password hashing (argon2) is not kept loaded in the server it becomes):
// on a fresh installation, creates the organization and its owner and prints the owner's
// credentials, once, as plain text on stderr: never in the JSON log stream on stdout, which log
// collectors keep. DATABASE_URL is the database the launcher opened.
import { env } from "@/env";
import { closeDb, createDb } from "@/server/db";
import { logger } from "@/server/observability/log";
import { seedFirstOwner } from "@/server/services/org/setup";

async function main() {
  const url = env().DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: the launcher (src/cli/start.ts) runs this step.");
  const db = createDb(url, 2);
  try {
    const seeded = await seedFirstOwner(db);
    if (seeded) {
      logger().info(
        { email: seeded.login.email },
        "First start: created the organization and its owner; the credentials are printed on the terminal (stderr), once",
      );
      process.stderr.write(
        [
          "",
          "First start: created the organization and its owner. These credentials are shown only now:",
          `  email:    ${seeded.login.email}`,
          `  password: ${seeded.login.password}`,
          "",
          "",
        ].join("\n"),
      );
    }
  } finally {
    await closeDb(db);
  }
}

main().catch((error: unknown) => {
  console.error(`Atrium could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
