// Tenancy by construction (issue 10, item 1): a document can name only its own organization's
// knowledgebases, agents and flows, on draft write and on publish; and a reference that no
// longer resolves in the organization (here: written straight into the database, as if it had
// been valid and then deleted or moved) finds nothing at run time, through every door, and the
// trace says so. End users' private notebooks count as foreign too.
import { beforeAll, describe, expect, it } from "vitest";
import { NODE_REFERENCES } from "@/schemas/builder/flow-graph";
import { NODE_TYPES } from "@/schemas/builder/builder";
import { getDb } from "@/server/db";
import { createMcpConnection } from "@/server/services/org/mcp-connections";
import { api, expectError, newOrganization, restHandler, type Tenant } from "../helpers";
import { create, patchDraft, publish } from "../builder-helpers";
import { newKnowledgebase, newPage } from "../knowledge-helpers";
import { mcpSuite, structured } from "../mcp-helpers";
import { readEvents } from "../runtime-helpers";

// Each secret carries a marker that no UUID or timestamp can contain (ids are
// lowercase hex), so a leak check cannot be tripped by an id that happens to
// hold the same digits.
const SECRET_MARKER = "K7341Q";
const NOTEBOOK_MARKER = "K9911Q";
const SECRET = `The zebra vault code is ${SECRET_MARKER} and payroll runs on Thursdays.`;
const NOTEBOOK_SECRET = `My private zebra diary says the vault code is ${NOTEBOOK_MARKER}.`;
const QUESTION = "zebra vault code";

const mcp = mcpSuite();

/** Organization A, whose knowledgebase holds a secret page. */
async function victim(): Promise<{ tenant: Tenant; kbId: string }> {
  const tenant = await newOrganization();
  const kbId = await newKnowledgebase(tenant, "Private");
  await newPage(tenant.orgKey.secret, kbId, { title: "Vault", markdown: SECRET });
  return { tenant, kbId };
}

/** An end user's private notebook inside `tenant`, with a page (written as the portal would). */
async function notebookOf(tenant: Tenant): Promise<string> {
  const db = getDb();
  const organizationId = tenant.organization.id;
  const endUser = await db.endUser.create({
    data: { organizationId, email: `reader-${Math.random().toString(36).slice(2)}@example.test` },
  });
  const notebook = await db.knowledgebase.create({
    data: { organizationId, endUserId: endUser.id, name: "My notebook" },
  });
  await db.page.create({
    data: { organizationId, knowledgebaseId: notebook.id, title: "Diary", markdown: NOTEBOOK_SECRET },
  });
  return notebook.id;
}

function searchNodes(knowledgebaseId: string) {
  return [
    { id: "start", type: "trigger_start", data: {} },
    { id: "search", type: "knowledge_search", data: { knowledgebaseId, query: "{{inputs.question}}" } },
    { id: "out", type: "output", data: { value: "Found: {{nodes.search.output}}" } },
  ];
}
const INPUTS = [{ key: "question", label: "Question", type: "text", required: true }];

async function itemCount(tenant: Tenant) {
  return getDb().builderItem.count({ where: { organizationId: tenant.organization.id } });
}
async function versionCount(tenant: Tenant) {
  return getDb().builderVersion.count({ where: { organizationId: tenant.organization.id } });
}

/** Rewrites an item's draft and every version's document, as if its reference had moved away. */
async function rewriteReferences(itemId: string, from: string, to: string) {
  const db = getDb();
  const swap = (doc: unknown) => JSON.parse(JSON.stringify(doc).split(from).join(to));
  const item = await db.builderItem.findUniqueOrThrow({ where: { id: itemId } });
  await db.builderItem.update({ where: { id: itemId }, data: { draft: swap(item.draft) } });
  for (const version of await db.builderVersion.findMany({ where: { itemId } })) {
    await db.builderVersion.update({ where: { id: version.id }, data: { document: swap(version.document) } });
  }
}

function expectNoSecret(value: unknown) {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  expect(text).not.toContain(SECRET_MARKER);
  expect(text).not.toContain(NOTEBOOK_MARKER);
}

