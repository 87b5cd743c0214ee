// The http_request node against a loopback stand-in: templates reach it and its answer reaches
// the output; an MCP connection's stored headers go only to that connection's origin; a URL that
// comes from a variable follows the URL sources' rule (public addresses only) even where the
// operator lets admin-written endpoints reach private ones; metadata addresses never; the 1 MB
// answer bound and a failing status end the run naming the node.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
});

import { getDb } from "@/server/db";
import { createMcpConnection } from "@/server/services/org/mcp-connections";
import { api, expectError, newOrganization } from "../helpers";
import { create, publish } from "../builder-helpers";

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
let standIn: http.Server;
let base: string;
const seen: Seen[] = [];
let inFlight = 0;
let mostAtOnce = 0;

beforeAll(async () => {
  standIn = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      seen.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      if (request.url!.startsWith("/slow/")) {
        inFlight++;
        mostAtOnce = Math.max(mostAtOnce, inFlight);
        setTimeout(() => {
          inFlight--;
          response.writeHead(200).end(request.url!.slice("/slow/".length));
        }, 300);
        return;
      }
      if (request.url === "/big") return response.writeHead(200).end("x".repeat(2 * 1024 * 1024));
      if (request.url === "/broken") return response.writeHead(500).end("down");
      const order = /^\/orders\/([^/?]+)/.exec(request.url!)?.[1];
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ order, status: "shipped", note: JSON.parse(body || "{}").note ?? null }));
    });
  });
  await new Promise<void>((resolve) => standIn.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
});
afterAll(async () => {
  standIn.closeAllConnections();
  await new Promise((resolve) => standIn.close(resolve));
});
beforeEach(() => {
  seen.length = 0;
});

type Node = { id: string; type: string; data?: Record<string, unknown> };
const INPUTS = [
  { key: "order", type: "text", required: true },
  { key: "url", type: "text" },
];

async function httpApp(
  call: Record<string, unknown>,
  setup?: (tenant: Awaited<ReturnType<typeof newOrganization>>) => Promise<void>,
) {
  const tenant = await newOrganization();
  await setup?.(tenant);
  const key = tenant.orgKey.secret;
  const nodes: Node[] = [
    { id: "start", type: "trigger_start" },
    { id: "call", type: "http_request", data: call },
    { id: "out", type: "output", data: { value: '{"answer": {{nodes.call.output}}}' } },
  ];
  const flow = await create(key, "flows", { name: "Lookup", inputs: INPUTS, nodes });
  await publish(key, "flows", flow.id);
  const app = await create(key, "apps", {
    name: "Lookup app",
    members: [{ id: flow.id, kind: "flow" }],
    orchestrationMode: "sequential",
    api: { transactionEnabled: true },
  });
  await publish(key, "apps", app.id);
  return (input: Record<string, unknown>) => api("POST", `/apps/${app.id}/transaction`, { key, body: { input } });
}

