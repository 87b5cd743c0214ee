// Issue 16 point 3: an organization's MCP server connections (admins manage them, header values
// sealed and never shown), an agent's integrations checked against them, and their selected
// tools offered to a provider model (a local fake OpenAI server) and called on a local MCP
// server started here: arguments, result, step events, trace, a failing and a hanging tool,
// tenancy, and the header secret in no response or log line.
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, expect, it, vi } from "vitest";

const SECRET = vi.hoisted(() => {
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
  process.env.MODEL_PROVIDER_MODELS = "tool-model";
  process.env.MODEL_PROVIDER_NAME = "testai";
  // The MCP server and the fake provider listen on 127.0.0.1.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
  return "mcp-header-very-secret-value";
});

// Every log line of the process, kept to look for the secret in.
const logged: string[] = [];
(globalThis as { atriumLogger?: pino.Logger }).atriumLogger = pino(
  { level: "trace", base: { service: "atrium" } },
  new Writable({
    write(chunk, _encoding, done) {
      logged.push(String(chunk));
      done();
    },
  }),
);

import { COMMANDS, parseFlags } from "@/cli/commands";
import { getDb } from "@/server/db";
import { RUN_LIMITS } from "@/server/runtime/limits";
import { cachedToolList, TOOL_LIST_CACHE } from "@/server/runtime/mcp-client";
import {
  createMcpConnection,
  deleteMcpConnection,
  getMcpConnection,
  listMcpConnectionTools,
  updateMcpConnection,
} from "@/server/services/org/mcp-connections";
import { startFakeMcp, type FakeMcp } from "../fake-mcp";
import { startFakeOpenAI, type ChatMessage, type FakeOpenAI, type FakeReply } from "../fake-openai";
import { create, publish } from "../builder-helpers";
import {
  addPerson,
  api,
  consoleHandler,
  newOrganization,
  restHandler,
  signInCookie,
  trpc,
  trpcErrorCode,
  type Tenant,
} from "../helpers";
import { converse, readEvents } from "../runtime-helpers";

let mcp: FakeMcp;
let fake: FakeOpenAI;
const consoleLines: string[] = [];

function script(messages: ChatMessage[]): FakeReply {
  const user = messages.filter((m) => m.role === "user").at(-1)!.content;
  const result = messages.filter((m) => m.role === "tool").at(-1)?.content;
  if (result !== undefined) return `Tool said: ${result}`;
  if (user.startsWith("order")) return { toolCalls: [{ name: "warehouse_lookup_order", args: { order: "A-42" } }] };
  if (user.startsWith("fail")) return { toolCalls: [{ name: "warehouse_fail", args: {} }] };
  if (user.startsWith("hang")) return { toolCalls: [{ name: "warehouse_hang", args: {} }] };
  return "No tools needed.";
}

beforeAll(async () => {
  mcp = await startFakeMcp();
  fake = await startFakeOpenAI(script);
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation(
      (...args: unknown[]) => void consoleLines.push(args.map(String).join(" ")),
    );
  }
});
afterAll(async () => {
  vi.restoreAllMocks();
  await Promise.all([mcp.close(), fake.close()]);
});

function connect(tenant: Tenant, slug = "warehouse", url = mcp.url) {
  return createMcpConnection(getDb(), tenant.operator, {
    slug,
    name: "Warehouse",
    url,
    headers: [{ name: "Authorization", value: `Bearer ${SECRET}` }],
  });
}

const INTEGRATION = { toolkit: "warehouse", name: "Warehouse", selectedTools: ["lookup_order", "fail", "hang"] };

async function integrationApp(tenant: Tenant) {
  const key = tenant.orgKey.secret;
  const agent = await create(key, "agents", {
    name: "Warehouse agent",
    model: "tool-model",
    integrations: [INTEGRATION],
  });
  await publish(key, "agents", agent.id);
  const app = await create(key, "apps", {
    name: "Warehouse app",
    members: [{ id: agent.id, kind: "agent" }],
    orchestrationMode: "sequential",
  });
  await publish(key, "apps", app.id);
  return app.id as string;
}

async function lastTrace(tenant: Tenant) {
  const [execution] = await getDb().execution.findMany({
    where: { organizationId: tenant.organization.id },
    orderBy: { createdAt: "desc" },
    take: 1,
  });
  return execution!.trace as { kind: string; name: string; input?: string; output: string; note?: string }[];
}

