// A door that hands a long run only its Request's signal (the MCP door's tools, the REST door's
// procedures) must still learn that the client hung up after the Request object itself was
// collected: undici's Request follows the signal it was built with only while it is reachable.
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { toFetchRequest } from "@/server/http/node-bridge";
import { collectGarbageEvery, within } from "../garbage";

const servers: http.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A server that keeps only the signal of each request's Request, never answering. */
async function signalKeeper(): Promise<{ port: number; signals: AbortSignal[]; received: Promise<void> }> {
  const signals: AbortSignal[] = [];
  let onReceived = () => {};
  const received = new Promise<void>((resolve) => (onReceived = resolve));
  const server = http.createServer((message, response) => {
    signals.push(toFetchRequest(message, response)!.signal);
    onReceived();
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { port: (server.address() as AddressInfo).port, signals, received };
}

const aborted = (signal: AbortSignal) =>
  new Promise<true>((resolve) => {
    if (signal.aborted) resolve(true);
    signal.addEventListener("abort", () => resolve(true), { once: true });
  });

describe("a request's signal when the client hangs up", () => {
  it("aborts after garbage collections, with only the signal kept", async () => {
    const keeper = await signalKeeper();
    const client = http.get({ host: "127.0.0.1", port: keeper.port, path: "/api/v1/models" });
    client.on("error", () => {});
    await keeper.received;
    const stopCollecting = collectGarbageEvery(5);
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      client.destroy();
      expect(await within(2000, aborted(keeper.signals[0]!))).toBe(true);
    } finally {
      stopCollecting();
    }
  });

  it("does not abort while the client waits for its answer", async () => {
    const keeper = await signalKeeper();
    const client = http.get({ host: "127.0.0.1", port: keeper.port, path: "/api/v1/models" });
    client.on("error", () => {});
    await keeper.received;
    expect(await within(300, aborted(keeper.signals[0]!))).toBe("still waiting");
    client.destroy();
  });
});