describe("draft writes and publishes refuse ids of another organization", () => {
  it("a knowledge_search node naming another organization's knowledgebase or an end user's notebook: 422 invalid_workflow naming the node, nothing written", async () => {
    const a = await victim();
    const b = await newOrganization();
    const key = b.orgKey.secret;
    const notebook = await notebookOf(b);
    const before = await itemCount(b);
    for (const foreign of [a.kbId, notebook, crypto.randomUUID()]) {
      const refused = expectError(
        await api("POST", "/flows", { key, body: { name: "Steal", inputs: INPUTS, nodes: searchNodes(foreign) } }),
        422,
        "invalid_workflow",
      );
      expect(refused.feedback).toEqual([{ nodeId: "search", message: expect.stringContaining("knowledgebase") }]);
    }
    expect(await itemCount(b)).toBe(before);

    const own = await newKnowledgebase(b);
    const flow = await create(key, "flows", { name: "Search", inputs: INPUTS, nodes: searchNodes(own) });
    const stored = await getDb().builderItem.findUniqueOrThrow({ where: { id: flow.id } });
    const patched = await patchDraft(key, "flows", flow.id, { nodes: searchNodes(a.kbId) });
    expect(expectError(patched, 422, "invalid_workflow").feedback[0].nodeId).toBe("search");
    expect((await getDb().builderItem.findUniqueOrThrow({ where: { id: flow.id } })).draft).toEqual(stored.draft);
  });

  it("publishing a draft whose reference is no longer in the organization: refused, no version written", async () => {
    const a = await victim();
    const b = await newOrganization();
    const key = b.orgKey.secret;
    const own = await newKnowledgebase(b);
    const flow = await create(key, "flows", { name: "Search", inputs: INPUTS, nodes: searchNodes(own) });
    await rewriteReferences(flow.id, own, a.kbId);
    const before = await versionCount(b);
    expect(
      expectError(await api("POST", `/flows/${flow.id}/publish`, { key, body: {} }), 422, "invalid_workflow")
        .feedback[0].nodeId,
    ).toBe("search");
    expect(await versionCount(b)).toBe(before);
  });

  it("walks every node type's id fields and every id-holding document field: foreign ids refused on draft write and on publish", async () => {
    const a = await victim();
    const foreignAgent = await create(a.tenant.orgKey.secret, "agents", { name: "Foreign agent" });
    const foreignFlow = await create(a.tenant.orgKey.secret, "flows", { name: "Foreign flow" });
    await publish(a.tenant.orgKey.secret, "agents", foreignAgent.id);
    await publish(a.tenant.orgKey.secret, "flows", foreignFlow.id);
    const b = await newOrganization();
    const key = b.orgKey.secret;
    const ownKb = await newKnowledgebase(b);
    const ownAgent = await create(key, "agents", { name: "Own agent" });
    const ownFlow = await create(key, "flows", { name: "Own flow" });
    await publish(key, "agents", ownAgent.id);
    await publish(key, "flows", ownFlow.id);
    // An http_request node names an MCP connection (whose stored headers it sends) by its slug.
    const connection = (tenant: Tenant, slug: string) =>
      createMcpConnection(getDb(), tenant.operator, {
        slug,
        name: slug,
        url: "https://93.184.215.14/mcp",
        headers: [],
      });
    await connection(a.tenant, "foreignconn");
    await connection(b, "ownconn");
    const foreignOf = {
      knowledgebase: a.kbId,
      agent: foreignAgent.id,
      flow: foreignFlow.id,
      "MCP connection": "foreignconn",
    } as const;
    const ownOf = { knowledgebase: ownKb, agent: ownAgent.id, flow: ownFlow.id, "MCP connection": "ownconn" } as const;

    // Every node type is walked; those that hold ids get each id field set to a foreign id.
    const cases: {
      kind: "agents" | "flows" | "apps";
      field: string;
      body: (id: (k: keyof typeof foreignOf) => string) => Record<string, unknown>;
      refers: keyof typeof foreignOf;
      feedbackNode?: string;
    }[] = [];
    for (const type of NODE_TYPES) {
      for (const reference of NODE_REFERENCES[type]) {
        cases.push({
          kind: "flows",
          field: `${type}.data.${reference.field}`,
          refers: reference.kind,
          feedbackNode: "probe",
          body: (id) => ({
            nodes: [
              { id: "start", type: "trigger_start", data: {} },
              {
                id: "probe",
                type,
                data: { prompt: "p", query: "q", template: "t", value: "v", [reference.field]: id(reference.kind) },
              },
              { id: "out", type: "output", data: { value: "done" } },
            ],
          }),
        });
      }
    }
    expect(cases.map((c) => c.field)).toContain("knowledge_search.data.knowledgebaseId");
    cases.push(
      {
        kind: "agents",
        field: "knowledge.0.knowledgebaseId",
        refers: "knowledgebase",
        body: (id) => ({ knowledge: [{ knowledgebaseId: id("knowledgebase") }] }),
      },
      { kind: "agents", field: "flows.0", refers: "flow", body: (id) => ({ flows: [id("flow")] }) },
      { kind: "apps", field: "adviser.id", refers: "agent", body: (id) => ({ adviser: { id: id("agent") } }) },
      {
        kind: "apps",
        field: "members.0.id",
        refers: "agent",
        body: (id) => ({ members: [{ id: id("agent"), kind: "agent" }] }),
      },
      {
        kind: "apps",
        field: "members.0.id",
        refers: "flow",
        body: (id) => ({ members: [{ id: id("flow"), kind: "flow" }] }),
      },
    );

    for (const probe of cases) {
      const label = `${probe.kind} ${probe.field} (${probe.refers})`;
      const items = await itemCount(b);
      const versions = await versionCount(b);
      const foreign = probe.body((k) => foreignOf[k]);
      const own = probe.body((k) => ownOf[k]);
      const check = (response: Awaited<ReturnType<typeof api>>) => {
        if (probe.feedbackNode) {
          expect(response.status, label).toBe(422);
          expect(
            response.body.error.feedback.map((f: { nodeId?: string }) => f.nodeId),
            label,
          ).toContain(probe.feedbackNode);
        } else if (response.body.error?.code === "unpublished_dependencies") {
          // Publishing an app names a dependency that is not its own as unpublished_dependencies.
          expect(probe.kind, label).toBe("apps");
          expect(response.status, label).toBe(422);
        } else {
          // A reference to an item of another organization is refused as a missing one (docs/builder.md, "References").
          expect(response.status, label).toBe(422);
          expect(response.body.error.code, label).toBe(`${probe.refers}_not_found`);
          expect(
            response.body.error.problems.map((p: { path: string }) => p.path),
            label,
          ).toContain(probe.field);
        }
      };
      // Draft write: create and patch.
      check(await api("POST", `/${probe.kind}`, { key, body: { name: "Probe", ...foreign } }));
      expect(await itemCount(b), label).toBe(items);
      const item = await create(key, probe.kind, { name: "Probe", ...own });
      const stored = (await getDb().builderItem.findUniqueOrThrow({ where: { id: item.id } })).draft;
      check(await patchDraft(key, probe.kind, item.id, foreign));
      expect((await getDb().builderItem.findUniqueOrThrow({ where: { id: item.id } })).draft, label).toEqual(stored);
      // Publish: the draft's reference moved away after it was written.
      const ownId = Object.values(ownOf).find((id) => JSON.stringify(own).includes(id))!;
      const foreignId = Object.values(foreignOf).find((id) => JSON.stringify(foreign).includes(id))!;
      await rewriteReferences(item.id, ownId, foreignId);
      const published = await api("POST", `/${probe.kind}/${item.id}/publish`, { key, body: {} });
      expect(published.status, label).not.toBe(200);
      check(published);
      expect(await versionCount(b), label).toBe(versions);
      await getDb().builderItem.delete({ where: { id: item.id } });
    }
  });
});

