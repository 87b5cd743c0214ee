// What ALLOW_PRIVATE_INTEGRATION_URLS=true covers, and what it never does. It lets the endpoints
// an admin configures (model providers, MCP connections) reach private and loopback addresses;
// URLs from a model's output (webScrape) stay public-only whatever it says, and cloud metadata
// addresses are refused for every fetch, an admin's included, in any spelling.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.MODEL_PROVIDER_MODELS = "tool-model";
  process.env.MODEL_PROVIDER_NAME = "testai";
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

import { getDb } from "@/server/db";
import { deploymentFetch, guardedFetch } from "@/server/integration-urls";
import { createMcpConnection, listMcpConnectionTools } from "@/server/services/org/mcp-connections";
import { createModelProvider } from "@/server/services/org/model-providers";
import { startFakeMcp, type FakeMcp } from "../fake-mcp";
import { startFakeOpenAI, type ChatMessage, type FakeOpenAI, type FakeReply } from "../fake-openai";
import { create, publish } from "../builder-helpers";
import { newOrganization, type Tenant } from "../helpers";
import { converse } from "../runtime-helpers";

let fake: FakeOpenAI;
let mcp: FakeMcp;
let page: http.Server;
let port: number;
const pageRequests: string[] = [];

function script(messages: ChatMessage[]): FakeReply {
  const user = messages.filter((m) => m.role === "user").at(-1)!.content;
  const result = messages.filter((m) => m.role === "tool").at(-1)?.content;
  if (result !== undefined) return `Tool said: ${result}`;
  if (user.startsWith("scrape "))
    return { toolCalls: [{ name: "web_scrape", args: { url: user.slice("scrape ".length) } }] };
  return "Answered on 127.0.0.1.";
}

beforeAll(async () => {
  fake = await startFakeOpenAI(script);
  process.env.MODEL_PROVIDER_BASE_URL = fake.baseURL;
  mcp = await startFakeMcp();
  // An internal page, on IPv4 and IPv6 loopback alike: any request reaching it is a leak.
  page = http.createServer((req, res) => {
    pageRequests.push(req.url ?? "");
    res
      .writeHead(200, { "content-type": "text/html" })
      .end("<html><head><title>Internal</title></head><body><p>internal secret</p></body></html>");
  });
  await new Promise<void>((resolve) => page.listen(0, "::", resolve));
  port = (page.address() as AddressInfo).port;
});
afterAll(async () => {
  page.closeAllConnections();
  await Promise.all([fake.close(), mcp.close(), new Promise((resolve) => page.close(resolve))]);
});
beforeEach(() => {
  pageRequests.length = 0;
});

async function scraperApp(tenant: Tenant): Promise<string> {
  const key = tenant.orgKey.secret;
  const agent = await create(key, "agents", { name: "Scraper", model: "tool-model", builtIns: { webScrape: true } });
  await publish(key, "agents", agent.id);
  const app = await create(key, "apps", {
    name: "Scrape app",
    members: [{ id: agent.id, kind: "agent" }],
    orchestrationMode: "sequential",
  });
  await publish(key, "apps", app.id);
  return app.id as string;
}

it("webScrape refuses loopback and metadata URLs from model output, in every spelling, with the switch on", async () => {
  const tenant = await newOrganization();
  const appId = await scraperApp(tenant);
  const urls = [
    `http://127.0.0.1:${port}/a`,
    `http://2130706433:${port}/b`,
    `http://0x7f000001:${port}/c`,
    `http://[::1]:${port}/d`,
    `http://[::ffff:127.0.0.1]:${port}/e`,
    `http://localhost:${port}/f`,
    "http://169.254.169.254/latest/meta-data/",
    "http://2852039166/latest/meta-data/",
  ];
  for (const url of urls) {
    const response = await converse(tenant.orgKey.secret, appId, { message: `scrape ${url}` });
    expect(response.status, url).toBe(200);
    expect(response.body.reply, url).toMatch(
      /^Tool said: The tool failed: Refused to fetch .*Only public addresses can be fetched/,
    );
    expect(response.body.reply, url).not.toContain("internal secret");
  }
  expect(pageRequests).toEqual([]);
});

it("a model provider and an MCP connection on 127.0.0.1 are allowed with the switch on", async () => {
  const tenant = await newOrganization();
  await createModelProvider(getDb(), tenant.operator, {
    slug: "local",
    kind: "openai-compatible",
    name: "Local",
    baseUrl: fake.baseURL,
    models: [{ id: "chat", kind: "chat" }],
  });
  const key = tenant.orgKey.secret;
  const agent = await create(key, "agents", { name: "Local agent", model: "local/chat" });
  await publish(key, "agents", agent.id);
  const app = await create(key, "apps", {
    name: "Local app",
    members: [{ id: agent.id, kind: "agent" }],
    orchestrationMode: "sequential",
  });
  await publish(key, "apps", app.id);
  const answer = await converse(key, app.id, { message: "hello" });
  expect(answer.status).toBe(200);
  expect(answer.body.reply).toBe("Answered on 127.0.0.1.");

  const connection = await createMcpConnection(getDb(), tenant.operator, {
    slug: "warehouse",
    name: "Warehouse",
    url: mcp.url,
    headers: [],
  });
  const { tools } = await listMcpConnectionTools(getDb(), tenant.operator, { connectionId: connection.id });
  expect(tools.map((tool: { name: string }) => tool.name)).toContain("lookup_order");
});

it("a metadata address is refused as a provider or MCP URL with the switch on, and nothing is stored", async () => {
  const tenant = await newOrganization();
  const metadataUrls = [
    "http://169.254.169.254/v1",
    "http://2852039166/v1",
    "http://0xa9fea9fe/v1",
    "http://0251.0376.0251.0376/v1",
    "http://[::ffff:169.254.169.254]/v1",
    "http://[fd00:ec2::254]/v1",
  ];
  for (const url of metadataUrls) {
    await expect(
      createModelProvider(getDb(), tenant.operator, {
        slug: "meta",
        kind: "openai-compatible",
        name: "Meta",
        baseUrl: url,
        models: [{ id: "m", kind: "chat" }],
      }),
      url,
    ).rejects.toMatchObject({
      code: "invalid_request",
      extra: {
        problems: [
          expect.objectContaining({ path: "baseUrl", message: expect.stringMatching(/cloud metadata address/) }),
        ],
      },
    });
    await expect(
      createMcpConnection(getDb(), tenant.operator, { slug: "meta", name: "Meta", url, headers: [] }),
      url,
    ).rejects.toMatchObject({
      code: "invalid_request",
      extra: { problems: [expect.objectContaining({ path: "url" })] },
    });
  }
  expect(await getDb().modelProvider.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  expect(await getDb().mcpConnection.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  // Before every request too (a URL stored earlier), and for the operator's own endpoints.
  for (const send of [guardedFetch, deploymentFetch]) {
    await expect(send("http://169.254.169.254/latest/meta-data/")).rejects.toThrow(/cloud metadata address/);
  }
});
