// Agents through the REST and console doors: drafts, validation, conflicts, versions,
// publishing (also concurrently), rollback, delete and who may do what. The rules are shared by
// flows and apps (services/builder/); flows.test.ts and apps.test.ts cover what differs.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { addPerson, api, expectError, issueKey, newOrganization, signInCookie, trpc, trpcErrorCode } from "../helpers";
import { create, draft, expectStatus, patchDraft, publish } from "../builder-helpers";

async function knowledgebase(organizationId: string, name: string, endUserId: string | null = null) {
  return getDb().knowledgebase.create({ data: { organizationId, name, endUserId } });
}

describe("agent drafts", () => {
  it("creates an unpublished draft with every field of the reference, defaults filled", async () => {
    const t = await newOrganization();
    const response = await api("POST", "/agents", {
      key: t.orgKey.secret,
      body: { name: "Support Bot", systemInstruction: "Be kind." },
    });
    expect(response.status).toBe(201);
    const agent = response.body.agent;
    expect(agent).toMatchObject({
      name: "Support Bot",
      slug: "support-bot",
      description: "",
      identity: { role: "", summary: "", goals: [], outOfScope: [], personaTraits: [], guardrails: [] },
      systemInstruction: "Be kind.",
      model: "atrium-offline",
      builtIns: { webSearch: false, webScrape: false, deepResearch: false, artifacts: false, voice: false },
      knowledge: [],
      flows: [],
      integrations: [],
      outputTemplateIds: [],
      conversationStarters: [],
      questions: [],
      published: false,
      productionVersionId: null,
      versionCount: 0,
      lastChange: { by: "organization key", source: "api", action: "created" },
    });
    expect(agent.createdAt).toBe(agent.updatedAt);
  });

  it("requires a name and refuses unknown fields with invalid_request naming them", async () => {
    const t = await newOrganization();
    const missing = expectError(
      await api("POST", "/agents", { key: t.orgKey.secret, body: {} }),
      400,
      "invalid_request",
    );
    expect(missing.message).toContain("name");
    const unknown = expectError(
      await api("POST", "/agents", { key: t.orgKey.secret, body: { name: "x", colour: "red" } }),
      400,
      "invalid_request",
    );
    expect(unknown.problems).toEqual(expect.arrayContaining([expect.objectContaining({ path: "colour" })]));
  });

  it("PATCH changes only the fields passed; arrays replace; identity and builtIns merge", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents", {
      name: "A",
      conversationStarters: ["one", "two"],
      identity: { role: "Guide", goals: ["g1"] },
    });
    const response = expectStatus(
      await patchDraft(key, "agents", agent.id, {
        conversationStarters: ["three"],
        identity: { summary: "Helps" },
        builtIns: { webScrape: true },
        questions: [{ id: "q1", label: "Who?" }],
      }),
      200,
    );
    expect(response.body.agent).toMatchObject({
      name: "A",
      conversationStarters: ["three"],
      identity: { role: "Guide", summary: "Helps", goals: ["g1"] },
      builtIns: { webScrape: true, webSearch: false },
      questions: [{ id: "q1", label: "Who?" }],
      lastChange: { action: "draft_updated", source: "api" },
    });
    expect(response.body.agent.lastChange.summary).toContain("conversationStarters");
    expect(Date.parse(response.body.agent.updatedAt)).toBeGreaterThan(Date.parse(agent.updatedAt));
  });

  it("refuses a model not in GET /models with invalid_model, nothing written", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    expectError(await api("POST", "/agents", { key, body: { name: "A", model: "gpt-99" } }), 422, "invalid_model");
    const agent = await create(key, "agents");
    expectError(
      await patchDraft(key, "agents", agent.id, { model: "gpt-99", description: "changed" }),
      422,
      "invalid_model",
    );
    expect(await draft(key, "agents", agent.id)).toMatchObject({
      model: "atrium-offline",
      description: "",
      updatedAt: agent.updatedAt,
    });
    const models = (await api("GET", "/models", { key })).body.models;
    expectStatus(await patchDraft(key, "agents", agent.id, { model: models[0].id }), 200);
  });

  it("refuses a built-in this deployment cannot provide with invalid_request naming it, nothing written", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const refused = expectError(
      await api("POST", "/agents", { key, body: { name: "A", builtIns: { voice: true } } }),
      400,
      "invalid_request",
    );
    expect(refused.problems).toEqual([{ path: "builtIns.voice", message: expect.stringContaining("unavailable") }]);
    expect(await getDb().builderItem.count({ where: { organizationId: t.organization.id } })).toBe(0);
    const agent = await create(key, "agents");
    // No WEB_SEARCH_URL in the tests: webSearch is unavailable.
    const search = expectError(
      await patchDraft(key, "agents", agent.id, { builtIns: { webSearch: true } }),
      400,
      "invalid_request",
    );
    expect(search.problems[0].path).toBe("builtIns.webSearch");
    expect(await draft(key, "agents", agent.id)).toMatchObject({
      builtIns: { webSearch: false },
      updatedAt: agent.updatedAt,
    });
  });

  it("refuses to publish a draft enabling a built-in the deployment no longer provides, no version written", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents");
    // Written while a search endpoint was configured; there is none now.
    const stored = await getDb().builderItem.findUniqueOrThrow({ where: { id: agent.id } });
    await getDb().builderItem.update({
      where: { id: agent.id },
      data: { draft: { ...(stored.draft as object), builtIns: { ...agent.builtIns, webSearch: true } } },
    });
    const refused = expectError(
      await api("POST", `/agents/${agent.id}/publish`, { key, body: {} }),
      400,
      "invalid_request",
    );
    expect(refused.problems).toEqual([
      { path: "builtIns.webSearch", message: expect.stringContaining("WEB_SEARCH_URL") },
    ]);
    expect(await getDb().builderVersion.count({ where: { itemId: agent.id } })).toBe(0);
  });

  it("attaches knowledgebases (title read back) and flows of the organization only", async () => {
    const t = await newOrganization();
    const other = await newOrganization();
    const key = t.orgKey.secret;
    const kb = await knowledgebase(t.organization.id, "Handbook");
    const notebook = await knowledgebase(t.organization.id, "Private notebook", "00000000-0000-4000-8000-000000000001");
    const foreign = await knowledgebase(other.organization.id, "Theirs");
    const flow = await create(key, "flows");
    const agent = await create(key, "agents");
    const ok = expectStatus(
      await patchDraft(key, "agents", agent.id, { knowledge: [{ knowledgebaseId: kb.id }], flows: [flow.id] }),
      200,
    );
    expect(ok.body.agent).toMatchObject({
      knowledge: [{ knowledgebaseId: kb.id, title: "Handbook" }],
      flows: [flow.id],
    });
    const bad = expectError(
      await patchDraft(key, "agents", agent.id, {
        knowledge: [{ knowledgebaseId: notebook.id }, { knowledgebaseId: foreign.id }],
        flows: [agent.id],
      }),
      422,
      "knowledgebase_not_found",
    );
    expect(bad.problems.map((p: { path: string }) => p.path)).toEqual([
      "knowledge.0.knowledgebaseId",
      "knowledge.1.knowledgebaseId",
      "flows.0",
    ]);
    expect((await draft(key, "agents", agent.id)).knowledge).toEqual([{ knowledgebaseId: kb.id, title: "Handbook" }]);
  });
});