/**
 * Organization B's published app over one flow (knowledge_search) and one agent (knowledge),
 * both over B's own knowledgebase; then their references are moved to `foreign` in the database.
 */
async function attacker(foreign: (b: Tenant) => Promise<string>) {
  const tenant = await newOrganization();
  const key = tenant.orgKey.secret;
  const own = await newKnowledgebase(tenant);
  await newPage(key, own, { title: "Harmless", markdown: "Our office plants are watered on Mondays." });
  const flow = await create(key, "flows", {
    name: "Vault finder",
    description: "zebra vault code",
    inputs: INPUTS,
    nodes: searchNodes(own),
  });
  const agent = await create(key, "agents", {
    name: "Vault agent",
    description: "zebra vault code",
    knowledge: [{ knowledgebaseId: own }],
  });
  await publish(key, "flows", flow.id);
  await publish(key, "agents", agent.id);
  const app = await create(key, "apps", {
    name: "Vault app",
    members: [
      { id: flow.id, kind: "flow" },
      { id: agent.id, kind: "agent" },
    ],
    orchestrationMode: "sequential",
    api: {
      conversationEnabled: true,
      transactionEnabled: true,
      inputSchema: { type: "object" },
      outputSchema: { type: "object" },
    },
  });
  await publish(key, "apps", app.id);
  const target = await foreign(tenant);
  await rewriteReferences(flow.id, own, target);
  await rewriteReferences(agent.id, own, target);
  return { tenant, key, flowId: flow.id, agentId: agent.id, appId: app.id };
}

