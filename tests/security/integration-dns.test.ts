// DNS rebinding against integration URLs (model providers, MCP servers), with the operator NOT
// allowing private addresses: a host name is resolved and checked before each request, and the
// connection goes to the address checked, never to a second DNS answer. DNS answers are scripted
// here (node:dns/promises is mocked for named test hosts); the server behind them is local.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, expect, it, vi } from "vitest";

const dns = vi.hoisted(() => ({ answers: new Map<string, string[]>(), asked: [] as string[] }));

vi.mock("node:dns/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:dns/promises")>();
  // A scripted host answers its addresses in turn, the last one from then on; an empty script does not resolve.
  const lookup = async (host: string, options: object) => {
    dns.asked.push(host);
    const script = dns.answers.get(host);
    if (!script) return actual.lookup(host, options as never);
    if (script.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    const address = script.length > 1 ? script.shift()! : script[0]!;
    return [{ address, family: 4 }];
  };
  return { ...actual, default: { ...actual, lookup }, lookup };
});

import { getDb } from "@/server/db";
import { guardedFetch } from "@/server/integration-urls";
import { FetchRefused, pinnedFetch } from "@/server/jobs/fetch-url";
import { modelFor } from "@/server/runtime/models";
import { listMcpConnectionTools, updateMcpConnection } from "@/server/services/org/mcp-connections";
import { updateModelProvider } from "@/server/services/org/model-providers";
import { newOrganization } from "../helpers";

let server: http.Server;
let port: number;
const received: { method: string; url: string; host: string; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      received.push({ method: req.method!, url: req.url!, host: req.headers.host!, body });
      if (req.url === "/redirect") res.writeHead(302, { location: `http://127.0.0.1:${port}/` }).end();
      else res.writeHead(200, { "content-type": "text/plain" }).end(`echo: ${body}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  received.length = 0;
  dns.asked.length = 0;
  dns.answers.clear();
});

it("refuses a name that resolves to a loopback address, and never connects", async () => {
  dns.answers.set("intranet.test", ["127.0.0.1"]);
  for (const url of [`http://localhost:${port}/`, `http://intranet.test:${port}/`]) {
    await expect(guardedFetch(url)).rejects.toThrow(
      /does not resolve to an address that may be reached\. Only public addresses/,
    );
  }
  expect(received).toEqual([]);
});

it("answers one refusal for a name that does not resolve and one that resolves to a private or metadata address", async () => {
  dns.answers.set("missing.test", []);
  dns.answers.set("intranet.test", ["10.0.0.5"]);
  dns.answers.set("loopback.test", ["127.0.0.1"]);
  dns.answers.set("metadata.test", ["169.254.169.254"]);
  const refusals = new Set<string>();
  for (const host of ["missing.test", "intranet.test", "loopback.test", "metadata.test"]) {
    const message = await guardedFetch(`http://${host}/v1`).then(
      () => `${host} was fetched`,
      (error: Error) => error.message,
    );
    expect(message).not.toMatch(/10\.0\.0\.5|127\.0\.0\.1|169\.254|could not be resolved|private address/);
    refusals.add(message.replaceAll(host, "HOST"));
  }
  expect([...refusals]).toEqual([
    "Refused to fetch http://HOST: the host HOST does not resolve to an address that may be reached. Only public addresses can be fetched (private, loopback, link-local and metadata addresses are refused).",
  ]);
  expect(received).toEqual([]);
});

it("connects to the address it checked, not to a second DNS answer (rebinding)", async () => {
  // The check is told a public address; any later lookup (the system's) says loopback, where the server listens.
  dns.answers.set("localhost", ["93.184.216.34"]);
  await expect(guardedFetch(`http://localhost:${port}/`, { signal: AbortSignal.timeout(2_000) })).rejects.toBeDefined();
  expect(dns.asked.filter((host) => host === "localhost")).toHaveLength(1);
  expect(received).toEqual([]);
});

