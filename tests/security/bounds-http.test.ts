// The body cap over real sockets: the REST handler behind a Node HTTP server that hands it the
// incoming message as a streamed body, as Next.js's route adapter does. Four clients each stream
// 20 MB of JSON at once; each gets its 413 in the envelope while it is still sending.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newOrganization, restHandler, type Tenant } from "../helpers";
import { newKnowledgebase } from "../knowledge-helpers";

const TOTAL = 20_000_000;
let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers,
      body: req as never,
      duplex: "half",
    } as RequestInit);
    const response = await restHandler()(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface Outcome {
  status: number | undefined;
  body: string;
  /** Bytes the client had written when the answer arrived. */
  sentAtAnswer: number;
}

/** Streams `TOTAL` bytes of a JSON string body in chunks, reading the answer as soon as it comes. */
function streamBigBody(path: string, key: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "transfer-encoding": "chunked" },
      },
      (response) => {
        answered = true;
        const sentAtAnswer = sent;
        let body = "";
        response.on("data", (chunk) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode, body, sentAtAnswer }));
      },
    );
    request.on("error", (error) => (answered ? undefined : reject(error)));
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    request.write('{"title":"');
    const pump = () => {
      if (answered) return;
      if (sent >= TOTAL) return void request.end('"}');
      sent += chunk.length;
      if (request.write(chunk)) setTimeout(pump, 1);
      else request.once("drain", pump);
    };
    pump();
  });
}

describe("JSON bodies over 8 MiB over HTTP", () => {
  let tenant: Tenant;
  let kbId: string;
  beforeAll(async () => {
    tenant = await newOrganization();
    kbId = await newKnowledgebase(tenant);
  });

  it("answers four concurrent 20 MB streams with 413 before they are sent in full", async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () => streamBigBody(`/api/v1/knowledgebases/${kbId}/pages`, tenant.orgKey.secret)),
    );
    for (const outcome of outcomes) {
      expect(outcome.status).toBe(413);
      expect(JSON.parse(outcome.body).error.code).toBe("invalid_request");
      expect(outcome.sentAtAnswer).toBeLessThan(TOTAL);
    }
  });
});
