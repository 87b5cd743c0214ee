// Clients an integrator generates from the served OpenAPI document with two common generators,
// openapi-typescript (types, with openapi-fetch for the calls) and hey-api (its fetch client):
// each small program is type-checked with strict TypeScript, bundled and run with Node against our
// HTTP listener. It uploads a file through the generated call (multipart/form-data) and streams a
// conversation, reading its events with the generated types. No network: every tool is local.
import { execFile } from "node:child_process";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenOnLoopback, type LoopbackServer } from "../loopback-server";
import { publishedApp } from "../runtime-helpers";

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, "../..");
const bin = (relative: string) => path.join(ROOT, "node_modules", relative);

// Strict, no @types/node: the programs use only what a browser has, plus `process.env`.
const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "ESNext",
    moduleResolution: "Bundler",
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    lib: ["es2023", "dom", "dom.iterable", "dom.asynciterable"],
    types: [],
  },
};
const ENV_DECLARATION = "declare const process: { env: Record<string, string> };\n";

// openapi-typescript types `format: binary` as a string unless told otherwise; its documented
// transform makes it a Blob (a File is one), as scripts/sdk-types.ts does for our SDK.
const OPENAPI_TYPESCRIPT_GENERATOR = `
import { writeFileSync } from "node:fs";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";

const BLOB = ts.factory.createTypeReferenceNode("Blob");
const ast = await openapiTS(new URL("./openapi.json", import.meta.url), {
  transform: (schema) => (schema.format === "binary" ? BLOB : undefined),
});
writeFileSync(new URL("./schema.d.ts", import.meta.url), astToString(ast));
`;

const OPENAPI_FETCH_PROGRAM = `${ENV_DECLARATION}
import createClient from "openapi-fetch";
import { createParser } from "eventsource-parser";
import type { components, paths } from "./schema";

type StreamEvent = components["schemas"]["ConversationStreamEvent"];

const client = createClient<paths>({
  baseUrl: process.env.ATRIUM_URL + "/api/v1",
  headers: { Authorization: "Bearer " + process.env.ATRIUM_KEY },
});
const created = await client.POST("/knowledgebases", { body: { name: "Generated" } });
const knowledgebaseId = created.data!.knowledgebase.id;

const file = new File(["# Returns\\n\\nReturns are accepted within 30 days."], "returns.md", { type: "text/markdown" });
const upload = await client.POST("/knowledgebases/{knowledgebaseId}/sources", {
  params: { path: { knowledgebaseId } },
  body: { file },
  bodySerializer(body) {
    const form = new FormData();
    if ("file" in body) form.set("file", body.file, file.name);
    return form;
  },
});

const conversation = await client.POST("/apps/{appId}/conversation", {
  params: { path: { appId: process.env.ATRIUM_APP } },
  body: { message: "How long do refunds take?", stream: true },
  parseAs: "stream",
});
const events: StreamEvent[] = [];
const parser = createParser({
  onEvent: (message) => events.push({ event: message.event, id: message.id, data: JSON.parse(message.data) } as StreamEvent),
});
const decoder = new TextDecoder();
for await (const chunk of conversation.response.body!) parser.feed(decoder.decode(chunk, { stream: true }));

let reply = "";
let executionId = "";
for (const event of events) {
  if (event.event === "run") executionId = event.data.execution_id;
  if (event.event === "done") reply = event.data.reply;
}
console.log(JSON.stringify({
  uploadStatus: upload.response.status,
  source: upload.data?.source.name,
  events: events.map((event) => event.event),
  executionId,
  reply,
}));
`;

// hey-api types one request body per operation and prefers JSON where an operation takes both
// (the add-source call takes JSON or a multipart upload): the integrator keeps the upload's part.
const HEY_API_CONFIG = `
export default {
  input: "./openapi.json",
  output: "./hey",
  plugins: ["@hey-api/client-fetch"],
  parser: {
    patch: {
      operations: {
        "POST /knowledgebases/{knowledgebaseId}/sources": (operation) => {
          delete operation.requestBody.content["application/json"];
        },
      },
    },
  },
};
`;

