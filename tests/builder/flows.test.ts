// Flows: graph validation (invalid_workflow with feedback, nothing written), inputs and their
// JSON Schema, and every rule of the GET /flows listing (include=drafts, fields, updatedSince,
// limit, cursor), which agents and apps share.
import { describe, expect, it } from "vitest";
import { MAX_NODE_TITLE_CHARS } from "@/schemas/limits";
import { getDb } from "@/server/db";
import { api, expectError, issueKey, newOrganization } from "../helpers";
import { newKnowledgebase } from "../knowledge-helpers";
import { VALID_NODES, create, draft, expectStatus, patchDraft, publish } from "../builder-helpers";

describe("flow validation", () => {
  it("accepts a valid graph and documents the node types", async () => {
    const t = await newOrganization();
    const knowledgebaseId = await newKnowledgebase(t);
    const flow = await create(t.orgKey.secret, "flows", {
      nodes: [
        { id: "start", type: "trigger_start", data: { next: "search" } },
        { id: "search", type: "knowledge_search", data: { knowledgebaseId, query: "{{inputs.q}}" } },
        {
          id: "draft",
          type: "llm",
          data: { prompt: "Use {{nodes.search.output}}", model: "atrium-offline", next: ["fmt"] },
        },
        { id: "fmt", type: "template", data: { template: "Answer: {{nodes.draft.output}}" } },
        { id: "out", type: "output", data: { value: "{{nodes.fmt.output}}" } },
      ],
    });
    expect(flow.nodes.map((n: { type: string }) => n.type)).toEqual([
      "trigger_start",
      "knowledge_search",
      "llm",
      "template",
      "output",
    ]);
    expect(flow.nodes[0].blocks).toEqual([]);
    const doc = (await api("GET", "/openapi.json")).body;
    const text = JSON.stringify(doc.paths["/flows/{flowId}/draft"].patch);
    for (const type of ["trigger_start", "llm", "knowledge_search", "template", "output", "{{inputs.", "data.next"])
      expect(text).toContain(type);
  });

  it.each([
    [
      "no trigger_start",
      [{ id: "out", type: "output", data: { value: "x" } }],
      [{ message: expect.stringContaining("trigger_start") }],
    ],
    [
      "two trigger_start nodes",
      [
        { id: "a", type: "trigger_start", data: {} },
        { id: "b", type: "trigger_start", data: {} },
      ],
      [{ nodeId: "b", message: expect.stringContaining("exactly one trigger_start") }],
    ],
    [
      "duplicate node ids",
      [
        { id: "start", type: "trigger_start", data: {} },
        { id: "x", type: "template", data: { template: "a" } },
        { id: "x", type: "output", data: { value: "b" } },
      ],
      [{ nodeId: "x", message: expect.stringContaining("unique") }],
    ],
    [
      "next naming a missing node",
      [
        { id: "start", type: "trigger_start", data: { next: "ghost" } },
        { id: "out", type: "output", data: { value: "v", next: ["start", "nowhere"] } },
      ],
      [
        { nodeId: "start", message: expect.stringContaining('"ghost"') },
        { nodeId: "out", message: expect.stringContaining('"nowhere"') },
      ],
    ],
    [
      "unknown node type",
      [
        { id: "start", type: "trigger_start", data: {} },
        { id: "hook", type: "webhook", data: {} },
      ],
      [{ nodeId: "hook", message: expect.stringContaining("Unknown node type") }],
    ],
    [
      "an unknown model or a template reading a missing node",
      [
        { id: "start", type: "trigger_start", data: {} },
        { id: "l", type: "llm", data: { prompt: "{{nodes.nope.output}}", model: "gpt-99" } },
      ],
      [
        { nodeId: "l", message: expect.stringContaining("gpt-99") },
        { nodeId: "l", message: expect.stringContaining("nodes.nope.output") },
      ],
    ],
    [
      "a canvas position that is not two bounded numbers",
      [
        { id: "start", type: "trigger_start", data: { position: { x: 1e9, y: 0 } } },
        { id: "a", type: "template", data: { template: "a", position: { x: "10", y: 0 } } },
        { id: "b", type: "template", data: { template: "b", position: [10, 20] } },
        { id: "c", type: "template", data: { template: "c", position: { x: 1, y: 2, z: 3 } } },
        { id: "out", type: "output", data: { value: "v", position: null } },
      ],
      ["start", "a", "b", "c", "out"].map((nodeId) => ({
        nodeId,
        message: expect.stringContaining("data.position must be {x, y}"),
      })),
    ],
    [
      "a node title that is not a short line of text",
      [
        { id: "start", type: "trigger_start", data: { title: "x".repeat(MAX_NODE_TITLE_CHARS + 1) } },
        { id: "a", type: "template", data: { template: "a", title: 42 } },
        { id: "out", type: "output", data: { value: "v", title: "two\nlines" } },
      ],
      ["start", "a", "out"].map((nodeId) => ({
        nodeId,
        message: expect.stringContaining("data.title must be"),
      })),
    ],
  ])("refuses %s with invalid_workflow and feedback per problem; nothing written", async (_name, nodes, feedback) => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const error = expectError(
      await api("POST", "/flows", { key, body: { name: "Bad", nodes } }),
      422,
      "invalid_workflow",
    );
    expect(error.feedback).toEqual(feedback);
    const flow = await create(key, "flows");
    const patched = expectError(
      await patchDraft(key, "flows", flow.id, { nodes, description: "should not land" }),
      422,
      "invalid_workflow",
    );
    expect(patched.feedback).toEqual(feedback);
    expect(await draft(key, "flows", flow.id)).toMatchObject({
      nodes: VALID_NODES.map((n) => ({ ...n, blocks: [] })),
      description: "",
      updatedAt: flow.updatedAt,
    });
  });

  it("saves nodes still missing their data in the draft, and refuses them only at publish, naming each node", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const incomplete = [
      { id: "start", type: "trigger_start", data: {} },
      { id: "l", type: "llm", data: {} },
      { id: "k", type: "knowledge_search", data: { query: "q" } },
      { id: "t", type: "template", data: { template: "" } },
      { id: "o", type: "output", data: {} },
    ];
    const flow = await create(key, "flows", { nodes: incomplete });
    expect((await draft(key, "flows", flow.id)).nodes.map((n: { id: string }) => n.id)).toEqual([
      "start",
      "l",
      "k",
      "t",
      "o",
    ]);
    expectStatus(await patchDraft(key, "flows", flow.id, { nodes: incomplete, description: "still incomplete" }), 200);

    const refused = expectError(
      await api("POST", `/flows/${flow.id}/publish`, { key, body: {} }),
      422,
      "invalid_workflow",
    );
    expect(refused.feedback).toEqual([
      { nodeId: "l", message: expect.stringContaining("data.prompt") },
      { nodeId: "k", message: expect.stringContaining("data.knowledgebaseId") },
      { nodeId: "t", message: expect.stringContaining("data.template") },
      { nodeId: "o", message: expect.stringContaining("data.value") },
    ]);
    expect((await draft(key, "flows", flow.id)).versionCount).toBe(0);

    // A test run of the incomplete draft is refused before it runs or costs anything.
    const before = (await getDb().organization.findUniqueOrThrow({ where: { id: t.organization.id } })).credits;
    const tested = expectError(
      await api("POST", `/flows/${flow.id}/tests`, { key, body: { cases: [{ input: "hi" }] } }),
      422,
      "invalid_workflow",
    );
    expect(tested.feedback.map((f: { nodeId: string }) => f.nodeId)).toEqual(["l", "k", "t", "o"]);
    expect((await getDb().organization.findUniqueOrThrow({ where: { id: t.organization.id } })).credits).toBe(before);
    expect(await getDb().execution.count({ where: { itemId: flow.id } })).toBe(0);
  });

  it("keeps each node's canvas position (data.position) as written, and a flow with positions publishes", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const nodes = [
      { id: "start", type: "trigger_start", data: { position: { x: -100_000, y: 0 } } },
      { id: "out", type: "output", data: { value: "Hello {{inputs.name}}", position: { x: 240.5, y: 100_000 } } },
    ];
    const flow = await create(key, "flows", { nodes, inputs: [{ key: "name" }] });
    expect((await draft(key, "flows", flow.id)).nodes.map((n: { data: unknown }) => n.data)).toEqual(
      nodes.map((n) => n.data),
    );
    expect((await publish(key, "flows", flow.id)).version.number).toBe(1);
  });

  it("keeps each node's title (data.title) as written, and a flow with titles publishes", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const nodes = [
      { id: "start", type: "trigger_start", data: { title: "When a question arrives" } },
      { id: "out", type: "output", data: { value: "Hello {{inputs.name}}", title: "x".repeat(MAX_NODE_TITLE_CHARS) } },
    ];
    const flow = await create(key, "flows", { nodes, inputs: [{ key: "name" }] });
    expect((await draft(key, "flows", flow.id)).nodes.map((n: { data: unknown }) => n.data)).toEqual(
      nodes.map((n) => n.data),
    );
    expect((await publish(key, "flows", flow.id)).version.number).toBe(1);
  });

  it("a flow created without nodes is a draft that cannot be published until it is valid", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const empty = expectStatus(await api("POST", "/flows", { key, body: { name: "Empty" } }), 201).body.flow;
    expect(empty.nodes).toEqual([]);
    expectError(await api("POST", `/flows/${empty.id}/publish`, { key, body: {} }), 422, "invalid_workflow");
    expect((await draft(key, "flows", empty.id)).versionCount).toBe(0);
    expectStatus(await patchDraft(key, "flows", empty.id, { nodes: VALID_NODES }), 200);
    expect((await publish(key, "flows", empty.id)).version.number).toBe(1);
  });

  it("turns inputs into the listing's inputSchema (JSON Schema); duplicate keys are invalid_request", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const flow = await create(key, "flows", {
      name: "Quote",
      description: "Prices a job",
      inputs: [
        { key: "question", label: "Question", description: "What to ask", type: "text", required: true },
        { key: "count", label: "Count", type: "number" },
        { key: "tier", label: "Tier", type: "select", options: ["basic", "pro"], required: true },
        { key: "urgent", type: "boolean" },
      ],
    });
    expect(flow.inputs[3]).toEqual({
      key: "urgent",
      label: "",
      description: "",
      type: "boolean",
      required: false,
      options: [],
    });
    await publish(key, "flows", flow.id);
    const list = expectStatus(await api("GET", "/flows", { key }), 200).body;
    expect(list.flows).toEqual([
      {
        id: flow.id,
        name: "Quote",
        description: "Prices a job",
        inputs: flow.inputs,
        inputSchema: {
          type: "object",
          properties: {
            question: { type: "string", title: "Question", description: "What to ask" },
            count: { type: "number", title: "Count" },
            tier: { type: "string", enum: ["basic", "pro"], title: "Tier" },
            urgent: { type: "boolean" },
          },
          required: ["question", "tier"],
          additionalProperties: false,
        },
      },
    ]);
    const dup = expectError(
      await patchDraft(key, "flows", flow.id, { inputs: [{ key: "a" }, { key: "a" }] }),
      400,
      "invalid_request",
    );
    expect(dup.problems[0].path).toBe("inputs.1.key");
  });
});

