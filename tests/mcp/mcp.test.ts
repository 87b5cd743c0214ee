// The MCP server at /api/mcp, through the SDK's own client over real HTTP: tool listing, every
// tool's success path, resources, the key checks as HTTP errors in Atrium's envelope, review
// mode, scope and role failures as tool errors with REST's codes.
import { randomUUID } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { addPerson, api, awayFromWindowEdge, issueKey, newOrganization } from "../helpers";
import { create, publish } from "../builder-helpers";
import { newPage, pageMarkdown, tenantWithKnowledgebase } from "../knowledge-helpers";
import { connectClient, mcpSuite, structured } from "../mcp-helpers";

const mcp = mcpSuite();

const connect = (key: string): Promise<Client> => mcp.connect(key);

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return client.callTool({ name, arguments: args });
}

async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await call(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return structured(result);
}

function errorOf(result: unknown): { code: string; message: string } {
  const value = result as { isError?: boolean; content: { type: string; text: string }[] };
  expect(value.isError).toBe(true);
  expect(structured(result)).toBeUndefined();
  return JSON.parse(value.content[0]!.text).error;
}

/** A raw JSON-RPC initialize over HTTP, for the status, headers and body of refusals. */
async function rawInitialize(key: string | undefined) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  if (key) headers.authorization = `Bearer ${key}`;
  const response = await fetch(mcp.url(), {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

describe("tools", () => {
  it("lists every tool with a description and a JSON schema taken from the REST input schemas", async () => {
    const tenant = await newOrganization();
    const client = await connect(tenant.personalKey.secret);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        "add_source",
        "converse_with_app",
        "create_page",
        "edit_page",
        "get_knowledgebase",
        "get_page",
        "list_apps",
        "list_knowledgebases",
        "move_page",
        "search_knowledgebase",
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe("object");
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.create_page!.inputSchema.required).toEqual(expect.arrayContaining(["knowledgebaseId", "title"]));
    expect(byName.create_page!.inputSchema.additionalProperties).toBe(false);
    expect(byName.edit_page!.inputSchema.required).toEqual(
      expect.arrayContaining(["knowledgebaseId", "pageId", "patch"]),
    );
    expect(JSON.stringify(byName.edit_page!.inputSchema)).toContain("replace_range");
    expect(byName.search_knowledgebase!.inputSchema.required).toEqual(["knowledgebaseId", "query"]);
    expect(byName.get_page!.annotations).toMatchObject({ readOnlyHint: true });
    const converse = byName.converse_with_app!.inputSchema;
    expect(Object.keys(converse.properties!).sort()).toEqual([
      "appId",
      "conversation_id",
      "fileIds",
      "message",
      "version",
    ]);
    expect(converse.required).toEqual(["appId", "message"]);
    expect(byName.converse_with_app!.outputSchema!.required).toEqual(["reply", "conversation_id", "greeting"]);
    expect(byName.edit_page!.outputSchema!.required).toEqual(expect.arrayContaining(["status", "page", "reviewPath"]));
    // Every tool says what it answers.
    expect(tools.filter((tool) => !tool.outputSchema).map((tool) => tool.name)).toEqual([]);
    expect(byName.list_apps!.outputSchema!.required).toEqual(["apps", "nextCursor"]);
    // A stateless server has nobody to tell that the page list changed, and does not claim to.
    expect(client.getServerCapabilities()?.resources?.listChanged).not.toBe(true);
  });

  it("reads, searches and writes knowledge with a personal key, answering what REST answers", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const key = tenant.personalKey.secret;
    const client = await connect(key);

    const listed = await ok(client, "list_knowledgebases");
    expect(listed).toMatchObject({ knowledgebases: [{ id: kbId, name: "Handbook" }], nextCursor: null });

    const folder = await ok(client, "create_page", { knowledgebaseId: kbId, title: "Guides", isFolder: true });
    const created = await ok(client, "create_page", {
      knowledgebaseId: kbId,
      title: "Onboarding",
      markdown: "# Onboarding\n\nAsk for a laptop.\n",
      hook: "First week",
    });
    expect(created).toMatchObject({
      status: "applied",
      reviewPath: null,
      page: { knowledgebaseId: kbId, title: "Onboarding" },
    });
    const pageId = created.page.id as string;

    const edited = await ok(client, "edit_page", {
      knowledgebaseId: kbId,
      pageId,
      patch: [
        { op: "replace", oldString: "a laptop", newString: "a zebracorn laptop" },
        { op: "append", text: "Meet the team." },
      ],
    });
    expect(edited.status).toBe("applied");
    expect(await pageMarkdown(key, kbId, pageId)).toBe("# Onboarding\n\nAsk for a zebracorn laptop.\nMeet the team.");

    const moved = await ok(client, "move_page", { knowledgebaseId: kbId, pageId, parentPageId: folder.page.id });
    expect(moved.page).toMatchObject({ id: pageId, parentPageId: folder.page.id });

    const page = await ok(client, "get_page", { knowledgebaseId: kbId, pageId });
    expect(page).toMatchObject({
      id: pageId,
      title: "Onboarding",
      parentPageId: folder.page.id,
      markdown: "# Onboarding\n\nAsk for a zebracorn laptop.\nMeet the team.",
    });

    const knowledgebase = await ok(client, "get_knowledgebase", { knowledgebaseId: kbId });
    expect(knowledgebase.pages.find((entry: any) => entry.id === pageId)).toMatchObject({
      path: ["Guides", "Onboarding"],
      hook: "First week",
    });

    const search = await ok(client, "search_knowledgebase", {
      knowledgebaseId: kbId,
      query: "zebracorn",
      kinds: ["pages"],
    });
    expect(search.results).toEqual([expect.objectContaining({ kind: "page", id: pageId, title: "Onboarding" })]);

    const source = await ok(client, "add_source", {
      knowledgebaseId: kbId,
      name: "Policy",
      contentText: "Holidays: 25 days a year.",
    });
    // Labelled with the door it came through, in the audit log's words (it once said `api`).
    expect(source).toMatchObject({
      status: "processing",
      reviewPath: null,
      source: { name: "Policy", createdVia: "mcp" },
    });

    // A bad argument answers the REST code, with the field named.
    const invalid = errorOf(
      await call(client, "edit_page", {
        knowledgebaseId: kbId,
        pageId,
        patch: [{ op: "replace", oldString: "not there", newString: "x" }],
      }),
    );
    expect(invalid.code).toBe("invalid_request");
    expect(errorOf(await call(client, "get_page", { knowledgebaseId: kbId, pageId: "nope" })).code).toBe(
      "invalid_request",
    );
    expect(errorOf(await call(client, "get_page", { knowledgebaseId: kbId, pageId: randomUUID() })).code).toBe(
      "not_found",
    );
  });

  it("search_knowledgebase of another organization's knowledgebase: not_found, as REST answers it, nothing charged", async () => {
    const victim = await tenantWithKnowledgebase();
    await newPage(victim.tenant.orgKey.secret, victim.kbId, { title: "Vault", markdown: "The zebra code is 4411." });
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const credits = async () =>
      (await getDb().organization.findUniqueOrThrow({ where: { id: tenant.organization.id } })).credits;
    const before = await credits();
    const client = await connect(tenant.personalKey.secret);
    for (const kinds of [["pages"], ["sources"], undefined]) {
      const args = { knowledgebaseId: victim.kbId, query: "zebra code", ...(kinds && { kinds }) };
      expect(errorOf(await call(client, "search_knowledgebase", args)).code).toBe("not_found");
      // The REST door of the same listener.
      const rest = await fetch(mcp.url().replace(/\/api\/mcp$/, `/api/v1/knowledgebases/${victim.kbId}/search`), {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.orgKey.secret}`, "content-type": "application/json" },
        body: JSON.stringify({ query: "zebra code", ...(kinds && { kinds }) }),
      });
      expect({ status: rest.status, code: ((await rest.json()) as any).error?.code }).toEqual({
        status: 404,
        code: "not_found",
      });
    }
    expect(await credits()).toBe(before);
    // Its own knowledgebase's search is charged: the refusals above were free, not every search.
    await ok(client, "search_knowledgebase", { knowledgebaseId: kbId, query: "zebra code" });
    expect(await credits()).toBeLessThan(before);
  });

  it("lists published apps only", async () => {
    const tenant = await newOrganization();
    const published = await create(tenant.orgKey.secret, "apps", { name: "Helpdesk" });
    await publish(tenant.orgKey.secret, "apps", published.id);
    await create(tenant.orgKey.secret, "apps", { name: "Draft only" });
    const client = await connect(tenant.personalKey.secret);
    const listed = await ok(client, "list_apps");
    expect(listed.apps.map((app: any) => app.name)).toEqual(["Helpdesk"]);
    expect(listed.apps[0]).toMatchObject({ id: published.id });
  });

  it("converse_with_app maps the runtime's AppError to an error result, and checks apps:execute first", async () => {
    const tenant = await newOrganization();
    const client = await connect(tenant.personalKey.secret);
    expect(errorOf(await call(client, "converse_with_app", { appId: randomUUID(), message: "Hello" })).code).toBe(
      "not_found",
    );
    expect(errorOf(await call(client, "converse_with_app", { appId: "x", message: "" })).code).toBe("invalid_request");

    const noExecute = await issueKey(tenant.operator, {
      kind: "personal",
      memberId: tenant.owner.member.id,
      scopes: ["apps:read"],
    });
    const limited = await connect(noExecute.secret);
    expect(errorOf(await call(limited, "converse_with_app", { appId: randomUUID(), message: "Hello" })).code).toBe(
      "insufficient_scope",
    );
  });
});

describe("converse_with_app against the runtime", () => {
  it("talks to a published app and continues the conversation", async () => {
    const { publishedApp } = await import("../runtime-helpers");
    const app = await publishedApp();
    const client = await connect(app.tenant.personalKey.secret);
    const first = await ok(client, "converse_with_app", { appId: app.appId, message: "How long do refunds take?" });
    expect(first).toEqual({
      reply: expect.stringContaining("14 days"),
      conversation_id: expect.any(String),
      greeting: "Hello! How can I help?",
    });
    const second = await ok(client, "converse_with_app", {
      appId: app.appId,
      message: "And shipping?",
      conversation_id: first.conversation_id,
    });
    expect(second.conversation_id).toBe(first.conversation_id);
  });
});

describe("resources", () => {
  it("lists pages as atrium:// resources and reads one as markdown", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const pageId = await newPage(tenant.orgKey.secret, kbId, { title: "Pricing", markdown: "Pro costs 20." });
    const client = await connect(tenant.personalKey.secret);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      "atrium://knowledgebases/{knowledgebaseId}/pages/{pageId}",
    ]);
    const uri = `atrium://knowledgebases/${kbId}/pages/${pageId}`;
    const { resources } = await client.listResources();
    expect(resources).toEqual([
      expect.objectContaining({ uri, name: "Handbook / Pricing", mimeType: "text/markdown" }),
    ]);
    const read = await client.readResource({ uri });
    expect(read.contents).toEqual([{ uri, mimeType: "text/markdown", text: "Pro costs 20." }]);
    const missing = await client
      .readResource({ uri: `atrium://knowledgebases/${kbId}/pages/${randomUUID()}` })
      .catch((error: Error) => error);
    expect(missing).toBeInstanceOf(Error);
    // The client adds "MCP error <code>: " once; the server's own message does not carry it too.
    expect((missing as Error).message).toMatch(/^MCP error -32002: not_found: /);
  });
});

describe("authentication and authorization", () => {
  it("refuses an organization key with 403 member_key_required in the envelope, before any MCP handling", async () => {
    const tenant = await newOrganization();
    const response = await rawInitialize(tenant.orgKey.secret);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: { code: "member_key_required", message: expect.any(String) } });
    expect(response.headers.get("x-request-id")).toBeTruthy();
    await expect(connectClient(mcp.url(), tenant.orgKey.secret)).rejects.toThrow(/403|member_key_required/);
  });

  it("answers unauthorized, invalid_api_key and feature_not_available as HTTP envelopes", async () => {
    const missing = await rawInitialize(undefined);
    expect(missing).toMatchObject({ status: 401, body: { error: { code: "unauthorized" } } });
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="atrium"');
    const unknown = await rawInitialize("sk_mem_unknown");
    expect(unknown).toMatchObject({ status: 401, body: { error: { code: "invalid_api_key" } } });
    expect(unknown.headers.get("www-authenticate")).toBe('Bearer realm="atrium", error="invalid_token"');
    const free = await newOrganization({ plan: "free" });
    expect(await rawInitialize(free.personalKey.secret)).toMatchObject({
      status: 403,
      body: { error: { code: "feature_not_available" } },
    });
  });

  it("answers api_disabled when the MCP server is off for the organization", async () => {
    const tenant = await newOrganization({ settings: { mcpEnabled: false } });
    const response = await rawInitialize(tenant.personalKey.secret);
    expect(response).toMatchObject({ status: 403, body: { error: { code: "api_disabled" } } });
    expect(response.body.error.message).toMatch(/MCP/);
  });

  it("carries the rate-limit and request-id headers on MCP answers, and takes only POST", async () => {
    const tenant = await newOrganization();
    const response = await rawInitialize(tenant.personalKey.secret);
    expect(response.status).toBe(200);
    expect(response.body.result.serverInfo.name).toBe("atrium");
    expect(response.headers.get("ratelimit-limit")).toBeTruthy();
    expect(response.headers.get("x-request-id")).toBeTruthy();
    const get = await fetch(mcp.url(), {
      headers: { authorization: `Bearer ${tenant.personalKey.secret}`, accept: "text/event-stream" },
    });
    expect(get.status).toBe(405);
    expect(((await get.json()) as any).error.code).toBe("method_not_allowed");
  });

  it("counts MCP requests against the key's one rate limit, shared with REST", async () => {
    const tenant = await newOrganization();
    await awayFromWindowEdge(5);
    const first = await rawInitialize(tenant.personalKey.secret);
    const remaining = Number(first.headers.get("ratelimit-remaining"));
    const rest = await api("GET", "/knowledgebases", { key: tenant.personalKey.secret });
    expect(Number(rest.headers.get("ratelimit-remaining"))).toBe(remaining - 1);
    const again = await rawInitialize(tenant.personalKey.secret);
    expect(Number(again.headers.get("ratelimit-remaining"))).toBe(remaining - 2);
  });

  it("gives insufficient_scope and forbidden_role as tool errors with REST's codes", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const readOnly = await issueKey(tenant.operator, {
      kind: "personal",
      memberId: tenant.owner.member.id,
      scopes: ["knowledge:read"],
    });
    const reader = await connect(readOnly.secret);
    expect(errorOf(await call(reader, "create_page", { knowledgebaseId: kbId, title: "Nope" })).code).toBe(
      "insufficient_scope",
    );
    // Scope comes before validation, as on REST.
    expect(errorOf(await call(reader, "create_page", {})).code).toBe("insufficient_scope");

    const viewer = await addPerson(tenant.operator, "viewer");
    const viewerKey = await issueKey(tenant.operator, { kind: "personal", memberId: viewer.member.id });
    const viewing = await connect(viewerKey.secret);
    expect(errorOf(await call(viewing, "create_page", { knowledgebaseId: kbId, title: "Nope" })).code).toBe(
      "forbidden_role",
    );
    expect((await ok(viewing, "list_knowledgebases")).knowledgebases).toHaveLength(1);
  });
});

