// One rule for references, as for groups and end users: a draft naming an agent, flow,
// knowledgebase or MCP connection the organization does not have (missing, or another
// organization's) answers 422 `<kind>_not_found` with `problems`, and nothing is written; the
// OpenAPI document lists those codes on the operations that can answer them.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { openApiDocument } from "@/server/openapi";
import { api, expectError, newOrganization } from "../helpers";
import { create, draft, patchDraft } from "../builder-helpers";

describe("references to what the organization does not have", () => {
  it("an app's adviser and members: agent_not_found and flow_not_found, on create and on PATCH; nothing written", async () => {
    const t = await newOrganization();
    const other = await newOrganization();
    const key = t.orgKey.secret;
    const theirAgent = await create(other.orgKey.secret, "agents");
    const before = await getDb().builderItem.count({ where: { organizationId: t.organization.id } });

    const created = expectError(
      await api("POST", "/apps", { key, body: { name: "Desk", adviser: { id: randomUUID() } } }),
      422,
      "agent_not_found",
    );
    expect(created.problems).toEqual([{ path: "adviser.id", message: expect.any(String) }]);
    expectError(
      await api("POST", "/apps", { key, body: { name: "Desk", members: [{ id: theirAgent.id, kind: "agent" }] } }),
      422,
      "agent_not_found",
    );
    expect(await getDb().builderItem.count({ where: { organizationId: t.organization.id } })).toBe(before);

    const app = await create(key, "apps");
    const flowMissing = expectError(
      await patchDraft(key, "apps", app.id, { members: [{ id: randomUUID(), kind: "flow" }] }),
      422,
      "flow_not_found",
    );
    expect(flowMissing.problems.map((p: { path: string }) => p.path)).toEqual(["members.0.id"]);
    expect(await draft(key, "apps", app.id)).toMatchObject({ adviser: null, members: [] });
  });

  it("an agent's flows, knowledge and MCP toolkits: flow_not_found, knowledgebase_not_found, mcp_connection_not_found", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents", { name: "Kept" });
    const cases = [
      [{ flows: [randomUUID()] }, "flow_not_found", "flows.0"],
      [{ knowledge: [{ knowledgebaseId: randomUUID() }] }, "knowledgebase_not_found", "knowledge.0.knowledgebaseId"],
      [
        { integrations: [{ toolkit: "nowhere", name: "Nowhere", selectedTools: [] }] },
        "mcp_connection_not_found",
        "integrations.0.toolkit",
      ],
    ] as const;
    for (const [body, code, path] of cases) {
      const refused = expectError(await patchDraft(key, "agents", agent.id, { ...body, name: "Changed" }), 422, code);
      expect(refused.problems.map((p: { path: string }) => p.path)).toEqual([path]);
      expect(refused.message).toContain("Nothing was written");
    }
    expect(await draft(key, "agents", agent.id)).toMatchObject({
      name: "Kept",
      flows: [],
      knowledge: [],
      integrations: [],
    });
  });

  it("the document lists the codes on the operations that answer them", () => {
    const paths = openApiDocument().paths as Record<
      string,
      Record<string, { responses: Record<string, { $ref?: string }> }>
    >;
    const responses = openApiDocument().components!.responses as Record<string, unknown>;
    const codesOf = (path: string, method: string) =>
      JSON.stringify(responses[paths[path]![method]!.responses["422"]!.$ref!.split("/").pop()!]);
    for (const [path, method] of [
      ["/apps", "post"],
      ["/apps/{appId}/draft", "patch"],
    ] as const)
      for (const code of ["agent_not_found", "flow_not_found"])
        expect(codesOf(path, method), `${method} ${path}`).toContain(code);
    for (const [path, method] of [
      ["/agents", "post"],
      ["/agents/{agentId}/draft", "patch"],
      ["/agents/{agentId}/publish", "post"],
    ] as const)
      for (const code of ["flow_not_found", "knowledgebase_not_found", "mcp_connection_not_found"])
        expect(codesOf(path, method), `${method} ${path}`).toContain(code);
  });
});