async function traceOf(key: string, executionId: string) {
  const response = await api("GET", `/executions/${executionId}`, { key });
  expect(response.status).toBe(200);
  return response.body.execution;
}

function expectNotFoundNoted(execution: { trace: { kind: string; note?: string; name: string }[] }, kinds: string[]) {
  for (const kind of kinds) {
    const entries = execution.trace.filter((entry) => entry.kind === kind && entry.note);
    expect(entries.map((entry) => entry.note).join(" "), `${kind} trace note`).toMatch(/knowledgebase .*not found/);
  }
}

describe.each([
  ["another organization's knowledgebase", async () => (await victim()).kbId],
  ["an end user's private notebook", notebookOf],
] as const)("at run time, a reference to %s finds nothing, through every door", (_label, foreign) => {
  let b: Awaited<ReturnType<typeof attacker>>;
  beforeAll(async () => {
    b = await attacker(foreign as (tenant: Tenant) => Promise<string>);
  });

  it("flow and agent test runs (POST /{kind}/{id}/tests)", async () => {
    for (const [kind, id, noted] of [
      ["flows", b.flowId, ["node"]],
      ["agents", b.agentId, ["agent"]],
    ] as const) {
      const response = await api("POST", `/${kind}/${id}/tests`, {
        key: b.key,
        body: { cases: [{ input: QUESTION, expectedBehavior: "gives the vault code" }] },
      });
      expect(response.status).toBe(200);
      expectNoSecret(response.body);
      const execution = await traceOf(b.key, response.body.results[0].executionId);
      expectNoSecret(execution);
      expectNotFoundNoted(execution, [...noted]);
    }
  });

  it("app conversation, JSON", async () => {
    const response = await api("POST", `/apps/${b.appId}/conversation`, { key: b.key, body: { message: QUESTION } });
    expect(response.status).toBe(200);
    expectNoSecret(response.body);
    const executions = await api("GET", `/executions?itemId=${b.appId}`, { key: b.key });
    const execution = executions.body.executions.at(-1);
    expectNoSecret(execution);
    expectNotFoundNoted(execution, ["node", "agent"]);
  });

  it("app conversation, streamed", async () => {
    const response = await restHandler()(
      new Request(`http://localhost/api/v1/apps/${b.appId}/conversation`, {
        method: "POST",
        headers: { authorization: `Bearer ${b.key}`, "content-type": "application/json" },
        body: JSON.stringify({ message: QUESTION, stream: true }),
      }),
    );
    expect(response.status).toBe(200);
    const events = await readEvents(response);
    expect(events.at(-1)!.event).toBe("done");
    expectNoSecret(events.map((event) => event.data).join("\n"));
  });

  it("app transaction", async () => {
    const response = await api("POST", `/apps/${b.appId}/transaction`, {
      key: b.key,
      body: { input: { question: QUESTION } },
    });
    expect(response.status).toBe(200);
    expectNoSecret(response.body);
    const execution = await traceOf(b.key, response.body.executionId);
    expectNoSecret(execution);
    expectNotFoundNoted(execution, ["node"]);
  });

  it("MCP converse_with_app", async () => {
    const client = await mcp.connect(b.tenant.personalKey.secret);
    const result = await client.callTool({
      name: "converse_with_app",
      arguments: { appId: b.appId, message: QUESTION },
    });
    expect(result.isError).toBeFalsy();
    expectNoSecret(structured(result));
    expectNoSecret(result.content);
  });
});

describe("reads scoped by organization", () => {
  it("knowledgebase search and export of a notebook or a foreign knowledgebase: not_found, nothing charged", async () => {
    const a = await victim();
    const b = await newOrganization();
    const notebook = await notebookOf(b);
    const credits = async () =>
      (await getDb().organization.findUniqueOrThrow({ where: { id: b.organization.id } })).credits;
    const before = await credits();
    for (const id of [a.kbId, notebook]) {
      for (const kinds of [["pages"], ["sources"], undefined]) {
        expectError(
          await api("POST", `/knowledgebases/${id}/search`, {
            key: b.orgKey.secret,
            body: { query: "zebra", ...(kinds && { kinds }) },
          }),
          404,
          "not_found",
        );
      }
      expectError(await api("GET", `/knowledgebases/${id}/export`, { key: b.orgKey.secret }), 404, "not_found");
    }
    expect(await credits()).toBe(before);
  });
});

