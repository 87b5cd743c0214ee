// Calling a pinned version of an app (`version` on POST /apps/{appId}/conversation and
// /transaction), over real HTTP through the request listener `npm start` serves: the version
// named runs instead of the live one, only for keys that may also write apps, and only a version
// of that app in that organization.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { addPerson, issueKey, newOrganization, signInCookie, trpc, trpcErrorCode, type Tenant } from "../helpers";
import { create, publish } from "../builder-helpers";
import { listenOnLoopback, type LoopbackServer } from "../loopback-server";
import { mcpSuite } from "../mcp-helpers";
import { credits } from "../runtime-helpers";

const mcp = mcpSuite();
let server: LoopbackServer;
beforeAll(async () => {
  server = await listenOnLoopback(0);
});
afterAll(() => server.close());

async function post(key: string, path: string, body: unknown) {
  const response = await fetch(`${server.base}/api/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const flowAnswering = (word: string) => ({
  name: "Echo",
  inputs: [{ key: "item", label: "Item", type: "text", required: true }],
  nodes: [
    { id: "start", type: "trigger_start", data: {} },
    { id: "out", type: "output", data: { value: `{"item": "{{inputs.item}}", "says": "${word}"}` } },
  ],
});

interface TwoVersions {
  tenant: Tenant;
  key: string;
  appId: string;
  flowId: string;
  first: string;
  second: string;
}

/** An app published twice: its first version's flow says "first", the live (second) one's says "second". */
async function appWithTwoVersions(): Promise<TwoVersions> {
  const tenant = await newOrganization();
  const key = tenant.orgKey.secret;
  const flow = await create(key, "flows", flowAnswering("first"));
  await publish(key, "flows", flow.id);
  const app = await create(key, "apps", {
    name: "Echo app",
    members: [{ id: flow.id, kind: "flow" }],
    orchestrationMode: "sequential",
    api: {
      transactionEnabled: true,
      inputSchema: { type: "object", required: ["item"], properties: { item: { type: "string" } } },
      outputSchema: { type: "object", required: ["says"], properties: { says: { type: "string" } } },
    },
  });
  const first = (await publish(key, "apps", app.id)).version.id as string;
  const patched = await fetch(`${server.base}/api/v1/flows/${flow.id}/draft`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(flowAnswering("second")),
  });
  expect(patched.status).toBe(200);
  await publish(key, "flows", flow.id);
  const second = (await publish(key, "apps", app.id)).version.id as string;
  return { tenant, key, appId: app.id, flowId: flow.id, first, second };
}

describe("version on the conversation and transaction calls", () => {
  it("runs the version named instead of the live one, and records it on the execution", async () => {
    const app = await appWithTwoVersions();
    const live = await post(app.key, `/apps/${app.appId}/transaction`, { input: { item: "a" } });
    expect({ status: live.status, says: live.body.output?.says }).toEqual({ status: 200, says: "second" });

    const pinned = await post(app.key, `/apps/${app.appId}/transaction`, { input: { item: "a" }, version: app.first });
    expect({ status: pinned.status, says: pinned.body.output?.says }).toEqual({ status: 200, says: "first" });

    const turn = await post(app.key, `/apps/${app.appId}/conversation`, { message: "a", version: app.first });
    expect(turn.status).toBe(200);
    expect(turn.body.reply).toContain("first");
    const executions = await getDb().execution.findMany({
      where: { organizationId: app.tenant.organization.id },
      orderBy: { createdAt: "asc" },
      select: { kind: true, versionId: true },
    });
    expect(executions).toEqual([
      { kind: "transaction", versionId: app.second },
      { kind: "transaction", versionId: app.first },
      { kind: "conversation", versionId: app.first },
    ]);
  });

  it("needs apps:write besides apps:execute: 403 insufficient_scope, nothing run or charged", async () => {
    const app = await appWithTwoVersions();
    const executeOnly = await issueKey(app.tenant.operator, { kind: "organization", scopes: ["apps:execute"] });
    const before = await credits(app.tenant);
    for (const [path, body] of [
      [`/apps/${app.appId}/transaction`, { input: { item: "a" }, version: app.first }],
      [`/apps/${app.appId}/conversation`, { message: "a", version: app.first }],
      [`/apps/${app.appId}/conversation`, { message: "a", version: app.first, stream: true }],
    ] as const) {
      const refused = await post(executeOnly.secret, path, body);
      expect({ status: refused.status, code: refused.body.error?.code }).toEqual({
        status: 403,
        code: "insufficient_scope",
      });
    }
    // The live version stays open to the same key.
    expect((await post(executeOnly.secret, `/apps/${app.appId}/transaction`, { input: { item: "a" } })).status).toBe(
      200,
    );
    expect(await credits(app.tenant)).toBe(before - 1);
    expect(await getDb().execution.count({ where: { organizationId: app.tenant.organization.id } })).toBe(1);
  });

  it("a version of another app or organization is 422 version_not_found; an unknown app stays 404", async () => {
    const app = await appWithTwoVersions();
    const other = await appWithTwoVersions();
    const sibling = await create(app.key, "apps", {
      name: "Sibling",
      members: [{ id: app.flowId, kind: "flow" }],
      orchestrationMode: "sequential",
    });
    const siblingVersion = (await publish(app.key, "apps", sibling.id)).version.id as string;
    const before = await credits(app.tenant);
    for (const version of [other.first, siblingVersion, "00000000-0000-4000-8000-000000000000"]) {
      for (const [path, body] of [
        [`/apps/${app.appId}/transaction`, { input: { item: "a" }, version }],
        [`/apps/${app.appId}/conversation`, { message: "a", version }],
      ] as const) {
        const refused = await post(app.key, path, body);
        expect({ status: refused.status, code: refused.body.error?.code }).toEqual({
          status: 422,
          code: "version_not_found",
        });
      }
    }
    const unknownApp = await post(app.key, `/apps/${other.appId}/conversation`, { message: "a", version: other.first });
    expect({ status: unknownApp.status, code: unknownApp.body.error?.code }).toEqual({
      status: 404,
      code: "not_found",
    });
    expect(await credits(app.tenant)).toBe(before);
    expect(await getDb().execution.count({ where: { organizationId: app.tenant.organization.id } })).toBe(0);
  });
});

describe("version through tRPC and MCP", () => {
  it("the console's procedure runs the version named for a member, and refuses a viewer", async () => {
    const app = await appWithTwoVersions();
    const cookie = await signInCookie(app.tenant.owner.email, app.tenant.owner.password);
    const pinned = await trpc(
      "mutation",
      "runtime.transaction",
      { appId: app.appId, input: { item: "a" }, version: app.first },
      { cookie },
    );
    expect(pinned.body.result?.data.output.says).toBe("first");
    const viewer = await addPerson(app.tenant.operator, "viewer");
    const viewerCookie = await signInCookie(viewer.email, viewer.password);
    const refused = await trpc(
      "mutation",
      "runtime.conversation",
      { appId: app.appId, message: "a", version: app.first },
      { cookie: viewerCookie },
    );
    expect({ status: refused.status, code: trpcErrorCode(refused) }).toEqual({ status: 403, code: "forbidden_role" });
    // The live version stays open to the viewer.
    const live = await trpc(
      "mutation",
      "runtime.conversation",
      { appId: app.appId, message: "a" },
      { cookie: viewerCookie },
    );
    expect(live.body.result?.data.reply).toContain("second");
  });

  it("converse_with_app takes version, with the same scope rule", async () => {
    const app = await appWithTwoVersions();
    const client = await mcp.connect(app.tenant.personalKey.secret);
    const result = (await client.callTool({
      name: "converse_with_app",
      arguments: { appId: app.appId, message: "a", version: app.first },
    })) as { isError?: boolean; structuredContent?: { reply: string } };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent?.reply).toContain("first");

    const executeOnly = await issueKey(app.tenant.operator, {
      kind: "personal",
      memberId: app.tenant.owner.member.id,
      scopes: ["apps:execute"],
    });
    const limited = await mcp.connect(executeOnly.secret);
    const refused = (await limited.callTool({
      name: "converse_with_app",
      arguments: { appId: app.appId, message: "a", version: app.first },
    })) as { isError?: boolean; content: { text: string }[] };
    expect(refused.isError).toBe(true);
    expect(JSON.parse(refused.content[0]!.text).error.code).toBe("insufficient_scope");
  });
});
