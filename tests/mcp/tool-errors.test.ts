// MCP tool errors as official clients read them: the SDK client lists the tools first (so it
// checks every structured result against the tool's output schema, as real clients do), then
// each failing call must come back `isError: true` with the REST envelope as its text and no
// `structuredContent`. An unknown tool stays a JSON-RPC error.
import { randomUUID } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { addPerson, api, issueKey, newOrganization } from "../helpers";
import { tenantWithKnowledgebase } from "../knowledge-helpers";
import { mcpSuite } from "../mcp-helpers";
import { publishedApp } from "../runtime-helpers";

const mcp = mcpSuite();

/** A client that has listed the tools, as Claude, Cursor and the MCP Inspector do. */
async function listingClient(key: string): Promise<Client> {
  const client = await mcp.connect(key);
  const { tools } = await client.listTools();
  expect(tools.length).toBeGreaterThan(0);
  return client;
}

/** Calls a tool that must fail and reads Atrium's envelope from the text content. */
async function failure(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text: string }[];
    structuredContent?: unknown;
  };
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  expect(result.content).toHaveLength(1);
  expect(result.content[0]!.type).toBe("text");
  const envelope = JSON.parse(result.content[0]!.text) as {
    error: { code: string; message: string; [extra: string]: unknown };
  };
  expect(typeof envelope.error.message).toBe("string");
  expect(envelope.error.message.length).toBeGreaterThan(0);
  return envelope.error;
}

describe("failing tool calls, read by the official SDK client after tools/list", () => {
  it("answers each failure as an MCP tool error whose text is the REST envelope", async () => {
    const { tenant, kbId } = await tenantWithKnowledgebase();
    const owner = await listingClient(tenant.personalKey.secret);
    const seen = new Set<string>();
    const expectCode = async (client: Client, name: string, args: Record<string, unknown>, code: string) => {
      const error = await failure(client, name, args);
      expect(error.code, `${name} ${JSON.stringify(args)}`).toBe(code);
      seen.add(code);
      return error;
    };

    await expectCode(owner, "get_knowledgebase", { knowledgebaseId: randomUUID() }, "not_found");
    await expectCode(owner, "get_page", { knowledgebaseId: kbId, pageId: randomUUID() }, "not_found");
    const invalid = await expectCode(owner, "create_page", { knowledgebaseId: kbId }, "invalid_request");
    expect(invalid.problems).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: expect.stringContaining("title") })]),
    );

    const readOnly = await issueKey(tenant.operator, {
      kind: "personal",
      memberId: tenant.owner.member.id,
      scopes: ["knowledge:read"],
    });
    await expectCode(
      await listingClient(readOnly.secret),
      "create_page",
      { knowledgebaseId: kbId, title: "Nope" },
      "insufficient_scope",
    );

    const viewer = await addPerson(tenant.operator, "viewer");
    const viewerKey = await issueKey(tenant.operator, { kind: "personal", memberId: viewer.member.id });
    await expectCode(
      await listingClient(viewerKey.secret),
      "create_page",
      { knowledgebaseId: kbId, title: "Nope" },
      "forbidden_role",
    );

    // Nothing was written by any refusal.
    const pages = await api("GET", `/knowledgebases/${kbId}`, { key: tenant.orgKey.secret });
    expect((pages.body as any).pages).toEqual([]);

    const capped = await tenantWithKnowledgebase({ settings: { maxSourcesPerKnowledgebase: 0 } });
    const cappedClient = await listingClient(capped.tenant.personalKey.secret);
    const limit = await expectCode(
      cappedClient,
      "add_source",
      { knowledgebaseId: capped.kbId, contentText: "Hello" },
      "plan_limit",
    );
    expect(limit).toMatchObject({ limit: 0, used: 0 });

    const broke = await tenantWithKnowledgebase({ credits: 0 });
    await expectCode(
      await listingClient(broke.tenant.personalKey.secret),
      "search_knowledgebase",
      { knowledgebaseId: broke.kbId, query: "refund", kinds: ["sources"] },
      "insufficient_credits",
    );

    const silent = await publishedApp({ app: { api: { conversationEnabled: false } } });
    await expectCode(
      await listingClient(silent.tenant.personalKey.secret),
      "converse_with_app",
      { appId: silent.appId, message: "Hello" },
      "service_disabled",
    );

    const orphaned = await publishedApp();
    expect((await api("DELETE", `/agents/${orphaned.supportAgentId}`, { key: orphaned.key })).status).toBe(204);
    const dependencies = await expectCode(
      await listingClient(orphaned.tenant.personalKey.secret),
      "converse_with_app",
      { appId: orphaned.appId, message: "Hello" },
      "unpublished_dependencies",
    );
    expect(dependencies.dependencies).toEqual([
      expect.objectContaining({ id: orphaned.supportAgentId, kind: "agent" }),
    ]);

    expect(seen.size).toBeGreaterThanOrEqual(8);
  });

  it("keeps successful results structured and valid against the listed output schema", async () => {
    const { tenant } = await tenantWithKnowledgebase();
    const client = await listingClient(tenant.personalKey.secret);
    const result = await client.callTool({ name: "list_knowledgebases", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as any).knowledgebases).toHaveLength(1);
  });

  it("keeps an unknown tool a JSON-RPC error", async () => {
    const tenant = await newOrganization();
    const client = await listingClient(tenant.personalKey.secret);
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/no_such_tool/);
  });
});
