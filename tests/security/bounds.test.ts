// Bounds on input: JSON bodies over 8 MiB answer 413 while
// they are read, nesting over 64 levels answers 400, text PostgreSQL cannot store answers 400
// naming the field, and every stored text has a maximum. Each attack of issue 10 (items 4, 5
// and 6) is reproduced here through every door, and nothing is written by a refusal.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { POST as consoleConversation } from "@/app/api/console/apps/[appId]/conversation/route";
import { parseFlags } from "@/cli/commands";
import { createMcpHandler } from "@/server/adapters/mcp";
import { getDb } from "@/server/db";
import { isAppError, toAppError } from "@/server/errors";
import {
  MAX_JSON_BODY_BYTES,
  MAX_JSON_DEPTH,
  MAX_MESSAGE_CHARS,
  MAX_NAME_CHARS,
  MAX_PAGE_MARKDOWN_CHARS,
} from "@/schemas/limits";
import { z } from "zod";
import { api, consoleHandler, newOrganization, restHandler, signInCookie, toApiResponse, trpc } from "../helpers";
import { create, VALID_NODES } from "../builder-helpers";
import { newPage, pageMarkdown, tenantWithKnowledgebase } from "../knowledge-helpers";
import { publishedApp } from "../runtime-helpers";

const MB = 1_000_000;
const NUL = "a\u0000b";
const LONE_SURROGATE = "a\ud800b";

/** `{"a":{"a":...{"a":1}}}` nested `depth` objects deep, built as text (no recursion anywhere). */
function nestedJson(depth: number): string {
  return `${'{"a":'.repeat(depth - 1)}{"a":1}${"}".repeat(depth - 1)}`;
}

function problemPaths(body: any): string[] {
  return (body?.error?.problems ?? []).map((problem: { path: string }) => problem.path);
}

function expectInvalid(response: { status: number; body: any; text: string }, status: number, path?: string): void {
  expect({ status: response.status, code: response.body?.error?.code }, response.text.slice(0, 500)).toEqual({
    status,
    code: "invalid_request",
  });
  if (path !== undefined) expect(problemPaths(response.body)).toContain(path);
}

/** A body of `total` bytes in `chunk`-byte pieces, one piece every few milliseconds; counts what was pulled. */
function slowBody(total: number, chunk = 256 * 1024) {
  const progress = { pulled: 0, finished: false, cancelled: false };
  const piece = new Uint8Array(chunk).fill(0x61);
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      if (progress.pulled >= total) {
        progress.finished = true;
        controller.close();
        return;
      }
      progress.pulled += chunk;
      controller.enqueue(piece);
    },
    cancel() {
      progress.cancelled = true;
    },
  });
  return { stream, progress };
}

async function mcpPost(key: string, body: string): Promise<Response> {
  const request = new Request("http://localhost/api/mcp", {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body,
  });
  return createMcpHandler({ db: getDb })(request);
}

function toolCall(name: string, args: unknown) {
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });
}

