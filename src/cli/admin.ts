// The admin CLI: `npm run --silent admin -- <group> <verb> [--flag value ...]`. Prints exactly
// one JSON object; exits 0, or prints {"error":{code,message}} and exits 1. It works against
// the same database as the server, the embedded one too, running or not. The commands and what
// they print are src/cli/commands.ts's; this file gives them the database and the process.
// `admin --lines`: one command per line of stdin (a JSON array of its arguments), each answered
// by one line, over one connection until stdin ends: the browser tests seed through it without a
// process per command (e2e/fixtures.ts).
import readline from "node:readline";
import { env } from "@/env";
import { openDatabase } from "@/server/database/open";
import { closeDb, createDb, type Db } from "@/server/db";
import { provideSecretKey } from "@/server/secret-box";
import { runCommandLine } from "./commands";

async function withDatabase<T>(task: (db: Db) => Promise<T>): Promise<T> {
  // The embedded default's key, as the server uses it (stdout holds only the command's answer).
  await provideSecretKey(env(), { info: (line) => process.stderr.write(`${line}\n`), warn: () => {} });
  const database = await openDatabase();
  const db = createDb(database.url, 2);
  try {
    return await task(db);
  } finally {
    await closeDb(db);
    await database.release();
  }
}

if (process.argv[2] === "--lines") {
  await withDatabase(async (db) => {
    for await (const input of readline.createInterface({ input: process.stdin })) {
      const { line } = await runCommandLine(JSON.parse(input) as string[], (task) => task(db));
      process.stdout.write(`${line}\n`);
    }
  });
  process.exit(0);
}

const { exitCode, line } = await runCommandLine(process.argv.slice(2), withDatabase);
process.stdout.write(`${line}\n`);
process.exit(exitCode);
