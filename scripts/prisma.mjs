#!/usr/bin/env node
// Runs the Prisma CLI offline. Prisma 6 checks for native engines before any command and
// would download them; pointing the checks at an existing file skips that (the client uses
// the bundled WebAssembly query compiler and migrations are plain SQL applied by Atrium).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const cli = require.resolve("prisma/build/index.js");
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
  PRISMA_QUERY_ENGINE_LIBRARY: process.env.PRISMA_QUERY_ENGINE_LIBRARY ?? process.execPath,
  PRISMA_HIDE_UPDATE_MESSAGE: "1",
  CHECKPOINT_DISABLE: "1",
  DATABASE_URL: process.env.DATABASE_URL ?? "postgresql://offline:offline@127.0.0.1:5432/offline",
};
const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { stdio: "inherit", env });
process.exit(result.status ?? 1);