describe("JSON body size: 8 MiB, refused while it is read", () => {
  it("refuses one page patch of 40 appends of 1 MB, and the page is unchanged", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const pageId = await newPage(key, kbId, { title: "Doc", markdown: "start" });
    const patch = Array.from({ length: 40 }, () => ({ op: "append", text: "x".repeat(MB) }));
    const response = await api("PATCH", `/knowledgebases/${kbId}/pages/${pageId}`, { key, body: { patch } });
    expectInvalid(response, 413);
    expect(await pageMarkdown(key, kbId, pageId)).toBe("start");
  });

  it("refuses a page over the markdown maximum (a patch result under the body cap, a create, a console save), naming markdown", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    const pageId = await newPage(key, kbId, { title: "Doc", markdown: "start" });
    const piece = "y".repeat(MAX_PAGE_MARKDOWN_CHARS / 2);
    const patch = Array.from({ length: 3 }, () => ({ op: "append", text: piece }));
    const response = await api("PATCH", `/knowledgebases/${kbId}/pages/${pageId}`, { key, body: { patch } });
    expectInvalid(response, 400, "markdown");
    expect(await pageMarkdown(key, kbId, pageId)).toBe("start");
    const revisions = await getDb().pageRevision.count({ where: { pageId } });
    expect(revisions).toBe(1);

    const tooLong = "z".repeat(MAX_PAGE_MARKDOWN_CHARS + 1);
    expectInvalid(
      await api("POST", `/knowledgebases/${kbId}/pages`, { key, body: { title: "Big", markdown: tooLong } }),
      400,
      "markdown",
    );
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const saved = await trpc(
      "mutation",
      "knowledge.savePage",
      { knowledgebaseId: kbId, pageId, markdown: tooLong },
      { cookie },
    );
    expect(saved.status).toBe(400);
    expect(problemPaths({ error: saved.body.error.data.appError })).toContain("markdown");
    expect(await pageMarkdown(key, kbId, pageId)).toBe("start");
    expect(await getDb().page.count({ where: { knowledgebaseId: kbId } })).toBe(1);
  });

  it("answers four concurrent 20 MB bodies with 413 before they are sent in full", async () => {
    const tenant = await newOrganization();
    const kb = await api("POST", "/knowledgebases", { key: tenant.orgKey.secret, body: { name: "Big" } });
    const bodies = Array.from({ length: 4 }, () => slowBody(20 * MB));
    const responses = await Promise.all(
      bodies.map(({ stream }) =>
        restHandler()(
          new Request(`http://localhost/api/v1/knowledgebases/${kb.body.knowledgebase.id}/pages`, {
            method: "POST",
            headers: { authorization: `Bearer ${tenant.orgKey.secret}`, "content-type": "application/json" },
            body: stream,
            duplex: "half",
          } as RequestInit),
        ).then(toApiResponse),
      ),
    );
    for (const [index, response] of responses.entries()) {
      expectInvalid(response, 413);
      const { progress } = bodies[index]!;
      expect(progress.finished).toBe(false);
      expect(progress.cancelled).toBe(true);
      expect(progress.pulled).toBeLessThanOrEqual(MAX_JSON_BODY_BYTES + 2 * 256 * 1024);
    }
    expect(await getDb().page.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  });

  it("answers a declared Content-Length over the cap at once, before authentication", async () => {
    const { stream, progress } = slowBody(20 * MB);
    const response = await toApiResponse(
      await restHandler()(
        new Request(`http://localhost/api/v1/knowledgebases/${randomUUID()}/pages`, {
          method: "POST",
          headers: { "content-type": "application/json", "content-length": String(20 * MB) },
          body: stream,
          duplex: "half",
        } as RequestInit),
      ),
    );
    expectInvalid(response, 413);
    expect(progress.pulled).toBeLessThanOrEqual(2 * 256 * 1024);
  });

  it("refuses an oversized body on the console door, the console chat and MCP", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const big = JSON.stringify({ name: "x".repeat(MAX_JSON_BODY_BYTES) });

    const consoleResponse = await toApiResponse(
      await consoleHandler()(
        new Request("http://localhost/api/trpc/knowledge.create", {
          method: "POST",
          headers: { cookie, "content-type": "application/json" },
          body: big,
        }),
      ),
    );
    expect(consoleResponse.status).toBe(413);

    const chat = await toApiResponse(
      await consoleConversation(
        new Request(`http://localhost/api/console/apps/${randomUUID()}/conversation`, {
          method: "POST",
          headers: { cookie, "content-type": "application/json" },
          body: big,
        }),
        { params: Promise.resolve({ appId: randomUUID() }) },
      ),
    );
    expectInvalid(chat, 413);

    const mcp = await toApiResponse(
      await mcpPost(
        tenant.personalKey.secret,
        toolCall("create_page", { knowledgebaseId: randomUUID(), title: "x".repeat(MAX_JSON_BODY_BYTES) }),
      ),
    );
    expectInvalid(mcp, 413);
    expect(await getDb().knowledgebase.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  });
});