describe("draft conflicts", () => {
  it("a stale expectedUpdatedAt answers 409 conflict and writes nothing; the current one succeeds", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents", { name: "A" });
    const first = expectStatus(
      await patchDraft(key, "agents", agent.id, { description: "mine", expectedUpdatedAt: agent.updatedAt }),
      200,
    ).body.agent;
    const stale = expectError(
      await patchDraft(key, "agents", agent.id, { description: "theirs", expectedUpdatedAt: agent.updatedAt }),
      409,
      "conflict",
    );
    expect(stale.message).toMatch(/updatedAt/);
    expect(await draft(key, "agents", agent.id)).toMatchObject({
      description: "mine",
      updatedAt: first.updatedAt,
      lastChange: first.lastChange,
    });
    expectStatus(
      await patchDraft(key, "agents", agent.id, { description: "again", expectedUpdatedAt: first.updatedAt }),
      200,
    );
  });

  it("If-Unmodified-Since: an HTTP date before the last change is a conflict; a later one passes; garbage is invalid_request", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents");
    const before = new Date(Date.parse(agent.updatedAt) - 5000).toUTCString();
    expectError(
      await patchDraft(key, "agents", agent.id, { description: "x" }, { "If-Unmodified-Since": before }),
      409,
      "conflict",
    );
    expect((await draft(key, "agents", agent.id)).description).toBe("");
    const after = new Date(Date.parse(agent.updatedAt) + 1000).toUTCString();
    expectStatus(
      await patchDraft(key, "agents", agent.id, { description: "y" }, { "If-Unmodified-Since": after }),
      200,
    );
    expectError(
      await patchDraft(key, "agents", agent.id, { description: "z" }, { "If-Unmodified-Since": "yesterday-ish" }),
      400,
      "invalid_request",
    );
  });

  it("of concurrent writes with the same expectedUpdatedAt exactly one wins; the rest conflict", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents");
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        patchDraft(key, "agents", agent.id, { description: `writer ${i}`, expectedUpdatedAt: agent.updatedAt }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(7);
    const winner = results.find((r) => r.status === 200)!.body.agent.description;
    expect((await draft(key, "agents", agent.id)).description).toBe(winner);
  });

  it("unguarded concurrent writes to different fields both land", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents");
    await Promise.all([
      patchDraft(key, "agents", agent.id, { description: "d" }),
      patchDraft(key, "agents", agent.id, { systemInstruction: "s" }),
    ]);
    expect(await draft(key, "agents", agent.id)).toMatchObject({ description: "d", systemInstruction: "s" });
  });
});

