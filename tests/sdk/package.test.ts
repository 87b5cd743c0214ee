// The SDK as an integrator gets it: packages/sdk copied alone into a scratch folder, its own
// dependencies installed there and `npm pack`ed (no workspace, no global tsc), the tarball installed
// into another scratch project, type-checked there against its shipped types as ESM and as
// CommonJS, then run with Node under both against our HTTP listener: an upload as multipart, a
// streamed conversation and a typed refusal.
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenOnLoopback, type LoopbackServer } from "../loopback-server";
import { publishedApp } from "../runtime-helpers";

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, "../..");
const TSC = path.join(ROOT, "node_modules/typescript/bin/tsc");

const PROGRAM = `
import { createAtrium, ValidationError } from "@atrium/sdk";

const atrium = createAtrium({ apiKey: process.env.ATRIUM_KEY, baseUrl: process.env.ATRIUM_URL, timeout: 60_000 });
const { data } = await atrium.client.POST("/knowledgebases", { body: { name: "Packed" } });
const file = new File(["# Returns\\n\\nReturns are accepted within 30 days."], "returns.md", { type: "text/markdown" });
const added = await atrium.sources.upload(data.knowledgebase.id, file);
let reply = "";
for await (const event of atrium.apps.converse(process.env.ATRIUM_APP, { message: "How long do refunds take?" })) {
  if (event.type === "done") reply = event.reply;
}
let refused = null;
try {
  await atrium.client.POST("/agents", { body: { name: "" } });
} catch (error) {
  if (error instanceof ValidationError) refused = [error.code, error.problems[0]?.path];
}
console.log(JSON.stringify({ source: added.source.name, status: added.status, reply, refused }));
`;

// The same calls from CommonJS: require, no top-level await.
const CJS_PROGRAM = `
const { ConnectionError, createAtrium } = require("@atrium/sdk");

async function main() {
  const atrium = createAtrium({ apiKey: process.env.ATRIUM_KEY, baseUrl: process.env.ATRIUM_URL });
  const { data } = await atrium.client.POST("/knowledgebases", { body: { name: "From CommonJS" } });
  const { data: listed } = await atrium.client.GET("/knowledgebases");
  const closed = createAtrium({ apiKey: "k", baseUrl: "http://127.0.0.1:9", maxRetries: 0 });
  const unreachable = await closed.client.GET("/models").catch((error) => error instanceof ConnectionError);
  console.log(JSON.stringify({ name: data.knowledgebase.name, listed: listed.knowledgebases.length, unreachable }));
}
main();
`;

describe("the SDK package", () => {
  let scratch: string;
  let server: LoopbackServer;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "atrium-sdk-"));
    // packages/sdk on its own, as a copy of the folder would be: it installs its own build tools.
    const alone = path.join(scratch, "sdk");
    await mkdir(alone);
    for (const entry of ["package.json", "tsconfig.json", "tsconfig.cjs.json", "README.md", "src", "scripts"])
      await cp(path.join(ROOT, "packages/sdk", entry), path.join(alone, entry), { recursive: true });
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: alone });
    await run("npm", ["pack", "--pack-destination", scratch], { cwd: alone });
    const tarball = (await readdir(scratch)).find((name) => name.endsWith(".tgz"))!;
    await writeFile(
      path.join(scratch, "package.json"),
      JSON.stringify({ name: "scratch", private: true, type: "module" }),
    );
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", `./${tarball}`], { cwd: scratch });
    server = await listenOnLoopback(0);
  }, 400_000);

  afterAll(async () => {
    server?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it("type-checks a program against the installed package's own types, as ESM and as CommonJS", async () => {
    // `data` needs no assertion: a call that returns has it. (No @types/node there.)
    const ENV = "declare const process: { env: Record<string, string> };\n";
    await writeFile(path.join(scratch, "program.ts"), `${ENV}${PROGRAM}`);
    await writeFile(
      path.join(scratch, "program-cjs.cts"),
      `${ENV}${CJS_PROGRAM.replace(
        /const \{ (.+) \} = require\("@atrium\/sdk"\);/,
        'import { $1 } from "@atrium/sdk";',
      ).replace("(error) =>", "(error: unknown) =>")}`,
    );
    await writeFile(
      path.join(scratch, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          lib: ["es2023", "dom"],
          types: [],
        },
        files: ["program.ts", "program-cjs.cts"],
      }),
    );
    const compiled = await run(process.execPath, [TSC, "-p", scratch], { cwd: scratch }).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout, failed: true }),
    );
    expect(compiled.stdout).toBe("");
  }, 120_000);

  it("uploads a file and streams a conversation from the installed tarball", async () => {
    const app = await publishedApp();
    await writeFile(path.join(scratch, "program.mjs"), PROGRAM);
    const { stdout } = await run(process.execPath, ["program.mjs"], {
      cwd: scratch,
      env: { ...process.env, ATRIUM_URL: server.base, ATRIUM_KEY: app.key, ATRIUM_APP: app.appId },
    });
    expect(JSON.parse(stdout)).toEqual({
      source: "returns.md",
      status: "processing",
      reply: expect.stringContaining("14 days"),
      refused: ["invalid_request", "name"],
    });
  }, 120_000);
  it("runs from CommonJS with require", async () => {
    const app = await publishedApp();
    await writeFile(path.join(scratch, "program.cjs"), CJS_PROGRAM);
    const { stdout } = await run(process.execPath, ["program.cjs"], {
      cwd: scratch,
      env: { ...process.env, ATRIUM_URL: server.base, ATRIUM_KEY: app.key },
    });
    expect(JSON.parse(stdout)).toEqual({ name: "From CommonJS", listed: expect.any(Number), unreachable: true });
  }, 120_000);
});