describe("JSON nesting: 64 levels allowed, deeper is 400 anywhere in a body", () => {
  it("takes 64 levels and refuses 65 in flow node data, and 10,000 levels is 400 (never 500)", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const flow = await create(key, "flows");
    const path = `/flows/${flow.id}/draft`;
    // body {1} → nodes [2] → node {3} → data {4} → extra: the rest.
    const body = (depth: number) =>
      `{"nodes":[{"id":"start","type":"trigger_start","data":{"extra":${nestedJson(depth - 4)}}},${JSON.stringify(VALID_NODES.slice(1)).slice(1)}}`;

    const allowed = await api("PATCH", path, { key, rawBody: body(MAX_JSON_DEPTH) });
    expect(allowed.status, allowed.text.slice(0, 300)).toBe(200);

    expectInvalid(await api("PATCH", path, { key, rawBody: body(MAX_JSON_DEPTH + 1) }), 400);
    expectInvalid(await api("PATCH", path, { key, rawBody: body(10_000) }), 400);
    const arrays = `{"nodes":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    expectInvalid(await api("PATCH", path, { key, rawBody: arrays }), 400);
  });

  it("refuses 10,000 levels in app schemas and transaction input", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const app = await create(key, "apps");
    const schemaBody = `{"api":{"inputSchema":${nestedJson(10_000)}}}`;
    expectInvalid(await api("PATCH", `/apps/${app.id}/draft`, { key, rawBody: schemaBody }), 400);
    expectInvalid(
      await api("POST", `/apps/${app.id}/transaction`, { key, rawBody: `{"input":${nestedJson(10_000)}}` }),
      400,
    );
  });

  it("refuses 10,000 levels on the console door and on MCP", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const consoleResponse = await toApiResponse(
      await consoleHandler()(
        new Request("http://localhost/api/trpc/knowledge.create", {
          method: "POST",
          headers: { cookie, "content-type": "application/json" },
          body: `{"name":"x","description":${nestedJson(10_000)}}`,
        }),
      ),
    );
    expect(consoleResponse.status).toBe(400);
    const query = await toApiResponse(
      await consoleHandler()(
        new Request(`http://localhost/api/trpc/knowledge.list?input=${encodeURIComponent(nestedJson(2_000))}`, {
          headers: { cookie },
        }),
      ),
    );
    expect(query.status).toBe(400);

    const mcp = await toApiResponse(
      await mcpPost(
        tenant.personalKey.secret,
        toolCall("create_page", { knowledgebaseId: randomUUID(), title: "t" }).replace('"t"', nestedJson(10_000)),
      ),
    );
    expectInvalid(mcp, 400);
  });
});