describe("publishing and versions", () => {
  it("an unpublished agent is not_found live and absent from the list; publishing makes it live", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents", { name: "Live one" });
    expectError(await api("GET", `/agents/${agent.id}`, { key }), 404, "not_found");
    expect((await api("GET", "/agents", { key })).body.agents).toEqual([]);
    const result = await publish(key, "agents", agent.id, { name: "First", notes: "hello" });
    expect(result.agent).toMatchObject({
      id: agent.id,
      kind: "agent",
      type: "agent",
      name: "Live one",
      slug: "live-one",
      published: true,
      productionVersionId: result.version.id,
    });
    expect(result.version).toMatchObject({
      number: 1,
      name: "First",
      notes: "hello",
      isProduction: true,
      publishedBy: "organization key",
      source: "api",
    });
    const live = expectStatus(await api("GET", `/agents/${agent.id}`, { key }), 200).body.agent;
    expect(live).toMatchObject({
      name: "Live one",
      published: true,
      versionCount: 1,
      productionVersionId: result.version.id,
      draftDiffersFromLive: false,
    });
  });

  it("edits change only the draft; the live version keeps the published document", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents", { name: "V1" });
    await publish(key, "agents", agent.id);
    await patchDraft(key, "agents", agent.id, { name: "V2 draft" });
    expect((await api("GET", `/agents/${agent.id}`, { key })).body.agent).toMatchObject({
      name: "V1",
      draftDiffersFromLive: true,
    });
    expect(await draft(key, "agents", agent.id)).toMatchObject({ name: "V2 draft", draftDiffersFromLive: true });
    expect((await api("GET", "/agents", { key })).body.agents[0].name).toBe("V1");
  });

  it("deployToProduction false adds a version without making it live", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents", { name: "Staged" });
    const staged = await publish(key, "agents", agent.id, { deployToProduction: false });
    expect(staged.version.isProduction).toBe(false);
    expect(staged.agent).toMatchObject({ published: false, productionVersionId: null });
    expectError(await api("GET", `/agents/${agent.id}`, { key }), 404, "not_found");
    const v1 = await publish(key, "agents", agent.id);
    await patchDraft(key, "agents", agent.id, { name: "Staged 2" });
    const v3 = await publish(key, "agents", agent.id, { deployToProduction: false });
    expect(v3.version.number).toBe(3);
    expect(v3.agent.productionVersionId).toBe(v1.version.id);
    expect((await api("GET", `/agents/${agent.id}`, { key })).body.agent.name).toBe("Staged");
  });

  it("lists versions oldest first with isProduction, the published document and keyset pages", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents", { name: "N1" });
    for (let i = 1; i <= 3; i++) {
      await patchDraft(key, "agents", agent.id, { name: `N${i}` });
      await publish(key, "agents", agent.id, { notes: `note ${i}` });
    }
    const all = expectStatus(await api("GET", `/agents/${agent.id}/versions`, { key }), 200).body;
    expect(all.versions.map((v: any) => [v.number, v.isProduction, v.document.name, v.notes])).toEqual([
      [1, false, "N1", "note 1"],
      [2, false, "N2", "note 2"],
      [3, true, "N3", "note 3"],
    ]);
    expect(all.nextCursor).toBeNull();
    const page1 = (await api("GET", `/agents/${agent.id}/versions?limit=2`, { key })).body;
    const page2 = (await api("GET", `/agents/${agent.id}/versions?limit=2&cursor=${page1.nextCursor}`, { key })).body;
    expect([...page1.versions, ...page2.versions].map((v: any) => v.number)).toEqual([1, 2, 3]);
    expect(page2.nextCursor).toBeNull();
  });

  it("rolls back: deploying version 1 makes it live again; versionCount and the draft stay", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents", { name: "One" });
    const v1 = await publish(key, "agents", agent.id);
    await patchDraft(key, "agents", agent.id, { name: "Two" });
    const v2 = await publish(key, "agents", agent.id);
    expect(v2.agent.productionVersionId).toBe(v2.version.id);
    const rolled = expectStatus(
      await api("POST", `/agents/${agent.id}/versions/${v1.version.id}/deploy`, { key }),
      200,
    ).body;
    expect(rolled.version).toMatchObject({ id: v1.version.id, number: 1, isProduction: true });
    expect(rolled.agent).toMatchObject({ productionVersionId: v1.version.id, name: "One" });
    const live = (await api("GET", `/agents/${agent.id}`, { key })).body.agent;
    expect(live).toMatchObject({
      name: "One",
      versionCount: 2,
      productionVersionId: v1.version.id,
      lastChange: { action: "deployed" },
    });
    expect((await draft(key, "agents", agent.id)).name).toBe("Two");
    const versions = (await api("GET", `/agents/${agent.id}/versions`, { key })).body.versions;
    expect(versions.filter((v: any) => v.isProduction).map((v: any) => v.number)).toEqual([1]);
  });

  it("deploying a version of another item, or a missing one, is not_found", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const a = await create(key, "agents");
    const b = await create(key, "agents");
    const vb = await publish(key, "agents", b.id);
    expectError(await api("POST", `/agents/${a.id}/versions/${vb.version.id}/deploy`, { key }), 404, "not_found");
    expectError(
      await api("POST", `/agents/${a.id}/versions/00000000-0000-4000-8000-000000000000/deploy`, { key }),
      404,
      "not_found",
    );
  });

  it("10 concurrent publishes: versionCount 10, numbers 1..10 once each, exactly one isProduction", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents");
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api("POST", `/agents/${agent.id}/publish`, { key, body: {} })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(results.map((r) => r.body.version.number).sort((a: number, b: number) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    const current = await draft(key, "agents", agent.id);
    expect(current.versionCount).toBe(10);
    const versions = (await api("GET", `/agents/${agent.id}/versions`, { key })).body.versions;
    expect(versions).toHaveLength(10);
    const production = versions.filter((v: any) => v.isProduction);
    expect(production).toHaveLength(1);
    expect(production[0].id).toBe(current.productionVersionId);
    expect(production[0].number).toBe(10);
  });
});

