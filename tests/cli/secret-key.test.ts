// The start's secret key (src/server/secret-box.ts provideSecretKey, which src/cli/start.ts calls):
// on the embedded default (no DATABASE_URL) without ATRIUM_SECRET_KEY it generates one into
// DATA_DIR (mode 0600) on the first start, says so once, and uses the same one on every start, so
// a webhook endpoint can be created through the REST door; with DATABASE_URL and no key, storing
// credentials stays refused. tests/cli/start.test.ts checks the same on a real `npm start`.
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { env, provideEnv } from "@/env";
import { provideSecretKey, secretKeyFile } from "@/server/secret-box";
import { api, newOrganization } from "../helpers";

vi.hoisted(() => {
  delete process.env.ATRIUM_SECRET_KEY;
  // The endpoint below names this machine.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

let dataDir: string;
beforeEach(async () => {
  dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), "atrium-key-")), ".data");
});
afterEach(async () => {
  delete process.env.ATRIUM_SECRET_KEY;
  provideEnv({});
  await rm(path.dirname(dataDir), { recursive: true, force: true });
});

function recorder() {
  const lines: string[] = [];
  return {
    lines,
    log: { info: (line: string) => lines.push(`info ${line}`), warn: (line: string) => lines.push(`warn ${line}`) },
  };
}

async function createEndpoint() {
  const tenant = await newOrganization();
  return api("POST", "/webhook-endpoints", {
    key: tenant.orgKey.secret,
    body: { url: "http://127.0.0.1:9/hooks", eventTypes: ["*"] },
  });
}

it("on the embedded default, generates a key into DATA_DIR (0600) once and keeps it; a webhook endpoint can then be created", async () => {
  const embedded = { DATABASE_URL: undefined, ATRIUM_SECRET_KEY: undefined, dataDir };
  const first = recorder();
  const key = await provideSecretKey(embedded, first.log);
  expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect((await stat(secretKeyFile(dataDir))).mode & 0o777).toBe(0o600);
  expect((await readFile(secretKeyFile(dataDir), "utf8")).trim()).toBe(key);
  expect(first.lines).toEqual([
    expect.stringMatching(/^info ATRIUM_SECRET_KEY is not set: generated one in .*secret-key \(mode 0600\)/),
  ]);
  expect(first.lines.join()).not.toContain(key);
  expect(env().ATRIUM_SECRET_KEY).toBe(key);

  const second = recorder();
  expect(await provideSecretKey(embedded, second.log)).toBe(key);
  expect(second.lines).toEqual([]);

  const created = await createEndpoint();
  expect(created.status).toBe(201);
  expect(created.body.secret).toMatch(/^whsec_/);
});

it("with DATABASE_URL and no key, writes no file, says so at start, and creating a webhook endpoint stays refused", async () => {
  const started = recorder();
  expect(
    await provideSecretKey({ DATABASE_URL: env().DATABASE_URL, ATRIUM_SECRET_KEY: undefined, dataDir }, started.log),
  ).toBe(undefined);
  expect(started.lines).toEqual([expect.stringMatching(/^warn ATRIUM_SECRET_KEY is not set: .*docs\/operations\.md/)]);
  await expect(stat(secretKeyFile(dataDir))).rejects.toMatchObject({ code: "ENOENT" });
  const refused = await createEndpoint();
  expect(refused.status).toBe(400);
  expect(refused.body.error.message).toContain("the operator has not set ATRIUM_SECRET_KEY");
});

it("an explicit ATRIUM_SECRET_KEY wins and nothing is written", async () => {
  const explicit = "an-operator-key-of-at-least-32-characters";
  const quiet = recorder();
  expect(await provideSecretKey({ DATABASE_URL: undefined, ATRIUM_SECRET_KEY: explicit, dataDir }, quiet.log)).toBe(
    explicit,
  );
  expect(quiet.lines).toEqual([]);
  await expect(stat(secretKeyFile(dataDir))).rejects.toMatchObject({ code: "ENOENT" });
});