describe("text PostgreSQL cannot store (U+0000, lone surrogates): 400 naming the field", () => {
  it("refuses a NUL in a search query with 400, not 503 search_unavailable", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const response = await api("POST", `/knowledgebases/${kbId}/search`, {
      key: tenant.orgKey.secret,
      body: { query: NUL },
    });
    expectInvalid(response, 400, "query");
  });

  it("refuses a NUL in inline source content at the request, and no source is stored", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const response = await api("POST", `/knowledgebases/${kbId}/sources`, {
      key: tenant.orgKey.secret,
      body: { contentText: `hello ${NUL}` },
    });
    expectInvalid(response, 400, "contentText");
    expect(await getDb().source.count({ where: { knowledgebaseId: kbId } })).toBe(0);
  });

  it("refuses lone surrogates in a page title and in a key, and nothing is written", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.orgKey.secret;
    expectInvalid(
      await api("POST", `/knowledgebases/${kbId}/pages`, { key, body: { title: LONE_SURROGATE } }),
      400,
      "title",
    );
    expectInvalid(
      await api("POST", `/knowledgebases/${kbId}/pages`, { key, body: { title: "ok", markdown: "\udc00 trailing" } }),
      400,
      "markdown",
    );
    const keyed = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key,
      rawBody: `{"title":"ok","ti\\u0000tle":"x"}`,
    });
    expectInvalid(keyed, 400);
    expect(await getDb().page.count({ where: { knowledgebaseId: kbId } })).toBe(0);
  });

  it("keeps a well-formed surrogate pair (an emoji)", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const response = await api("POST", `/knowledgebases/${kbId}/pages`, {
      key: tenant.orgKey.secret,
      body: { title: "Ideas 💡", markdown: "🚀" },
    });
    expect(response.status).toBe(201);
  });

  it("refuses a NUL in the multipart upload's name field, and a file name over the title maximum", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const form = new FormData();
    form.append("file", new File(["hello"], "hello.txt", { type: "text/plain" }));
    form.append("name", NUL);
    const response = await toApiResponse(
      await restHandler()(
        new Request(`http://localhost/api/v1/knowledgebases/${kbId}/sources`, {
          method: "POST",
          headers: { authorization: `Bearer ${tenant.orgKey.secret}` },
          body: form,
        }),
      ),
    );
    expectInvalid(response, 400, "name");

    const longName = new FormData();
    longName.append("file", new File(["hello"], `${"n".repeat(400)}.txt`, { type: "text/plain" }));
    const named = await toApiResponse(
      await restHandler()(
        new Request(`http://localhost/api/v1/knowledgebases/${kbId}/sources`, {
          method: "POST",
          headers: { authorization: `Bearer ${tenant.orgKey.secret}` },
          body: longName,
        }),
      ),
    );
    expectInvalid(named, 400, "file");
    expect(await getDb().source.count({ where: { knowledgebaseId: kbId } })).toBe(0);
  });

  it("refuses a NUL on the console door naming the field", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const response = await trpc("mutation", "knowledge.create", { name: NUL }, { cookie });
    expect(response.status).toBe(400);
    expect(response.body.error.data.appError.code).toBe("invalid_request");
    expect(problemPaths({ error: response.body.error.data.appError })).toContain("name");
    expect(await getDb().knowledgebase.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  });

  it("refuses a NUL in an MCP tool's argument with the tool error naming the field", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const response = await mcpPost(
      tenant.personalKey.secret,
      toolCall("create_page", { knowledgebaseId: kbId, title: NUL }),
    );
    const rpc = (await response.json()) as any;
    expect(rpc.result.isError).toBe(true);
    const envelope = JSON.parse(rpc.result.content[0].text);
    expect(envelope.error.code).toBe("invalid_request");
    expect(problemPaths(envelope)).toContain("title");
    expect(await getDb().page.count({ where: { knowledgebaseId: kbId } })).toBe(0);
  });

  it("maps a database refusal of such text to 400 invalid_request, never 500 or 503 (last line of defence)", async () => {
    const db = getDb();
    const viaPrisma = await db.$queryRaw`select ${NUL}::text as value`.catch((error: unknown) => error);
    const viaPool = await db.pool.query("select $1::text as value", [NUL]).catch((error: unknown) => error);
    const viaJson = await db.$queryRawUnsafe(`select '"\\u0000"'::jsonb as value`).catch((error: unknown) => error);
    for (const error of [viaPrisma, viaPool, viaJson]) {
      expect(error).toBeInstanceOf(Error);
      const mapped = toAppError(error);
      expect({ code: mapped.code, status: mapped.status }).toEqual({ code: "invalid_request", status: 400 });
      expect(mapped.message).not.toMatch(/0x00|22021|22P05|byte sequence/);
    }
  });

  it("the CLI answers a text rule's refusal with its JSON error and exit 1", async () => {
    const { execFile } = await import("node:child_process");
    const root = new URL("../..", import.meta.url).pathname;
    const result = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        `${root}node_modules/.bin/tsx`,
        ["src/cli/admin.ts", "org", "create", "--name", "n".repeat(MAX_NAME_CHARS + 1)],
        { cwd: root, env: process.env, timeout: 30_000 },
        (error, stdout) => resolve({ code: error ? Number(error.code) : 0, stdout }),
      );
    });
    expect(result.code).toBe(1);
    const body = JSON.parse(result.stdout);
    expect(body.error.code).toBe("invalid_request");
    expect(problemPaths(body)).toContain("--name");
  });

  it("the CLI refuses a NUL in a flag value with invalid_request naming the flag", () => {
    let thrown: unknown;
    try {
      parseFlags({ name: z.string().min(1) }, ["--name", NUL]);
    } catch (error) {
      thrown = error;
    }
    expect(isAppError(thrown)).toBe(true);
    const body = toAppError(thrown).toBody();
    expect(body.code).toBe("invalid_request");
    expect(problemPaths({ error: body })).toContain("--name");
  });
});