const HEY_API_PROGRAM = `${ENV_DECLARATION}
import { client } from "./hey/client.gen";
import { knowledgeAddSource, knowledgeCreate, runtimeConversationRunEvents } from "./hey/sdk.gen";
import type { ConversationStreamEvent } from "./hey/types.gen";

client.setConfig({
  baseUrl: process.env.ATRIUM_URL + "/api/v1",
  headers: { Authorization: "Bearer " + process.env.ATRIUM_KEY },
});
const created = await knowledgeCreate({ body: { name: "Generated" }, throwOnError: true });

const file = new File(["# Returns\\n\\nReturns are accepted within 30 days."], "returns.md", { type: "text/markdown" });
const upload = await knowledgeAddSource({
  path: { knowledgebaseId: created.data.knowledgebase.id },
  body: { file },
  throwOnError: true,
});

// The document types each SSE message whole (event, id, data); hey-api types the data it parses
// with that schema, so the message is put back together from what onSseEvent hands over.
const asMessage = (message: { event?: string; id?: string; data: unknown }) =>
  ({ event: message.event, id: message.id, data: message.data }) as unknown as ConversationStreamEvent;
const events: ConversationStreamEvent[] = [];
const started = await client.sse.post({
  url: "/apps/{appId}/conversation",
  path: { appId: process.env.ATRIUM_APP },
  body: { message: "How long do refunds take?", stream: true },
  headers: { "Content-Type": "application/json" },
  onSseEvent: (message) => events.push(asMessage(message)),
  sseMaxRetryAttempts: 1,
});
for await (const _ of started.stream);

let executionId = "";
for (const event of events) if (event.event === "run") executionId = event.data.execution_id;
// Resumed after the first event through the generated call of the run's event stream.
const resumedEvents: ConversationStreamEvent[] = [];
const resumed = await runtimeConversationRunEvents({
  path: { appId: process.env.ATRIUM_APP, executionId },
  headers: { "Last-Event-ID": events[0].id },
  onSseEvent: (message) => resumedEvents.push(asMessage(message)),
  sseMaxRetryAttempts: 1,
});
for await (const _ of resumed.stream);

let reply = "";
for (const event of resumedEvents) if (event.event === "done") reply = event.data.reply;
console.log(JSON.stringify({
  uploadStatus: upload.response.status,
  source: upload.data.source.name,
  events: events.map((event) => event.event),
  resumed: resumedEvents.map((event) => event.event),
  executionId,
  reply,
}));
`;

describe("clients generated from the OpenAPI document", () => {
  let scratch: string;
  let server: LoopbackServer;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "atrium-generated-"));
    // The generators and the libraries the generated code imports, as an integrator installs them.
    await symlink(path.join(ROOT, "node_modules"), path.join(scratch, "node_modules"), "dir");
    server = await listenOnLoopback(0);
    const served = await fetch(`${server.base}/api/v1/openapi.json`);
    await writeFile(path.join(scratch, "openapi.json"), await served.text());
    await writeFile(path.join(scratch, "package.json"), JSON.stringify({ private: true, type: "module" }));
  });

  afterAll(async () => {
    server?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  /** Type-checks `<name>.ts` with strict TypeScript, then bundles it and runs it against the server. */
  async function compileAndRun(name: string, source: string): Promise<Record<string, unknown>> {
    await writeFile(path.join(scratch, `${name}.ts`), source);
    await writeFile(
      path.join(scratch, `tsconfig.${name}.json`),
      JSON.stringify({ ...TSCONFIG, files: [`${name}.ts`] }),
    );
    const checked = await run(process.execPath, [bin("typescript/bin/tsc"), "-p", `tsconfig.${name}.json`], {
      cwd: scratch,
    }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
    expect(checked.stdout).toBe("");
    await run(
      process.execPath,
      [
        bin("esbuild/bin/esbuild"),
        `${name}.ts`,
        "--bundle",
        "--platform=node",
        "--format=esm",
        `--outfile=${name}.mjs`,
        "--log-level=warning",
      ],
      { cwd: scratch },
    );
    const app = await publishedApp();
    const { stdout } = await run(process.execPath, [`${name}.mjs`], {
      cwd: scratch,
      env: { ...process.env, ATRIUM_URL: server.base, ATRIUM_KEY: app.key, ATRIUM_APP: app.appId },
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  it("openapi-typescript with openapi-fetch: uploads as multipart and reads typed stream events", async () => {
    await writeFile(path.join(scratch, "generate-types.mjs"), OPENAPI_TYPESCRIPT_GENERATOR);
    await run(process.execPath, ["generate-types.mjs"], { cwd: scratch });
    const result = await compileAndRun("openapi-fetch", OPENAPI_FETCH_PROGRAM);
    expect(result).toMatchObject({
      uploadStatus: 202,
      source: "returns.md",
      events: expect.arrayContaining(["run", "delta", "done"]),
      executionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      reply: expect.stringContaining("14 days"),
    });
  }, 90_000);

  it("hey-api's fetch client: its own upload call sends multipart, its stream call resumes a run", async () => {
    await writeFile(path.join(scratch, "openapi-ts.config.mjs"), HEY_API_CONFIG);
    await run(
      process.execPath,
      [bin("@hey-api/openapi-ts/bin/run.js"), "-f", "openapi-ts.config.mjs", "--no-log-file"],
      {
        cwd: scratch,
      },
    );
    const result = await compileAndRun("hey-api", HEY_API_PROGRAM);
    expect(result).toMatchObject({
      uploadStatus: 202,
      source: "returns.md",
      events: expect.arrayContaining(["run", "delta", "done"]),
      resumed: expect.arrayContaining(["delta", "done"]),
      reply: expect.stringContaining("14 days"),
    });
    expect((result.resumed as string[])[0]).not.toBe("run");
  }, 90_000);
});