it("lets admins add a connection in the console, shows header names only and seals the values", async () => {
  const tenant = await newOrganization();
  const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
  const created = await trpc(
    "mutation",
    "mcpConnections.create",
    {
      slug: "warehouse",
      name: "Warehouse",
      url: mcp.url,
      headers: [{ name: "Authorization", value: `Bearer ${SECRET}` }],
    },
    { cookie },
  );
  expect(created.status).toBe(200);
  expect(created.body.result.data).toMatchObject({ slug: "warehouse", url: mcp.url, headerNames: ["Authorization"] });
  const listed = await trpc("query", "mcpConnections.list", undefined, { cookie });
  const tools = await trpc("query", "mcpConnections.tools", { connectionId: created.body.result.data.id }, { cookie });
  expect(tools.status).toBe(200);
  expect(tools.body.result.data.tools.map((t: { name: string }) => t.name).sort()).toEqual([
    "fail",
    "hang",
    "lookup_order",
  ]);
  expect(tools.body.result.data.tools).toContainEqual({
    name: "lookup_order",
    description: "Looks up an order by its number",
  });
  for (const response of [created, listed, tools]) expect(response.text).not.toContain(SECRET);
  // The header reached the MCP server; at rest it is sealed.
  expect(mcp.requests.at(-1)!.authorization).toBe(`Bearer ${SECRET}`);
  const row = await getDb().mcpConnection.findUniqueOrThrow({ where: { id: created.body.result.data.id } });
  expect(row.headersCiphertext).toMatch(/^v1:/);
  expect(row.headersCiphertext).not.toContain(SECRET);
});

it("is managed by admins only: builders may read the list and tools, API keys reach nothing", async () => {
  const tenant = await newOrganization();
  const connection = await connect(tenant);
  const builder = await addPerson(tenant.operator, "member");
  const cookie = await signInCookie(builder.email, builder.password);
  const refused = await trpc(
    "mutation",
    "mcpConnections.create",
    { slug: "other", name: "Other", url: mcp.url },
    { cookie },
  );
  expect(trpcErrorCode(refused)).toBe("forbidden_role");
  expect(
    trpcErrorCode(await trpc("mutation", "mcpConnections.remove", { connectionId: connection.id }, { cookie })),
  ).toBe("forbidden_role");
  expect((await trpc("query", "mcpConnections.list", undefined, { cookie })).status).toBe(200);
  expect((await trpc("query", "mcpConnections.tools", { connectionId: connection.id }, { cookie })).status).toBe(200);
  const byKey = await consoleHandler()(
    new Request("http://localhost/api/trpc/mcpConnections.list", {
      headers: { authorization: `Bearer ${tenant.orgKey.secret}` },
    }),
  );
  expect(byKey.status).toBe(401);
  expect(await getDb().mcpConnection.count({ where: { organizationId: tenant.organization.id } })).toBe(1);
});