it("pins the connection to the checked address: a name only the check knows reaches its server, bodies going both ways", async () => {
  dns.answers.set("pinned.test", ["127.0.0.1"]);
  const policy = { purpose: "content" as const, allow: [`pinned.test:${port}`] };
  const response = await pinnedFetch(
    `http://pinned.test:${port}/echo`,
    { method: "POST", body: "hello", headers: { "content-type": "text/plain" } },
    policy,
  );
  expect(response.status).toBe(200);
  expect(await response.text()).toBe("echo: hello");
  expect(received).toEqual([{ method: "POST", url: "/echo", host: `pinned.test:${port}`, body: "hello" }]);
  // Redirects are never followed: handed back as they are, or refused when the caller says so.
  expect((await pinnedFetch(`http://pinned.test:${port}/redirect`, undefined, policy)).status).toBe(302);
  await expect(pinnedFetch(`http://pinned.test:${port}/redirect`, { redirect: "error" }, policy)).rejects.toThrow(
    /redirect/,
  );
  expect(received.map((r) => r.url)).toEqual(["/echo", "/redirect", "/redirect"]);
  await expect(pinnedFetch("ftp://pinned.test/", undefined, policy)).rejects.toBeInstanceOf(FetchRefused);
});

it("refuses a private URL when a connection or a provider is edited, and changes nothing", async () => {
  const tenant = await newOrganization();
  const connection = await getDb().mcpConnection.create({
    data: {
      organizationId: tenant.organization.id,
      slug: "crm",
      name: "CRM",
      url: "https://mcp.example.com/mcp",
      headerNames: [],
    },
  });
  const provider = await getDb().modelProvider.create({
    data: {
      organizationId: tenant.organization.id,
      slug: "cloud",
      name: "Cloud",
      kind: "openai-compatible",
      baseUrl: "https://llm.example.com/v1",
      models: [{ id: "m", kind: "chat" }],
    },
  });
  dns.answers.set("intranet.test", ["10.0.0.5"]);
  for (const url of [`http://localhost:${port}/mcp`, "http://intranet.test/mcp", "http://169.254.169.254/latest"]) {
    await expect(
      updateMcpConnection(getDb(), tenant.operator, { connectionId: connection.id, url }),
    ).rejects.toMatchObject({
      code: "invalid_request",
      extra: { problems: [expect.objectContaining({ path: "url" })] },
    });
    await expect(
      updateModelProvider(getDb(), tenant.operator, { providerId: provider.id, baseUrl: url }),
    ).rejects.toMatchObject({
      code: "invalid_request",
      extra: { problems: [expect.objectContaining({ path: "baseUrl" })] },
    });
  }
  expect((await getDb().mcpConnection.findUniqueOrThrow({ where: { id: connection.id } })).url).toBe(
    "https://mcp.example.com/mcp",
  );
  expect((await getDb().modelProvider.findUniqueOrThrow({ where: { id: provider.id } })).baseUrl).toBe(
    "https://llm.example.com/v1",
  );
});

it("never calls a stored provider or MCP URL whose name resolves to a loopback address", async () => {
  const tenant = await newOrganization();
  const organizationId = tenant.organization.id;
  await getDb().modelProvider.create({
    data: {
      organizationId,
      slug: "local",
      name: "Local",
      kind: "openai-compatible",
      baseUrl: `http://localhost:${port}/v1`,
      models: [{ id: "chat", kind: "chat" }],
    },
  });
  const connection = await getDb().mcpConnection.create({
    data: { organizationId, slug: "local", name: "Local", url: `http://localhost:${port}/mcp`, headerNames: [] },
  });
  const model = await modelFor(getDb(), organizationId, "local/chat");
  const answer = () => model.answer({ system: "", history: [], message: "hi", knowledge: [] }, () => {});
  await expect(answer()).rejects.toBeDefined();
  await expect(listMcpConnectionTools(getDb(), tenant.operator, { connectionId: connection.id })).rejects.toMatchObject(
    {
      code: "provider_error",
      message: expect.stringContaining("Only public addresses"),
    },
  );
  expect(received).toEqual([]);
});