describe("conversation messages: at most 32,000 characters on every door", () => {
  it("REST, the REST stream, the console chat and MCP converse share one maximum", async () => {
    const app = await publishedApp();
    const tooLong = "m".repeat(MAX_MESSAGE_CHARS + 1);
    expectInvalid(
      await api("POST", `/apps/${app.appId}/conversation`, { key: app.key, body: { message: tooLong } }),
      400,
      "message",
    );
    expectInvalid(
      await api("POST", `/apps/${app.appId}/conversation`, { key: app.key, body: { message: tooLong, stream: true } }),
      400,
      "message",
    );
    expectInvalid(
      await api("POST", `/apps/${app.appId}/conversation`, { key: app.key, body: { message: NUL, stream: true } }),
      400,
      "message",
    );

    const cookie = await signInCookie(app.tenant.owner.email, app.tenant.owner.password);
    for (const message of [tooLong, NUL]) {
      const chat = await toApiResponse(
        await consoleConversation(
          new Request(`http://localhost/api/console/apps/${app.appId}/conversation`, {
            method: "POST",
            headers: { cookie, "content-type": "application/json" },
            body: JSON.stringify({ message }),
          }),
          { params: Promise.resolve({ appId: app.appId }) },
        ),
      );
      expectInvalid(chat, 400, "message");
    }

    for (const message of [tooLong, NUL]) {
      const rpc = (await (
        await mcpPost(app.tenant.personalKey.secret, toolCall("converse_with_app", { appId: app.appId, message }))
      ).json()) as any;
      expect(rpc.result.isError).toBe(true);
      const envelope = JSON.parse(rpc.result.content[0].text);
      expect(envelope.error.code).toBe("invalid_request");
      expect(problemPaths(envelope)).toContain("message");
    }
    expect(await getDb().conversation.count({ where: { organizationId: app.tenant.organization.id } })).toBe(0);

    const longest = await api("POST", `/apps/${app.appId}/conversation`, {
      key: app.key,
      body: { message: "m".repeat(MAX_MESSAGE_CHARS) },
    });
    expect(longest.status, longest.text.slice(0, 300)).toBe(200);
  });
});

describe("stored texts have documented maxima in the OpenAPI document", () => {
  it("shows maxLength on titles, markdown, messages and names, and 413 on every JSON body", async () => {
    const doc = (await api("GET", "/openapi.json")).body;
    const bodyOf = (path: string, method: string) =>
      doc.paths[path][method].requestBody.content["application/json"].schema.properties;
    expect(bodyOf("/knowledgebases/{knowledgebaseId}/pages", "post").markdown.maxLength).toBe(MAX_PAGE_MARKDOWN_CHARS);
    expect(bodyOf("/knowledgebases/{knowledgebaseId}/pages", "post").title.maxLength).toBeGreaterThan(0);
    expect(bodyOf("/apps/{appId}/conversation", "post").message.maxLength).toBe(MAX_MESSAGE_CHARS);
    expect(bodyOf("/knowledgebases", "post").name.maxLength).toBeGreaterThan(0);
    expect(bodyOf("/knowledgebases", "post").description.maxLength).toBeGreaterThan(0);
    for (const [path, operations] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        if (operation.requestBody?.content?.["application/json"])
          expect(operation.responses["413"], `${method} ${path}`).toBeDefined();
      }
    }
  });
});
