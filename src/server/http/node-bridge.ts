// node:http to the fetch API and back, for the routes our own server answers without Next.js
// (src/cli/http-server.ts): the incoming message as a Request whose signal aborts when the
// client hangs up, and a Response written out, streamed (Server-Sent Events) or in one piece.
// Next.js's headers() config applies only to what Next.js answers, so the API's static security
// headers are added here from the same definition.
import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { publicOrigin } from "@/env";
import apiSecurityHeaders from "@/lib/api-security-headers.json";
import { takeTextSource, type TextSource } from "@/server/adapters/event-stream-response";
import { textOf } from "@/server/adapters/text-response";

export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = apiSecurityHeaders;

/**
 * Each response's Request, kept while the response is: undici's Request follows the signal it was
 * built with only while the Request is reachable, and a door may hand a long run only its signal.
 */
const requestsInFlight = new WeakMap<ServerResponse, Request>();

/**
 * The message as a fetch Request, as `method` (a HEAD is handed to a GET-only route as GET); null
 * when its target is not a path (`*`, an absolute URL with another host…). Its URL starts with
 * the configured public origin, not the client's Host header: nothing built from `request.url`
 * can then carry a host an attacker chose (the Host header itself is still passed on, for the
 * same-origin check).
 */
export function toFetchRequest(
  message: IncomingMessage,
  response: ServerResponse,
  method = message.method ?? "GET",
): Request | null {
  const target = message.url ?? "/";
  if (!target.startsWith("/")) return null;
  let url: URL;
  try {
    url = new URL(`${publicOrigin()}${target}`);
  } catch {
    return null;
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (value) for (const item of value) headers.append(name, item);
  }
  const aborted = new AbortController();
  response.once("close", () => {
    if (!response.writableFinished) aborted.abort();
  });
  const withBody = method !== "GET" && method !== "HEAD";
  const request = new Request(url, {
    method,
    headers,
    signal: aborted.signal,
    body: withBody ? (Readable.toWeb(message) as ReadableStream<Uint8Array>) : null,
    // Node's fetch requires this for a streamed request body.
    duplex: "half",
  } as RequestInit);
  requestsInFlight.set(response, request);
  return request;
}

/**
 * Writes `answer` (plus the API's security headers) to `response`: an answer built by
 * textResponse from the text it holds, event streams flushed as they come (one built by
 * eventStreamResponse without its web stream), anything else read whole.
 */
export async function sendFetchResponse(answer: Response, response: ServerResponse): Promise<void> {
  response.statusCode = answer.status;
  for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) response.setHeader(name, value);
  answer.headers.forEach((value, name) => {
    if (name !== "set-cookie") response.setHeader(name, value);
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) response.setHeader("set-cookie", cookies);

  const text = textOf(answer);
  if (text !== undefined || !answer.body) {
    response.end(text);
    return;
  }
  if (!answer.headers.get("content-type")?.startsWith("text/event-stream")) {
    response.end(Buffer.from(await answer.arrayBuffer()));
    return;
  }
  response.flushHeaders();
  const source = takeTextSource(answer);
  if (source) return writeTextSource(source, response);
  const reader = answer.body.getReader();
  // The client went away: the stream's producer learns it through the cancel.
  response.once("close", () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || response.destroyed) break;
      if (!response.write(value)) await Promise.race([once(response, "drain"), once(response, "close")]);
    }
  } finally {
    response.end();
  }
}

/**
 * An event stream's text written to the socket as it comes, until its source ends it or the client
 * leaves. A slow client's text waits in the socket's buffer, as it waited in the web stream's queue.
 */
function writeTextSource(source: TextSource, response: ServerResponse): Promise<void> {
  // A client gone before the first write will not close again: its stream never starts.
  if (response.destroyed) {
    source.cancel();
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    response.once("close", () => {
      source.cancel();
      resolve();
    });
    source.start({
      write: (text) => {
        if (!response.destroyed) response.write(text);
      },
      close: () => response.end(),
    });
  });
}
