// Two processes starting at once on a new DATA_DIR (two browser-test workers each starting the
// admin CLI, or `npm start` beside the CLI) both generate a secret key: one must win, whole, and
// the other must read the winner's key. Here the disk is slow: a file exists, empty, a moment
// before its content lands (open with O_CREAT, then write), which is when the other start reads it.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { provideEnv } from "@/env";
import { provideSecretKey, secretKeyFile } from "@/server/secret-box";

vi.hoisted(() => {
  delete process.env.ATRIUM_SECRET_KEY;
});

vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  return {
    ...real,
    writeFile: async (file: string, data: string, options: { mode?: number; flag?: string }) => {
      await real.writeFile(file, "", options);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await real.writeFile(file, data, { ...options, flag: "w" });
    },
  };
});

let root: string | undefined;
afterEach(async () => {
  provideEnv({});
  if (root) await rm(root, { recursive: true, force: true });
});

it("starts at once on a new DATA_DIR all use the one key written, none a half-written file", async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "atrium-key-race-"));
  const dataDir = path.join(root, ".data");
  const embedded = { DATABASE_URL: undefined, ATRIUM_SECRET_KEY: undefined, dataDir };
  const said: string[] = [];
  const log = { info: (line: string) => said.push(line), warn: (line: string) => said.push(line) };
  const keys = await Promise.all(Array.from({ length: 4 }, () => provideSecretKey(embedded, log)));
  expect(keys[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(new Set(keys)).toEqual(new Set([keys[0]]));
  expect((await readFile(secretKeyFile(dataDir), "utf8")).trim()).toBe(keys[0]);
  // Said once, by the start whose key it is; nothing left beside the key.
  expect(said).toHaveLength(1);
  expect(await readdir(dataDir)).toEqual(["secret-key"]);
});
