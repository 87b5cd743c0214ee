// Apps: adviser and members (read back with names), ordering, orchestration modes, the API
// config (merged on PATCH), unpublished_dependencies, and member pinning at publish time.
import { describe, expect, it } from "vitest";
import { api, expectError, newOrganization } from "../helpers";
import { create, draft, expectStatus, patchDraft, publish } from "../builder-helpers";

describe("app drafts", () => {
  it("creates an app with defaults; members come back ordered by position with names", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const app = await create(key, "apps", { name: "Desk" });
    expect(app).toMatchObject({
      slug: "desk",
      adviser: null,
      members: [],
      orchestrationMode: "supervisor",
      goals: "",
      adviserInstructions: "",
      api: {
        conversationEnabled: true,
        transactionEnabled: false,
        greeting: "",
        inputSchema: { type: "object" },
        outputSchema: { type: "object" },
      },
      published: false,
      versionCount: 0,
    });
    const adviser = await create(key, "agents", { name: "Boss" });
    const writer = await create(key, "agents", { name: "Writer" });
    const flow = await create(key, "flows", { name: "Lookup" });
    const updated = expectStatus(
      await patchDraft(key, "apps", app.id, {
        adviser: { id: adviser.id },
        members: [
          { id: writer.id, kind: "agent", position: 2 },
          { id: flow.id, kind: "flow", position: 1 },
        ],
        orchestrationMode: "sequential",
        goals: "Answer customers",
        adviserInstructions: "Be brief",
      }),
      200,
    ).body.app;
    expect(updated).toMatchObject({
      adviser: { id: adviser.id, name: "Boss", published: false },
      members: [
        { id: flow.id, kind: "flow", name: "Lookup", published: false, position: 1 },
        { id: writer.id, kind: "agent", name: "Writer", published: false, position: 2 },
      ],
      orchestrationMode: "sequential",
      goals: "Answer customers",
    });
    const reordered = expectStatus(
      await patchDraft(key, "apps", app.id, {
        members: [
          { id: writer.id, kind: "agent" },
          { id: flow.id, kind: "flow" },
        ],
      }),
      200,
    ).body.app;
    expect(reordered.members.map((m: { id: string; position: number }) => [m.id, m.position])).toEqual([
      [writer.id, 0],
      [flow.id, 1],
    ]);
    expect(reordered.adviser.id).toBe(adviser.id);
    const cleared = expectStatus(await patchDraft(key, "apps", app.id, { adviser: null }), 200).body.app;
    expect(cleared.adviser).toBeNull();
    expect(cleared.members).toHaveLength(2);
  });

  it("api merges the fields passed; JSON Schemas must look like JSON Schemas", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const app = await create(key, "apps", { api: { greeting: "Hello" } });
    const schema = { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] };
    const updated = expectStatus(
      await patchDraft(key, "apps", app.id, { api: { transactionEnabled: true, inputSchema: schema } }),
      200,
    ).body.app;
    expect(updated.api).toEqual({
      conversationEnabled: true,
      transactionEnabled: true,
      greeting: "Hello",
      inputSchema: schema,
      outputSchema: { type: "object" },
    });
    const bad = expectError(
      await patchDraft(key, "apps", app.id, { api: { outputSchema: { type: 5, required: "amount" } } }),
      400,
      "invalid_request",
    );
    expect(bad.problems.map((p: { path: string }) => p.path)).toEqual(["api.outputSchema", "api.outputSchema"]);
    expectError(await patchDraft(key, "apps", app.id, { orchestrationMode: "anarchy" }), 400, "invalid_request");
  });

  it("a schema the transaction validator cannot compile is refused when written, not at every transaction", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const app = await create(key, "apps");
    for (const inputSchema of [
      { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" },
      { type: "object", properties: { amount: { type: "nummber" } } },
      { type: "object", properties: { code: { type: "string", pattern: "([a-z" } } },
    ]) {
      const error = expectError(
        await patchDraft(key, "apps", app.id, { api: { inputSchema } }),
        400,
        "invalid_request",
      );
      expect(error.problems).toEqual([
        { path: "api.inputSchema", message: expect.stringMatching(/^Not a usable JSON Schema/) },
      ]);
    }
    // Compiling grows faster than the schema: one past the bound is refused at once, uncompiled.
    const properties = Object.fromEntries(
      Array.from({ length: 2_000 }, (_, i) => [`field${i}`, { type: "string", pattern: "^[a-z]+$" }]),
    );
    const started = performance.now();
    const large = expectError(
      await patchDraft(key, "apps", app.id, { api: { outputSchema: { type: "object", properties } } }),
      400,
      "invalid_request",
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(large.problems).toEqual([{ path: "api.outputSchema", message: expect.stringMatching(/^Too large/) }]);
    expect(await draft(key, "apps", app.id)).toMatchObject({
      api: { inputSchema: { type: "object" }, outputSchema: { type: "object" } },
    });
    // The same schema twice, and one with an $id, stay writable.
    const withId = { $id: "https://example.com/refund.json", type: "object" };
    for (let i = 0; i < 2; i++)
      expectStatus(await patchDraft(key, "apps", app.id, { api: { inputSchema: withId, outputSchema: withId } }), 200);
  });

  it("adviser must be an agent and members must exist with their kind, once each (a repeat is invalid_request first)", async () => {
    const t = await newOrganization();
    const other = await newOrganization();
    const key = t.orgKey.secret;
    const app = await create(key, "apps");
    const flow = await create(key, "flows");
    const agent = await create(key, "agents");
    const foreign = await create(other.orgKey.secret, "agents");
    const error = expectError(
      await patchDraft(key, "apps", app.id, {
        adviser: { id: flow.id },
        members: [
          { id: flow.id, kind: "agent" },
          { id: foreign.id, kind: "agent" },
          { id: agent.id, kind: "agent" },
          { id: agent.id, kind: "agent" },
        ],
      }),
      400,
      "invalid_request",
    );
    expect(error.problems.map((p: { path: string }) => p.path)).toEqual(["members.3.id"]);
    const missing = expectError(
      await patchDraft(key, "apps", app.id, {
        adviser: { id: flow.id },
        members: [
          { id: flow.id, kind: "agent" },
          { id: foreign.id, kind: "agent" },
          { id: agent.id, kind: "agent" },
        ],
      }),
      422,
      "agent_not_found",
    );
    expect(missing.problems.map((p: { path: string }) => p.path)).toEqual([
      "adviser.id",
      "members.0.id",
      "members.1.id",
    ]);
    expect(await draft(key, "apps", app.id)).toMatchObject({ adviser: null, members: [] });
  });
});