it("refuses bad input with invalid_request and writes nothing", async () => {
  const tenant = await newOrganization();
  const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
  const bad = [
    { slug: "a", name: "A", url: "ftp://example.com/mcp" },
    { slug: "a", name: "A", url: mcp.url, headers: [{ name: "Host", value: "evil" }] },
    { slug: "a", name: "A", url: mcp.url, headers: [{ name: "X-Key", value: "one\r\nInjected: yes" }] },
    {
      slug: "a",
      name: "A",
      url: mcp.url,
      headers: Array.from({ length: 21 }, (_, i) => ({ name: `X-${i}`, value: "v" })),
    },
  ];
  for (const input of bad)
    expect(trpcErrorCode(await trpc("mutation", "mcpConnections.create", input, { cookie }))).toBe("invalid_request");
  expect(await getDb().mcpConnection.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
});

it("answers 502 provider_error when the MCP server cannot be reached, without the secret", async () => {
  const tenant = await newOrganization();
  const connection = await connect(tenant, "gone", "http://127.0.0.1:9/mcp");
  const failure = await listMcpConnectionTools(getDb(), tenant.operator, { connectionId: connection.id }).catch(
    (error: unknown) => error,
  );
  expect(failure).toMatchObject({ code: "provider_error", status: 502 });
  expect(String((failure as Error).message)).not.toContain(SECRET);
});

it("keeps connections per organization: another one gets not_found and cannot name it in an agent", async () => {
  const tenant = await newOrganization();
  const other = await newOrganization();
  const connection = await connect(tenant);
  await expect(getMcpConnection(getDb(), other.operator, { connectionId: connection.id })).rejects.toMatchObject({
    code: "not_found",
  });
  await expect(listMcpConnectionTools(getDb(), other.operator, { connectionId: connection.id })).rejects.toMatchObject({
    code: "not_found",
  });
  const cookie = await signInCookie(other.owner.email, other.owner.password);
  expect((await trpc("query", "mcpConnections.list", undefined, { cookie })).body.result.data).toEqual([]);
  const refused = await api("POST", "/agents", {
    key: other.orgKey.secret,
    body: { name: "Thief", model: "tool-model", integrations: [INTEGRATION] },
  });
  expect(refused.status).toBe(422);
  expect(refused.body.error.code).toBe("mcp_connection_not_found");
  expect(JSON.stringify(refused.body.error)).toContain("integrations.0.toolkit");
  expect(await getDb().builderItem.count({ where: { organizationId: other.organization.id } })).toBe(0);
});

it("checks the connection again at publish: a removed connection refuses the publish", async () => {
  const tenant = await newOrganization();
  const key = tenant.orgKey.secret;
  const connection = await connect(tenant);
  const agent = await create(key, "agents", { name: "Agent", model: "tool-model", integrations: [INTEGRATION] });
  await getDb().mcpConnection.delete({ where: { id: connection.id } });
  const refused = await api("POST", `/agents/${agent.id}/publish`, { key, body: {} });
  expect(refused.status).toBe(422);
  expect(JSON.stringify(refused.body.error)).toContain('No MCP connection \\"warehouse\\"');
});

it("offers the selected tools to the model as <toolkit>_<tool>, calls the MCP tool with its arguments and answers with the result", async () => {
  const tenant = await newOrganization();
  await connect(tenant);
  const appId = await integrationApp(tenant);
  const before = mcp.calls.length;
  const response = await converse(tenant.orgKey.secret, appId, { message: "order: where is A-42?" });
  expect(response.status).toBe(200);
  expect(response.body.reply).toBe("Tool said: Order A-42 ships tomorrow");
  expect(mcp.calls.slice(before)).toEqual([{ name: "lookup_order", args: { order: "A-42" } }]);
  const offered = fake.requests.find((r) => r.messages.some((m) => m.content === "order: where is A-42?"))!;
  expect(offered.tools.sort()).toEqual(["warehouse_fail", "warehouse_hang", "warehouse_lookup_order"]);
  expect(await lastTrace(tenant)).toContainEqual(
    expect.objectContaining({
      kind: "tool",
      name: "warehouse_lookup_order",
      input: '{"order":"A-42"}',
      output: "Order A-42 ships tomorrow",
    }),
  );
});

it("streams step events for the MCP tool call before done", async () => {
  const tenant = await newOrganization();
  await connect(tenant);
  const appId = await integrationApp(tenant);
  const response = await restHandler()(
    new Request(`http://localhost/api/v1/apps/${appId}/conversation`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.orgKey.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "order: where is A-42?", stream: true }),
    }),
  );
  const events = await readEvents(response);
  const toolSteps = events.filter((e) => e.event === "step").map((e) => JSON.parse(e.data) as { kind: string });
  expect(toolSteps.filter((s) => s.kind === "tool")).toEqual([
    { kind: "tool", name: "warehouse_lookup_order", status: "started" },
    { kind: "tool", name: "warehouse_lookup_order", status: "finished", output: "Order A-42 ships tomorrow" },
  ]);
  expect(events.at(-1)!.event).toBe("done");
});

it("reports an erroring MCP tool to the model, and the run carries on", async () => {
  const tenant = await newOrganization();
  await connect(tenant);
  const appId = await integrationApp(tenant);
  const response = await converse(tenant.orgKey.secret, appId, { message: "fail please" });
  expect(response.status).toBe(200);
  expect(response.body.reply).toMatch(/^Tool said: The tool failed: .*the warehouse is closed/);
  expect(await lastTrace(tenant)).toContainEqual(
    expect.objectContaining({ kind: "tool", name: "warehouse_fail", note: "the tool failed; the model was told" }),
  );
});

it("cuts a hanging MCP tool off at the tool time bound and tells the model", async () => {
  const saved = RUN_LIMITS.toolCallMs;
  RUN_LIMITS.toolCallMs = 500;
  try {
    const tenant = await newOrganization();
    await connect(tenant);
    const appId = await integrationApp(tenant);
    const response = await converse(tenant.orgKey.secret, appId, { message: "hang around" });
    expect(response.status).toBe(200);
    expect(response.body.reply).toContain("did not answer within");
  } finally {
    RUN_LIMITS.toolCallMs = saved;
  }
});