describe("at run time, agents, flows and pins of another organization never run", () => {
  /** Organization A's published flow and agent, both reading A's secret. */
  async function victimItems() {
    const a = await victim();
    const key = a.tenant.orgKey.secret;
    const flow = await create(key, "flows", {
      name: "Vault finder",
      description: "zebra vault code",
      inputs: INPUTS,
      nodes: searchNodes(a.kbId),
    });
    const agent = await create(key, "agents", {
      name: "Vault agent",
      description: "zebra vault code",
      knowledge: [{ knowledgebaseId: a.kbId }],
    });
    const flowVersion = (await publish(key, "flows", flow.id)).version.id as string;
    const agentVersion = (await publish(key, "agents", agent.id)).version.id as string;
    return {
      ...a,
      flow: { id: flow.id as string, versionId: flowVersion },
      agent: { id: agent.id as string, versionId: agentVersion },
    };
  }

  it("an agent whose attached flow is another organization's: the flow does not run", async () => {
    const a = await victimItems();
    const b = await newOrganization();
    const key = b.orgKey.secret;
    const ownFlow = await create(key, "flows", {
      name: "Vault finder",
      description: "zebra vault code",
      inputs: INPUTS,
    });
    await publish(key, "flows", ownFlow.id);
    const agent = await create(key, "agents", { name: "Helper", description: "zebra vault code", flows: [ownFlow.id] });
    await publish(key, "agents", agent.id);
    const app = await create(key, "apps", {
      name: "Helper app",
      members: [{ id: agent.id, kind: "agent" }],
      orchestrationMode: "sequential",
    });
    await publish(key, "apps", app.id);
    await rewriteReferences(agent.id, ownFlow.id, a.flow.id);
    const response = await api("POST", `/apps/${app.id}/conversation`, { key, body: { message: QUESTION } });
    expect(response.status).toBe(200);
    expectNoSecret(response.body);
    const execution = (await api("GET", `/executions?itemId=${app.id}`, { key })).body.executions.at(-1);
    expect(execution.trace.map((entry: { id: string }) => entry.id)).not.toContain(a.flow.id);
    expect(execution.trace.find((entry: { kind: string }) => entry.kind === "agent").note).toMatch(/flow .*not found/);
    expectNoSecret(execution);
  });

  it("an app version whose pins name another organization's agent or flow: refused as unpublished_dependencies, nothing of theirs runs", async () => {
    const a = await victimItems();
    const b = await newOrganization();
    const key = b.orgKey.secret;
    const agent = await create(key, "agents", { name: "Own" });
    await publish(key, "agents", agent.id);
    const app = await create(key, "apps", {
      name: "Pinned",
      members: [{ id: agent.id, kind: "agent" }],
      orchestrationMode: "sequential",
    });
    await publish(key, "apps", app.id);
    // Warm the run's version cache with A's versions, as A's own traffic would.
    const aApp = await create(a.tenant.orgKey.secret, "apps", {
      name: "A app",
      members: [
        { id: a.agent.id, kind: "agent" },
        { id: a.flow.id, kind: "flow" },
      ],
      orchestrationMode: "sequential",
    });
    await publish(a.tenant.orgKey.secret, "apps", aApp.id);
    expect(
      (await api("POST", `/apps/${aApp.id}/conversation`, { key: a.tenant.orgKey.secret, body: { message: QUESTION } }))
        .body.reply,
    ).toContain(SECRET_MARKER);
    for (const pin of [
      { ...a.agent, kind: "agent" },
      { ...a.flow, kind: "flow" },
    ]) {
      const version = await getDb().builderVersion.findFirstOrThrow({ where: { itemId: app.id } });
      await getDb().builderVersion.update({
        where: { id: version.id },
        data: { pins: { adviser: null, members: [pin] } },
      });
      const response = await api("POST", `/apps/${app.id}/conversation`, { key, body: { message: QUESTION } });
      expectError(response, 422, "unpublished_dependencies");
      expectNoSecret(response.body);
    }
  });
});