describe("tenancy, scopes and roles", () => {
  it("another organization's agent is not_found on every route", async () => {
    const t = await newOrganization();
    const other = await newOrganization();
    const agent = await create(t.orgKey.secret, "agents");
    const v = await publish(t.orgKey.secret, "agents", agent.id);
    const key = other.orgKey.secret;
    for (const [method, path, body] of [
      ["GET", `/agents/${agent.id}`],
      ["GET", `/agents/${agent.id}/draft`],
      ["PATCH", `/agents/${agent.id}/draft`, { name: "hijack" }],
      ["POST", `/agents/${agent.id}/publish`, {}],
      ["GET", `/agents/${agent.id}/versions`],
      ["POST", `/agents/${agent.id}/versions/${v.version.id}/deploy`, {}],
      ["DELETE", `/agents/${agent.id}`],
    ] as const) {
      expectError(await api(method, path, { key, body }), 404, "not_found");
    }
    expect((await api("GET", "/agents", { key })).body.agents).toEqual([]);
  });

  it("read scope reads; write scope is needed to create, edit, publish, deploy and delete", async () => {
    const t = await newOrganization();
    const agent = await create(t.orgKey.secret, "agents");
    await publish(t.orgKey.secret, "agents", agent.id);
    const reader = await issueKey(t.operator, { kind: "organization", scopes: ["agents:read"] });
    expectStatus(await api("GET", `/agents/${agent.id}`, { key: reader.secret }), 200);
    expectStatus(await api("GET", `/agents/${agent.id}/draft`, { key: reader.secret }), 200);
    expectError(await api("POST", "/agents", { key: reader.secret, body: { name: "x" } }), 403, "insufficient_scope");
    expectError(
      await api("PATCH", `/agents/${agent.id}/draft`, { key: reader.secret, body: { name: "x" } }),
      403,
      "insufficient_scope",
    );
    expectError(
      await api("POST", `/agents/${agent.id}/publish`, { key: reader.secret, body: {} }),
      403,
      "insufficient_scope",
    );
    expectError(await api("DELETE", `/agents/${agent.id}`, { key: reader.secret }), 403, "insufficient_scope");
    const flowsOnly = await issueKey(t.operator, { kind: "organization", scopes: ["flows:read", "flows:write"] });
    expectError(await api("GET", `/agents/${agent.id}`, { key: flowsOnly.secret }), 403, "insufficient_scope");
  });

  it("personal keys: viewers cannot write (forbidden_role); members write but only admins delete (204)", async () => {
    const t = await newOrganization();
    const viewer = await addPerson(t.operator, "viewer");
    const member = await addPerson(t.operator, "member");
    const admin = await addPerson(t.operator, "admin");
    const viewerKey = await issueKey(t.operator, { kind: "personal", memberId: viewer.member.id });
    const memberKey = await issueKey(t.operator, { kind: "personal", memberId: member.member.id });
    const adminKey = await issueKey(t.operator, { kind: "personal", memberId: admin.member.id });
    expectError(await api("POST", "/agents", { key: viewerKey.secret, body: { name: "x" } }), 403, "forbidden_role");
    const agent = await create(memberKey.secret, "agents");
    expect(agent.lastChange).toMatchObject({ by: member.email, source: "api" });
    expectError(await api("DELETE", `/agents/${agent.id}`, { key: memberKey.secret }), 403, "forbidden_role");
    const deleted = await api("DELETE", `/agents/${agent.id}`, { key: adminKey.secret });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expectError(await api("GET", `/agents/${agent.id}/draft`, { key: adminKey.secret }), 404, "not_found");
    expectError(await api("DELETE", `/agents/${agent.id}`, { key: adminKey.secret }), 404, "not_found");
  });

  it("path ids must be uuids (invalid_request), static segments are not taken for ids", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    expectError(await api("GET", "/agents/not-a-uuid", { key }), 400, "invalid_request");
    expectError(await api("GET", "/agents/draft", { key }), 400, "invalid_request");
    const agent = await create(key, "agents");
    expectStatus(await api("GET", `/agents/${agent.id}/draft`, { key }), 200);
    expectStatus(await api("GET", `/agents/${agent.id}/versions`, { key }), 200);
    expectError(await api("GET", `/agents/${agent.id}/publish`, { key }), 405, "method_not_allowed");
    expectError(await api("PUT", `/agents/${agent.id}/draft`, { key, body: {} }), 405, "method_not_allowed");
    expectError(await api("GET", `/agents/${agent.id}/nothing`, { key }), 404, "not_found");
  });
});

