import { describe, expect, it } from "vitest";
import { api, newOrganization } from "../helpers";
import { create, draft, publish } from "../builder-helpers";

describe("smoke", () => {
  it("creates, publishes, reads", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents", { name: "Helper" });
    expect(agent).toMatchObject({ name: "Helper", slug: "helper", published: false, versionCount: 0, model: "atrium-offline" });
    const p = await publish(key, "agents", agent.id, { notes: "first" });
    expect(p.version).toMatchObject({ number: 1, isProduction: true, notes: "first", source: "api" });
    const live = await api("GET", `/agents/${agent.id}`, { key });
    expect(live.status).toBe(200);
    const list = await api("GET", `/agents`, { key });
    expect(list.body).toMatchObject({ agents: [{ id: agent.id, name: "Helper" }], nextCursor: null });
    const flow = await create(key, "flows");
    expect((await draft(key, "flows", flow.id)).nodes).toHaveLength(3);
    const del = await api("DELETE", `/flows/${flow.id}`, { key });
    expect(del.status).toBe(204);
    const doc = await api("GET", "/openapi.json");
    expect(doc.body.paths["/agents/{agentId}/versions/{versionId}/deploy"].post).toBeTruthy();
  });
});