it("runs without the tools of a connection that is gone, and says so in the trace", async () => {
  const tenant = await newOrganization();
  const connection = await connect(tenant);
  const appId = await integrationApp(tenant);
  await getDb().mcpConnection.delete({ where: { id: connection.id } });
  const before = fake.requests.length;
  const response = await converse(tenant.orgKey.secret, appId, { message: "hello" });
  expect(response.status).toBe(200);
  expect(response.body.reply).toBe("No tools needed.");
  expect(fake.requests.slice(before)[0]!.tools).toEqual([]);
  expect(await lastTrace(tenant)).toContainEqual(
    expect.objectContaining({ name: "warehouse", note: expect.stringContaining("not found in this organization") }),
  );
});

it("is managed with the admin CLI: integration add, list, tools and remove, never showing header values", async () => {
  const tenant = await newOrganization();
  const run = (command: string, ...args: string[]) =>
    COMMANDS[command]!.run(getDb(), parseFlags(COMMANDS[command]!.flags, args)) as Promise<any>;
  const headers = JSON.stringify({ Authorization: `Bearer ${SECRET}` });
  const { connection } = await run(
    "integration add",
    "--org",
    tenant.organization.id,
    "--slug",
    "warehouse",
    "--url",
    mcp.url,
    "--headers",
    headers,
  );
  expect(connection).toMatchObject({ slug: "warehouse", name: "warehouse", headerNames: ["Authorization"] });
  const listed = await run("integration list", "--org", tenant.organization.id);
  const tools = await run("integration tools", "--connection", connection.id);
  expect(tools.tools.map((t: { name: string }) => t.name).sort()).toEqual(["fail", "hang", "lookup_order"]);
  expect(JSON.stringify([connection, listed, tools])).not.toContain(SECRET);
  await expect(
    run("integration add", "--org", tenant.organization.id, "--slug", "bad", "--url", mcp.url, "--headers", "not json"),
  ).rejects.toMatchObject({
    code: "invalid_request",
  });
  await run("integration remove", "--connection", connection.id);
  expect(await getDb().mcpConnection.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
});

it("loads no connection and asks no MCP server for a turn on the built-in model", async () => {
  const tenant = await newOrganization();
  await connect(tenant);
  const key = tenant.orgKey.secret;
  const agent = await create(key, "agents", { name: "Offline agent", integrations: [INTEGRATION] });
  await publish(key, "agents", agent.id);
  const app = await create(key, "apps", {
    name: "Offline app",
    members: [{ id: agent.id, kind: "agent" }],
    orchestrationMode: "sequential",
  });
  await publish(key, "apps", app.id);
  const before = { mcp: mcp.requests.length, model: fake.requests.length };
  const findMany = vi.spyOn(getDb().mcpConnection, "findMany");
  try {
    expect((await converse(key, app.id, { message: "order: where is A-42?" })).status).toBe(200);
    expect(findMany).not.toHaveBeenCalled();
  } finally {
    findMany.mockRestore();
  }
  expect({ mcp: mcp.requests.length, model: fake.requests.length }).toEqual(before);
});

it("lists a connection's tools once per TTL, not every turn, and again as soon as the connection is updated", async () => {
  const tenant = await newOrganization();
  const connection = await connect(tenant);
  const appId = await integrationApp(tenant);
  const turn = async () => {
    const before = mcp.requests.length;
    const response = await converse(tenant.orgKey.secret, appId, { message: "hello" });
    expect(response.status).toBe(200);
    expect(fake.requests.at(-1)!.tools.sort()).toEqual(["warehouse_fail", "warehouse_hang", "warehouse_lookup_order"]);
    return mcp.requests.length - before;
  };
  expect(await turn()).toBeGreaterThan(0);
  // The second turn asks the MCP server nothing: no tool was called, and the list is cached.
  expect(await turn()).toBe(0);
  await updateMcpConnection(getDb(), tenant.operator, {
    connectionId: connection.id,
    headers: [{ name: "Authorization" }, { name: "X-Team", value: "blue" }],
  });
  expect(await turn()).toBeGreaterThan(0);
  expect(mcp.requests.at(-1)).toMatchObject({ authorization: `Bearer ${SECRET}`, "x-team": "blue" });
  expect(await turn()).toBe(0);
  // Removed: its tools are gone from the next turn at once.
  await deleteMcpConnection(getDb(), tenant.operator, { connectionId: connection.id });
  const response = await converse(tenant.orgKey.secret, appId, { message: "hello" });
  expect(fake.requests.at(-1)!.tools).toEqual([]);
  expect(response.body.reply).toBe("No tools needed.");
});

it("keeps cached tool lists per organization and drops them after the TTL", async () => {
  const [one, two] = [await newOrganization(), await newOrganization()];
  const [first, second] = [await connect(one), await connect(two)];
  const rowOf = (id: string) => getDb().mcpConnection.findUniqueOrThrow({ where: { id } });
  const signal = AbortSignal.timeout(10_000);
  const requests = async (work: () => Promise<unknown>) => {
    const before = mcp.requests.length;
    await work();
    return mcp.requests.length - before;
  };
  expect(
    await requests(async () => cachedToolList(one.organization.id, await rowOf(first.id), signal)),
  ).toBeGreaterThan(0);
  expect(await requests(async () => cachedToolList(one.organization.id, await rowOf(first.id), signal))).toBe(0);
  // Another organization's connection has its own entry, even under the same slug.
  expect(
    await requests(async () => cachedToolList(two.organization.id, await rowOf(second.id), signal)),
  ).toBeGreaterThan(0);
  const later = Date.now() + TOOL_LIST_CACHE.ttlMs + 1;
  const clock = vi.spyOn(Date, "now").mockReturnValue(later);
  try {
    expect(
      await requests(async () => cachedToolList(one.organization.id, await rowOf(first.id), signal)),
    ).toBeGreaterThan(0);
  } finally {
    clock.mockRestore();
  }
});

it("edits a connection in the console: URL and headers, an empty header value keeps the stored one, secrets stay write-only", async () => {
  const tenant = await newOrganization();
  const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
  const connection = await connect(tenant);
  const moved = `${mcp.url}?moved=1`;
  const edited = await trpc(
    "mutation",
    "mcpConnections.update",
    {
      connectionId: connection.id,
      name: "Warehouse EU",
      url: moved,
      headers: [{ name: "authorization" }, { name: "X-Team", value: "blue" }],
    },
    { cookie },
  );
  expect(edited.status).toBe(200);
  expect(edited.body.result.data).toMatchObject({
    name: "Warehouse EU",
    url: moved,
    headerNames: ["authorization", "X-Team"],
  });
  expect(edited.text).not.toContain(SECRET);
  await listMcpConnectionTools(getDb(), tenant.operator, { connectionId: connection.id });
  expect(mcp.requests.at(-1)).toMatchObject({ authorization: `Bearer ${SECRET}`, "x-team": "blue" });
  // A header without a value keeps a stored one only: a new name needs its value.
  const refused = await trpc(
    "mutation",
    "mcpConnections.update",
    { connectionId: connection.id, headers: [{ name: "X-Other" }] },
    { cookie },
  );
  expect(trpcErrorCode(refused)).toBe("invalid_request");
  expect(refused.text).toContain("headers.0.value");
  // [] removes every header; builders cannot edit.
  const cleared = await updateMcpConnection(getDb(), tenant.operator, { connectionId: connection.id, headers: [] });
  expect(cleared.headerNames).toEqual([]);
  expect(
    (await getDb().mcpConnection.findUniqueOrThrow({ where: { id: connection.id } })).headersCiphertext,
  ).toBeNull();
  const builder = await addPerson(tenant.operator, "member");
  const byBuilder = await trpc(
    "mutation",
    "mcpConnections.update",
    { connectionId: connection.id, name: "Mine" },
    { cookie: await signInCookie(builder.email, builder.password) },
  );
  expect(trpcErrorCode(byBuilder)).toBe("forbidden_role");
  // Another organization's connection is not_found.
  const other = await newOrganization();
  await expect(
    updateMcpConnection(getDb(), other.operator, { connectionId: connection.id, name: "Theirs" }),
  ).rejects.toMatchObject({ code: "not_found" });
});

it("is edited with the admin CLI: integration update, an empty header value keeping the stored one", async () => {
  const tenant = await newOrganization();
  const run = (command: string, ...args: string[]) =>
    COMMANDS[command]!.run(getDb(), parseFlags(COMMANDS[command]!.flags, args)) as Promise<any>;
  const connection = await connect(tenant);
  const { connection: updated } = await run(
    "integration update",
    "--connection",
    connection.id,
    "--name",
    "Depot",
    "--headers",
    JSON.stringify({ Authorization: "", "X-Team": "red" }),
  );
  expect(updated).toMatchObject({ name: "Depot", headerNames: ["Authorization", "X-Team"] });
  await run("integration tools", "--connection", connection.id);
  expect(mcp.requests.at(-1)).toMatchObject({ authorization: `Bearer ${SECRET}`, "x-team": "red" });
  await expect(
    run("integration update", "--connection", connection.id, "--url", "ftp://example.com/mcp"),
  ).rejects.toMatchObject({ code: "invalid_request" });
});

it("never writes the header secret to a log line or the console", () => {
  expect(logged.join("\n")).not.toContain(SECRET);
  expect(consoleLines.join("\n")).not.toContain(SECRET);
});