describe("app publishing", () => {
  it("an unpublished adviser or member gives unpublished_dependencies listing them; nothing written", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const adviser = await create(key, "agents", { name: "Adviser" });
    const member = await create(key, "agents", { name: "Member" });
    const flow = await create(key, "flows", { name: "Flow" });
    await publish(key, "flows", flow.id);
    const app = await create(key, "apps", {
      adviser: { id: adviser.id },
      members: [
        { id: member.id, kind: "agent" },
        { id: flow.id, kind: "flow" },
      ],
    });
    const error = expectError(
      await api("POST", `/apps/${app.id}/publish`, { key, body: {} }),
      422,
      "unpublished_dependencies",
    );
    expect(error.dependencies).toEqual([
      { id: adviser.id, kind: "agent", name: "Adviser" },
      { id: member.id, kind: "agent", name: "Member" },
    ]);
    expect(await draft(key, "apps", app.id)).toMatchObject({
      versionCount: 0,
      published: false,
      updatedAt: app.updatedAt,
    });
    expect((await api("GET", `/apps/${app.id}/versions`, { key })).body.versions).toEqual([]);
    await publish(key, "agents", adviser.id);
    await publish(key, "agents", member.id);
    expect((await publish(key, "apps", app.id)).version.number).toBe(1);
  });

  it("pins members at their production version; later member publishes reach the app only when it is republished", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const member = await create(key, "agents", { name: "Member v1" });
    const m1 = await publish(key, "agents", member.id);
    const adviser = await create(key, "agents", { name: "Adviser" });
    const a1 = await publish(key, "agents", adviser.id);
    const app = await create(key, "apps", { adviser: { id: adviser.id }, members: [{ id: member.id, kind: "agent" }] });
    const app1 = await publish(key, "apps", app.id);

    await patchDraft(key, "agents", member.id, { name: "Member v2" });
    const m2 = await publish(key, "agents", member.id);
    const live = expectStatus(await api("GET", `/apps/${app.id}`, { key }), 200).body.app;
    expect(live.adviser).toMatchObject({ id: adviser.id, versionId: a1.version.id });
    expect(live.members[0]).toMatchObject({ id: member.id, versionId: m1.version.id, published: true });
    const versions = (await api("GET", `/apps/${app.id}/versions`, { key })).body.versions;
    expect(versions[0].document.members[0].versionId).toBe(m1.version.id);

    const app2 = await publish(key, "apps", app.id);
    expect(app2.version.number).toBe(2);
    expect((await api("GET", `/apps/${app.id}`, { key })).body.app.members[0].versionId).toBe(m2.version.id);

    // Rolling the app back restores the old pins.
    expectStatus(await api("POST", `/apps/${app.id}/versions/${app1.version.id}/deploy`, { key }), 200);
    expect((await api("GET", `/apps/${app.id}`, { key })).body.app.members[0].versionId).toBe(m1.version.id);
  });

  it("an app with no adviser and no members publishes (the built-in supervisor synthesizes)", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const app = await create(key, "apps", { orchestrationMode: "broadcast" });
    const result = await publish(key, "apps", app.id, { name: "Launch" });
    expect(result.app).toMatchObject({ kind: "app", type: "app", published: true });
    expect(result.version).toMatchObject({ name: "Launch", isProduction: true });
    expect((await api("GET", `/apps/${app.id}`, { key })).body.app).toMatchObject({
      adviser: null,
      orchestrationMode: "broadcast",
    });
  });
});

describe("concurrent app publishes", () => {
  it("more parallel publishes than pool connections: all succeed, numbered once each, one live", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const member = await create(key, "agents");
    await publish(key, "agents", member.id);
    const app = await create(key, "apps", { members: [{ id: member.id, kind: "agent" }] });
    const results = await Promise.all(
      Array.from({ length: 14 }, () => api("POST", `/apps/${app.id}/publish`, { key, body: {} })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(14).fill(200));
    expect(results.map((r) => r.body.version.number).sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: 14 }, (_, i) => i + 1),
    );
    const versions = (await api("GET", `/apps/${app.id}/versions`, { key })).body.versions;
    expect(versions.filter((v: { isProduction: boolean }) => v.isProduction)).toHaveLength(1);
    expect((await draft(key, "apps", app.id)).versionCount).toBe(14);
  });
});