describe("review mode", () => {
  it("makes MCP page and source writes pending_review, as REST does", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase({ settings: { reviewAgentWrites: true } });
    const client = await connect(tenant.personalKey.secret);
    const created = await ok(client, "create_page", {
      knowledgebaseId: kbId,
      title: "Proposal",
      markdown: "Draft text.",
    });
    expect(created).toMatchObject({ status: "pending_review", reviewPath: expect.stringMatching(/^\/reviews\//) });
    expect(await pageMarkdown(tenant.orgKey.secret, kbId, created.page.id)).toBe("");

    const source = await ok(client, "add_source", { knowledgebaseId: kbId, contentText: "Some text." });
    expect(source).toMatchObject({ status: "pending_review", reviewPath: expect.stringMatching(/^\/reviews\//) });
  });

  it("makes an edit pending_review, leaving the live page untouched", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const pageId = await newPage(tenant.orgKey.secret, kbId, { title: "Live", markdown: "Original." });
    const { updateOrganization } = await import("@/server/services/org/organizations");
    const { getDb } = await import("@/server/db");
    await updateOrganization(getDb(), tenant.operator, { reviewAgentWrites: true });
    const client = await connect(tenant.personalKey.secret);
    const edited = await ok(client, "edit_page", {
      knowledgebaseId: kbId,
      pageId,
      patch: [{ op: "append", text: " More." }],
    });
    expect(edited).toMatchObject({ status: "pending_review", reviewPath: expect.stringMatching(/^\/reviews\//) });
    expect(await pageMarkdown(tenant.orgKey.secret, kbId, pageId)).toBe("Original.");
  });
});
