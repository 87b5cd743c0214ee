// Requests our own server (src/cli/http-server.ts) must answer in the envelope without letting
// them reach fetch's Request or Next.js: methods Atrium does not serve (TRACE once killed the
// process), a path that does not decode, a method a route does not take, and a handler that
// throws. Sent raw over TCP, as an attacker would, and each followed by a health check.
import { once } from "node:events";
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createRequestListener, guardServer } from "@/server/http/listener";
import { logger } from "@/server/observability/log";

/** Answers 299, so a test can tell the request went on to Next.js; /boom paths fail as a bug would. */
function fallback(message: http.IncomingMessage, response: http.ServerResponse) {
  if (message.url === "/boom") throw new Error("a synchronous bug");
  if (message.url === "/boom-later") return Promise.reject(new Error("an asynchronous bug"));
  response.writeHead(299).end();
}

let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer(createRequestListener({ trustProxy: 0, fallback }));
  guardServer(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as net.AddressInfo).port;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `head` as it is on a new connection and reads the answer until the server closes or has sent it all. */
async function raw(head: string): Promise<RawAnswer> {
  const socket = net.connect(port, "127.0.0.1");
  let text = "";
  socket.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  socket.write(head);
  const done = new Promise<void>((resolve) => {
    socket.once("close", () => resolve());
    socket.on("data", () => {
      const [, rest] = text.split("\r\n\r\n");
      const length = /content-length: *(\d+)/i.exec(text)?.[1];
      if (rest !== undefined && length !== undefined && Buffer.byteLength(rest) >= Number(length)) resolve();
    });
  });
  await done;
  socket.destroy();
  const [headText = "", body = ""] = text.split("\r\n\r\n");
  const [statusLine = "", ...lines] = headText.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body };
}

async function expectHealthy() {
  const response = await fetch(`http://127.0.0.1:${port}/api/health`);
  expect(response.status).toBe(200);
}

function expectEnvelope(answer: RawAnswer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers["x-request-id"]).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
  expect(answer.headers["content-type"]).toMatch(/^application\/json/);
  expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe(code);
}

describe("methods Atrium does not serve", () => {
  it.each(["TRACE", "TRACK", "CONNECT", "PROPFIND", "PURGE"])(
    "%s /api/v1/models answers 405 in the envelope, and the server keeps serving",
    async (method) => {
      const target = method === "CONNECT" ? "127.0.0.1:443" : "/api/v1/models";
      const answer = await raw(
        `${method} ${target} HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: probe-${method}\r\n\r\n`,
      );
      expectEnvelope(answer, 405, "method_not_allowed");
      expect(answer.headers["x-request-id"]).toBe(`probe-${method}`);
      expect(answer.headers.allow).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
      await expectHealthy();
    },
  );

  it("TRACE on a page and on the console's tRPC path are refused the same way", async () => {
    for (const target of ["/", "/api/trpc/organization.get", "/api/portal/trpc/auth.session"]) {
      expectEnvelope(await raw(`TRACE ${target} HTTP/1.1\r\nHost: localhost\r\n\r\n`), 405, "method_not_allowed");
    }
    await expectHealthy();
  });
});

describe("what Next.js would answer outside the envelope", () => {
  it("a method a page or a route does not take: 405 in the envelope, with the methods it takes", async () => {
    const cases: [string, string, string][] = [
      ["PUT", "/", "GET, HEAD"],
      ["DELETE", "/console/agents", "GET, HEAD"],
      ["PUT", "/api/health", "GET, HEAD, OPTIONS"],
      ["POST", "/api/metrics", "GET, HEAD, OPTIONS"],
      ["DELETE", "/api/trpc/organization.get", "GET, HEAD, POST, OPTIONS"],
      ["PUT", "/api/portal/trpc/auth.session", "GET, HEAD, POST, OPTIONS"],
      ["GET", "/api/console/apps/app_1/conversation", "POST, OPTIONS"],
      ["GET", "/api/portal/help/apps/app_1/conversation", "POST, OPTIONS"],
    ];
    for (const [method, path, allow] of cases) {
      const answer = await raw(`${method} ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n`);
      expectEnvelope(answer, 405, "method_not_allowed");
      expect(answer.headers.allow, `${method} ${path}`).toBe(allow);
    }
  });

  it.each(["/%", "/%E0%A4%A", "/api/%ZZ", "/p/%C0"])(
    "GET %s (a path that does not decode) answers 400 invalid_request",
    async (path) => {
      expectEnvelope(await raw(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`), 400, "invalid_request");
      await expectHealthy();
    },
  );

  it("a request target that is not a path answers 400 invalid_request", async () => {
    expectEnvelope(await raw("GET http://evil.example/ HTTP/1.1\r\nHost: localhost\r\n\r\n"), 400, "invalid_request");
  });

  it("pages still go to Next.js with GET and HEAD", async () => {
    expect((await raw("GET /console/agents HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")).status).toBe(
      299,
    );
    expect((await raw("HEAD / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")).status).toBe(299);
  });
});

describe("the last-resort handler", () => {
  it.each(["/boom", "/boom-later"])(
    "a request whose handling throws (%s) answers 500 server_error, is logged at error, and the server keeps serving",
    async (path) => {
      const logged = vi.spyOn(logger(), "error");
      try {
        const answer = await raw(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: boom-1\r\n\r\n`);
        expectEnvelope(answer, 500, "server_error");
        expect(answer.headers["x-request-id"]).toBe("boom-1");
        expect(logged).toHaveBeenCalledWith(expect.objectContaining({ requestId: "boom-1", path }), expect.any(String));
      } finally {
        logged.mockRestore();
      }
      await expectHealthy();
    },
  );
});

describe("keep-alive", () => {
  // Node's default closes a connection idle for 5 s; a client reusing it just then (a browser, a
  // load balancer, Playwright's request context) got ECONNRESET on an ordinary request.
  it("serves a second request on a connection left idle for 6 s", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<net.Socket>();
    const get = () =>
      new Promise<number>((resolve, reject) => {
        const request = http.get({ host: "127.0.0.1", port, path: "/api/health", agent }, (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
        });
        request.on("socket", (socket) => sockets.add(socket));
        request.on("error", reject);
      });
    try {
      expect(await get()).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(await get()).toBe(200);
      expect(sockets.size).toBe(1);
    } finally {
      agent.destroy();
    }
  }, 20_000);
});