describe("console door", () => {
  it("a signed-in member edits and publishes through the same procedures; lastChange says ui and the email", async () => {
    const t = await newOrganization();
    const cookie = await signInCookie(t.owner.email, t.owner.password);
    const created = await trpc("mutation", "agents.create", { name: "From the console" }, { cookie });
    expect(created.status).toBe(200);
    const agent = created.body.result.data.agent;
    expect(agent.lastChange).toMatchObject({ source: "ui", by: t.owner.email });
    const stale = await trpc(
      "mutation",
      "agents.patchDraft",
      { agentId: agent.id, description: "x", expectedUpdatedAt: "2020-01-01T00:00:00.000Z" },
      { cookie },
    );
    expect(trpcErrorCode(stale)).toBe("conflict");
    const published = await trpc("mutation", "agents.publish", { agentId: agent.id, notes: "ui" }, { cookie });
    expect(published.body.result.data.version).toMatchObject({ source: "ui", publishedBy: t.owner.email });
    const viewer = await addPerson(t.operator, "viewer");
    const viewerCookie = await signInCookie(viewer.email, viewer.password);
    expect(
      trpcErrorCode(
        await trpc("mutation", "agents.patchDraft", { agentId: agent.id, description: "x" }, { cookie: viewerCookie }),
      ),
    ).toBe("forbidden_role");
    const list = await trpc("query", "agents.list", { include: "drafts" }, { cookie: viewerCookie });
    expect(list.body.result.data.agents).toHaveLength(1);
  });
});

