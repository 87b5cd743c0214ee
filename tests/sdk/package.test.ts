// The SDK as an integrator gets it: `npm pack` of packages/sdk, installed from the tarball into a
// scratch project, type-checked there against its shipped types, then run with Node against our
// HTTP listener: an upload as multipart and a streamed conversation.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
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
import { AtriumError, createAtrium } from "@atrium/sdk";

const atrium = createAtrium({ apiKey: process.env.ATRIUM_KEY, baseUrl: process.env.ATRIUM_URL });
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
  if (error instanceof AtriumError) refused = error.code;
}
console.log(JSON.stringify({ source: added.source.name, status: added.status, reply, refused }));
`;

describe("the SDK package", () => {
  let scratch: string;
  let server: LoopbackServer;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "atrium-sdk-"));
    await run("npm", ["pack", "--workspace", "@atrium/sdk", "--pack-destination", scratch], { cwd: ROOT });
    const tarball = (await readdir(scratch)).find((name) => name.endsWith(".tgz"))!;
    await writeFile(
      path.join(scratch, "package.json"),
      JSON.stringify({ name: "scratch", private: true, type: "module" }),
    );
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", `./${tarball}`], { cwd: scratch });
    server = await listenOnLoopback(0);
  }, 240_000);

  afterAll(async () => {
    server?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it("type-checks a program against the installed package's own types", async () => {
    // The same program, with the non-null assertions strict TypeScript asks for (no @types/node there).
    const typed = PROGRAM.replace(/process\.env\.(ATRIUM_\w+)/g, "process.env.$1!").replace(
      "data.knowledgebase",
      "data!.knowledgebase",
    );
    await writeFile(
      path.join(scratch, "program.ts"),
      `declare const process: { env: Record<string, string | undefined> };\n${typed}`,
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
        files: ["program.ts"],
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
      refused: "invalid_request",
    });
  }, 120_000);
});
