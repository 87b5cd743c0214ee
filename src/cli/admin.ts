// The admin CLI: `npm run --silent admin -- <group> <verb> [--flag value ...]`. Prints exactly
// one JSON object; exits 0, or prints {"error":{code,message}} and exits 1. It works against
// the same database as the server, the embedded one too, running or not.
import { env } from "@/env";
import { openDatabase } from "@/server/database/open";
import { closeDb, createDb } from "@/server/db";
import { AppError, toAppError } from "@/server/errors";
import { provideSecretKey } from "@/server/secret-box";
import { COMMANDS, parseFlags } from "./commands";

async function main(argv: string[]): Promise<number> {
  const [group, verb, ...rest] = argv;
  const name = `${group ?? ""} ${verb ?? ""}`.trim();
  const command = COMMANDS[name];
  if (!command) {
    const known = Object.keys(COMMANDS).join(", ");
    throw new AppError("invalid_request", `Unknown command "${name}". Commands: ${known}.`);
  }
  const flags = parseFlags(command.flags, rest);
  // The embedded default's key, as the server uses it (stdout holds only the command's answer).
  await provideSecretKey(env(), { info: (line) => process.stderr.write(`${line}\n`), warn: () => {} });
  const database = await openDatabase();
  const db = createDb(database.url, 2);
  try {
    const result = await command.run(db, flags);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await closeDb(db);
    await database.release();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const appError = toAppError(error);
    const message = appError.code === "server_error" && error instanceof Error ? error.message : appError.message;
    process.stdout.write(`${JSON.stringify({ error: { ...appError.toBody(), message } })}\n`);
    process.exit(1);
  },
);