describe("versions list paging", () => {
  it("a garbage cursor, or one from another item, is invalid_request; limit is 1..200", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const a = await create(key, "agents");
    const b = await create(key, "agents");
    await publish(key, "agents", a.id);
    await publish(key, "agents", a.id);
    await publish(key, "agents", b.id);
    await publish(key, "agents", b.id);
    const pageB = (await api("GET", `/agents/${b.id}/versions?limit=1`, { key })).body;
    expect(pageB.nextCursor).toBeTruthy();
    expectError(
      await api("GET", `/agents/${a.id}/versions?cursor=${pageB.nextCursor}`, { key }),
      400,
      "invalid_request",
    );
    expectError(await api("GET", `/agents/${a.id}/versions?cursor=nope`, { key }), 400, "invalid_request");
    expectError(await api("GET", `/agents/${a.id}/versions?limit=0`, { key }), 400, "invalid_request");
    expectError(await api("GET", `/agents/${a.id}/versions?limit=201`, { key }), 400, "invalid_request");
  });
});

describe("versions list newest first", () => {
  async function publishedFive() {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents");
    for (let i = 0; i < 5; i++) await publish(key, "agents", agent.id);
    return { t, key, agent };
  }
  const numbers = (body: { versions: { number: number }[] }) => body.versions.map((version) => version.number);

  it("order=newest lists the latest versions first, page after page; oldest first by default", async () => {
    const { key, agent } = await publishedFive();
    expect(numbers((await api("GET", `/agents/${agent.id}/versions`, { key })).body)).toEqual([1, 2, 3, 4, 5]);

    const pages: number[][] = [];
    let cursor: string | null = null;
    do {
      const response = await api(
        "GET",
        `/agents/${agent.id}/versions?order=newest&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        { key },
      );
      expectStatus(response, 200);
      pages.push(numbers(response.body));
      cursor = response.body.nextCursor;
    } while (cursor);
    expect(pages).toEqual([[5, 4], [3, 2], [1]]);
  });

  it("pages versions published at the same instant without a gap or a repeat", async () => {
    const { t, key, agent } = await publishedFive();
    // Versions 2, 3 and 4 share one createdAt: the cursor's id breaks the tie.
    const where = { organizationId: t.organization.id, itemId: agent.id };
    const third = await getDb().builderVersion.findFirstOrThrow({ where: { ...where, number: 3 } });
    await getDb().builderVersion.updateMany({
      where: { ...where, number: { in: [2, 4] } },
      data: { createdAt: third.createdAt },
    });
    const whole = numbers((await api("GET", `/agents/${agent.id}/versions?order=newest`, { key })).body);
    const paged: number[] = [];
    let cursor: string | null = null;
    do {
      const response = await api(
        "GET",
        `/agents/${agent.id}/versions?order=newest&limit=1${cursor ? `&cursor=${cursor}` : ""}`,
        { key },
      );
      paged.push(...numbers(response.body));
      cursor = response.body.nextCursor;
    } while (cursor);
    expect(paged).toEqual(whole);
    expect([...paged].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(paged[0]).toBe(5);
    expect(paged[4]).toBe(1);
  });

  it("an order other than oldest or newest is invalid_request", async () => {
    const { key, agent } = await publishedFive();
    for (const order of ["latest", "NEWEST", ""])
      expectError(await api("GET", `/agents/${agent.id}/versions?order=${order}`, { key }), 400, "invalid_request");
  });

  it("the console asks through tRPC the same way", async () => {
    const { t, agent } = await publishedFive();
    const cookie = await signInCookie(t.owner.email, t.owner.password);
    const page = await trpc("query", "agents.versions", { agentId: agent.id, limit: 2, order: "newest" }, { cookie });
    expect(page.status).toBe(200);
    expect(numbers(page.body.result.data)).toEqual([5, 4]);
  });
});
