// Our own node:http server (the request listener `npm start` serves with) on a free loopback
// port, for tests that speak raw HTTP to it: forged headers, malformed cookies and requests.
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRequestListener } from "@/server/http/listener";

export interface LoopbackServer {
  server: http.Server;
  base: string;
  close(): void;
}

/** Pages (anything Next.js would serve) answer 404 here; the API routes are the real ones. */
export async function listenOnLoopback(trustProxy: number): Promise<LoopbackServer> {
  const server = http.createServer(
    createRequestListener({ trustProxy, fallback: (_, response) => response.writeHead(404).end() }),
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    server,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