describe("http_request", () => {
  it("sends the rendered method, URL, headers and body; the answer is the node's output", async () => {
    const transact = await httpApp({
      method: "POST",
      url: `${base}/orders/{{inputs.order}}`,
      headers: { "X-Order": "{{inputs.order}}", "Content-Type": "application/json" },
      body: '{"note": "order {{inputs.order}}, please"}',
    });
    const response = await transact({ order: "A-42" });
    expect(response.status).toBe(200);
    expect(response.body.output).toEqual({ answer: { order: "A-42", status: "shipped", note: "order A-42, please" } });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: "POST", url: "/orders/A-42", headers: { "x-order": "A-42" } });
  });

  it("sends an MCP connection's stored headers to that connection's origin only", async () => {
    const connect = async (tenant: Awaited<ReturnType<typeof newOrganization>>) => {
      await createMcpConnection(getDb(), tenant.operator, {
        slug: "orders",
        name: "Orders",
        url: `${base}/mcp`,
        headers: [{ name: "Authorization", value: "Bearer stored-secret" }],
      });
    };
    const transact = await httpApp({ url: `${base}/orders/{{inputs.order}}`, credentials: "orders" }, connect);
    expect((await transact({ order: "B-7" })).status).toBe(200);
    expect(seen[0]!.headers.authorization).toBe("Bearer stored-secret");

    // The same loopback server under another name is another origin: nothing is sent.
    const elsewhere = await httpApp(
      { url: `${base.replace("127.0.0.1", "localhost")}/orders/{{inputs.order}}`, credentials: "orders" },
      connect,
    );
    seen.length = 0;
    const refused = expectError(await elsewhere({ order: "B-7" }), 422, "invalid_workflow");
    expect(refused.feedback).toEqual([
      { nodeId: "call", message: expect.stringContaining(`are sent only to ${base}, not to this URL`) },
    ]);
    expect(seen).toEqual([]);
  });

  it("a URL from a variable is refused a private address as URL sources refuse it; nothing is sent", async () => {
    const transact = await httpApp({ url: "{{inputs.url}}" });
    const response = await transact({ order: "A-1", url: `${base}/orders/A-1` });
    const error = expectError(response, 422, "invalid_workflow");
    expect(error.feedback).toEqual([
      {
        nodeId: "call",
        message: expect.stringContaining(
          "127.0.0.1 is a private address. Only public addresses can be fetched (private, loopback, link-local and metadata addresses are refused)",
        ),
      },
    ]);
    expect(seen).toEqual([]);
    const [execution] = await getDb().execution.findMany({
      where: { kind: "transaction", error: { contains: '"call"' } },
    });
    expect(execution).toMatchObject({ status: "failed" });
  });

  it("a cloud metadata address is refused even when the builder wrote it", async () => {
    const transact = await httpApp({ url: "http://169.254.169.254/latest/meta-data/" });
    const error = expectError(await transact({ order: "A-1" }), 422, "invalid_workflow");
    expect(error.feedback[0].message).toContain("169.254.169.254 is a cloud metadata address");
  });

  it("an answer over 1 MB ends the run at the bound; a failing status names the node", async () => {
    const big = await httpApp({ url: `${base}/big` });
    const tooBig = expectError(await big({ order: "A-1" }), 422, "run_limit_exceeded");
    expect(tooBig.message).toMatch(/http answer.*at most 1 MB.*node "call"/);

    const broken = await httpApp({ url: `${base}/broken` });
    const failed = expectError(await broken({ order: "A-1" }), 422, "invalid_workflow");
    expect(failed.feedback).toEqual([{ nodeId: "call", message: `${base} answered HTTP 500` }]);
  });

  it("a loop's calls run at most 5 at once, each item's answer in its place", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const flow = await create(key, "flows", {
      name: "Fan out",
      inputs: [{ key: "ids", type: "multiselect", required: true }],
      nodes: [
        { id: "start", type: "trigger_start" },
        {
          id: "each",
          type: "loop",
          data: {
            items: { var: "inputs.ids" },
            concurrency: 5,
            body: [{ id: "fetch", type: "http_request", data: { url: `${base}/slow/{{loop.item}}` } }],
          },
        },
        { id: "out", type: "output", data: { value: '{"answers": {{nodes.each.output}}}' } },
      ],
    });
    await publish(key, "flows", flow.id);
    const app = await create(key, "apps", {
      name: "Fan out app",
      members: [{ id: flow.id, kind: "flow" }],
      orchestrationMode: "sequential",
      api: { transactionEnabled: true },
    });
    await publish(key, "apps", app.id);
    mostAtOnce = 0;
    const ids = Array.from({ length: 12 }, (_, i) => `id${i}`);
    const response = await api("POST", `/apps/${app.id}/transaction`, { key, body: { input: { ids } } });
    expect(response.status).toBe(200);
    expect(response.body.output).toEqual({ answers: ids });
    // Never more than 5 (12 unbounded), and more than one: the items do overlap.
    expect(mostAtOnce).toBeLessThanOrEqual(5);
    expect(mostAtOnce).toBeGreaterThan(1);
  });
});