describe("GET /flows listing", () => {
  it("walks every published flow exactly once with cursors; nextCursor is null at the end", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const published: string[] = [];
    for (let i = 0; i < 23; i++) {
      const flow = await create(key, "flows", { name: `F${i}` });
      if (i % 4 !== 3) {
        await publish(key, "flows", flow.id);
        published.push(flow.id);
      }
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = expectStatus(
        await api("GET", `/flows?limit=5${cursor ? `&cursor=${cursor}` : ""}`, { key }),
        200,
      );
      seen.push(...response.body.flows.map((f: { id: string }) => f.id));
      cursor = response.body.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(published);
    expect(pages).toBe(Math.ceil(published.length / 5));
    const exact = (await api("GET", `/flows?limit=${published.length}`, { key })).body;
    expect(exact.flows).toHaveLength(published.length);
    expect(exact.nextCursor).toBeNull();
    const defaults = (await api("GET", "/flows", { key })).body;
    expect(defaults.flows).toHaveLength(published.length);
    expect(defaults.nextCursor).toBeNull();
  });

  it("limit is 1..200; a garbage or stale cursor is invalid_request", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    for (const limit of ["0", "201", "abc", "1.5"])
      expectError(await api("GET", `/flows?limit=${limit}`, { key }), 400, "invalid_request");
    expectError(await api("GET", "/flows?cursor=garbage", { key }), 400, "invalid_request");
    const a = await create(key, "flows");
    const b = await create(key, "flows");
    await publish(key, "flows", a.id);
    await publish(key, "flows", b.id);
    const first = (await api("GET", "/flows?limit=1", { key })).body;
    expect(first.nextCursor).toBeTruthy();
    expectStatus(await api("DELETE", `/flows/${a.id}`, { key }), 204);
    const stale = expectError(
      await api("GET", `/flows?limit=1&cursor=${first.nextCursor}`, { key }),
      400,
      "invalid_request",
    );
    expect(stale.message).toMatch(/stale/);
    const other = await newOrganization();
    const c = await create(other.orgKey.secret, "flows");
    await publish(other.orgKey.secret, "flows", c.id);
    const foreign = (await api("GET", "/flows?limit=1", { key: other.orgKey.secret })).body;
    expect(foreign.nextCursor).toBeNull();
    const { encodeCursor } = await import("@/server/services/support/pagination");
    const foreignCursor = encodeCursor({ createdAt: new Date(c.createdAt), id: c.id });
    expectError(await api("GET", `/flows?cursor=${foreignCursor}`, { key }), 400, "invalid_request");
  });

  it("include=drafts lists unpublished flows with published and updatedAt, and needs flows:write", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const draftOnly = await create(key, "flows", { name: "Draft only" });
    const live = await create(key, "flows", { name: "Live" });
    await publish(key, "flows", live.id);
    await patchDraft(key, "flows", live.id, { name: "Live (edited)" });
    const all = expectStatus(await api("GET", "/flows?include=drafts", { key }), 200).body.flows;
    expect(all).toEqual([
      {
        id: draftOnly.id,
        name: "Draft only",
        description: "",
        kind: "form",
        published: false,
        updatedAt: draftOnly.updatedAt,
      },
      {
        id: live.id,
        name: "Live (edited)",
        description: "",
        kind: "form",
        published: true,
        updatedAt: expect.any(String),
      },
    ]);
    const reader = await issueKey(t.operator, { kind: "organization", scopes: ["flows:read"] });
    expectError(await api("GET", "/flows?include=drafts", { key: reader.secret }), 403, "insufficient_scope");
    expect(
      (await api("GET", "/flows", { key: reader.secret })).body.flows.map((f: { name: string }) => f.name),
    ).toEqual(["Live"]);
    expectError(await api("GET", "/flows?include=everything", { key }), 400, "invalid_request");
  });

  it("fields keeps only the named fields, and always the id; an unknown name is invalid_request naming the valid ones", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const flow = await create(key, "flows", { name: "Slim" });
    await publish(key, "flows", flow.id);
    expect((await api("GET", "/flows?fields=id,name", { key })).body.flows).toEqual([{ id: flow.id, name: "Slim" }]);
    expect((await api("GET", "/flows?include=drafts&fields=published,kind", { key })).body.flows).toEqual([
      { id: flow.id, published: true, kind: "form" },
    ]);
    const error = expectError(await api("GET", "/flows?fields=id,colour", { key }), 400, "invalid_request");
    expect(error.message).toContain("colour");
    expect(error.message).toContain("id, name, description, inputs, inputSchema");
    const draftsError = expectError(
      await api("GET", "/flows?fields=inputs&include=drafts", { key }),
      400,
      "invalid_request",
    );
    expect(draftsError.message).toContain("id, name, description, kind, published, updatedAt");
  });

  it("updatedSince keeps items changed at or after the time (inclusive)", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const old = await create(key, "flows", { name: "Old" });
    await publish(key, "flows", old.id);
    const recent = await create(key, "flows", { name: "Recent" });
    const published = await publish(key, "flows", recent.id);
    const at = published.flow.updatedAt;
    expect(
      (await api("GET", `/flows?updatedSince=${encodeURIComponent(at)}`, { key })).body.flows.map(
        (f: { name: string }) => f.name,
      ),
    ).toEqual(["Recent"]);
    const later = new Date(Date.parse(at) + 1).toISOString();
    expect((await api("GET", `/flows?updatedSince=${later}`, { key })).body.flows).toEqual([]);
    const edited = (await patchDraft(key, "flows", old.id, { description: "new" })).body.flow;
    expect(
      (
        await api("GET", `/flows?include=drafts&updatedSince=${encodeURIComponent(edited.updatedAt)}`, { key })
      ).body.flows.map((f: { id: string }) => f.id),
    ).toEqual([old.id]);
    expectError(await api("GET", "/flows?updatedSince=last-week", { key }), 400, "invalid_request");
  });

  it("agents and apps lists follow the same rules", async () => {
    const t = await newOrganization();
    const key = t.orgKey.secret;
    const agent = await create(key, "agents", { name: "Ag", conversationStarters: ["Hi"] });
    await publish(key, "agents", agent.id);
    const app = await create(key, "apps", { name: "Ap" });
    await publish(key, "apps", app.id);
    expect((await api("GET", "/agents", { key })).body).toEqual({
      agents: [
        {
          id: agent.id,
          name: "Ag",
          slug: "ag",
          description: "",
          model: "atrium-offline",
          conversationStarters: ["Hi"],
          questions: [],
        },
      ],
      nextCursor: null,
    });
    expect((await api("GET", "/apps?fields=id,orchestrationMode", { key })).body).toEqual({
      apps: [{ id: app.id, orchestrationMode: "supervisor" }],
      nextCursor: null,
    });
    const reader = await issueKey(t.operator, { kind: "organization", scopes: ["apps:read", "agents:read"] });
    expectError(await api("GET", "/apps?include=drafts", { key: reader.secret }), 403, "insufficient_scope");
    expectError(await api("GET", "/agents?include=drafts", { key: reader.secret }), 403, "insufficient_scope");
    expectError(await api("GET", "/agents?fields=inputs", { key }), 400, "invalid_request");
  });
});
