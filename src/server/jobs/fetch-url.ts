// Server-side URL fetching that cannot be turned against the server's own network (SSRF):
// http and https only; every host name resolved and every address checked (private, loopback,
// link-local, unique-local, CGNAT, multicast, metadata; IPv4, IPv6 and IPv4 inside IPv6) under
// the one rule of addressVerdict, by the fetch's purpose; the connection pinned to the checked
// address (no second DNS answer); redirects followed by hand, at most MAX_REDIRECTS, each one
// checked again as content; bounded time and size. pinnedFetch gives clients that make their own
// requests (model providers, MCP servers) the same check and pin, and never follows a redirect.
// This module imports nothing from the server: the extraction child process runs it too.
import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { Readable } from "node:stream";

export class FetchRefused extends Error {
  override readonly name = "FetchRefused";
}

export interface FetchLimits {
  /** `host:port` pairs allowed although their address is not public (tests' local servers); never a metadata address. */
  allow?: readonly string[];
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
}

/**
 * Whose URL a fetch follows, which decides the addresses it may reach (addressVerdict):
 * - `content`: a URL that came from content, an end user or a model (URL sources, webScrape, any
 *   link a tool follows) and every redirect any fetch follows: public addresses only, always.
 * - `integration`: an endpoint an organization's admin configured (model providers, MCP
 *   connections, webhook endpoints, OIDC issuers): public addresses only unless the operator set
 *   ALLOW_PRIVATE_INTEGRATION_URLS (`privateAddresses`).
 * - `deployment`: an endpoint in the operator's own configuration (MODEL_PROVIDER_BASE_URL,
 *   WEB_SEARCH_URL): any address.
 * Cloud metadata addresses are refused whatever the purpose.
 */
export type FetchPolicy = FetchLimits &
  ({ purpose: "content" } | { purpose: "integration"; privateAddresses: boolean } | { purpose: "deployment" });

export type FetchPurpose = FetchPolicy["purpose"];

export interface Fetched {
  url: string;
  contentType: string;
  bytes: Buffer;
  /** The answer's validators, for a conditional request next time. */
  validators: Validators;
  /** A conditional request answered 304: the document is as it was (bytes empty). */
  notModified: boolean;
}

/** ETag and Last-Modified of a fetched document, sent back as If-None-Match and If-Modified-Since. */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

const BLOCKED = new net.BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
  ["100::", 64],
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv6");
}

/** The IPv4 address carried inside an IPv6 one (mapped ::ffff:a.b.c.d, compatible, NAT64, 6to4), if any. */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:(?:0:)?|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:::ffff:(?:0:)?|::|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4}):/.exec(lower);
  if (sixToFour) {
    const high = parseInt(sixToFour[1]!, 16);
    const low = parseInt(sixToFour[2]!, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return null;
}

/** True when the address is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return !BLOCKED.check(address, "ipv4");
  if (family === 6) {
    const inner = embeddedIpv4(address);
    if (inner) return isPublicAddress(inner);
    return !BLOCKED.check(address, "ipv6");
  }
  return false;
}

/**
 * Where clouds serve instance metadata and credentials: the IPv4 link-local range (AWS, GCP,
 * Azure, OpenStack and others at 169.254.169.254, ECS task credentials at 169.254.170.2),
 * Alibaba Cloud's 100.100.100.200 and AWS's IPv6 fd00:ec2::254.
 */
const METADATA = new net.BlockList();
METADATA.addSubnet("169.254.0.0", 16, "ipv4");
METADATA.addAddress("100.100.100.200", "ipv4");
METADATA.addAddress("fd00:ec2::254", "ipv6");

/** True for a cloud metadata address in any spelling the URL parser and DNS hand us (IPv4 inside IPv6 too). */
export function isMetadataAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return METADATA.check(address, "ipv4");
  if (family === 6) {
    const inner = embeddedIpv4(address);
    return inner ? isMetadataAddress(inner) : METADATA.check(address, "ipv6");
  }
  return false;
}

/** The one rule of which addresses a fetch may reach, by its purpose (see FetchPolicy). */
export function addressVerdict(address: string, policy: FetchPolicy): "reachable" | "private" | "metadata" {
  if (isMetadataAddress(address)) return "metadata";
  if (isPublicAddress(address)) return "reachable";
  if (policy.purpose === "deployment" || (policy.purpose === "integration" && policy.privateAddresses))
    return "reachable";
  return "private";
}

/** Where a refused URL may not go, as the refusal names it (the rule, never an address). */
function ruleOf(policy: FetchPolicy): string {
  return policy.purpose === "content" || (policy.purpose === "integration" && !policy.privateAddresses)
    ? "Only public addresses can be fetched (private, loopback, link-local and metadata addresses are refused)"
    : "This URL may reach private addresses, but never a cloud metadata address";
}

async function resolveChecked(url: URL, policy: FetchPolicy): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const allowListed = policy.allow?.includes(`${host}:${port}`) ?? false;
  const permitted = (address: string) => {
    const verdict = addressVerdict(address, policy);
    return verdict === "reachable" || (verdict === "private" && allowListed);
  };
  if (net.isIP(host)) {
    // An address given as such: naming it tells nothing the caller did not know.
    const verdict = addressVerdict(host, policy);
    if (!permitted(host)) {
      const what = verdict === "metadata" ? "a cloud metadata address" : "a private address";
      throw new FetchRefused(`Refused to fetch ${url.origin}: ${host} is ${what}. ${ruleOf(policy)}.`);
    }
    return { address: host, family: net.isIP(host) };
  }
  const addresses = await dnsLookup(host, { all: true, verbatim: true }).catch(() => []);
  // One answer for a name that does not resolve and one that resolves where it may not go: telling
  // them apart, or naming the address, would map which internal names exist.
  if (addresses.length === 0 || !addresses.every((a) => permitted(a.address))) {
    throw new FetchRefused(
      `Refused to fetch ${url.origin}: the host ${host} does not resolve to an address that may be reached. ${ruleOf(policy)}.`,
    );
  }
  return addresses[0]!;
}

/** A `lookup` for node:http that connects to the address we checked, whatever DNS would answer now. */
function pinnedLookup(pinned: { address: string; family: number }): net.LookupFunction {
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    else (callback as (e: null, a: string, f: number) => void)(null, pinned.address, pinned.family);
  };
}

/** A header value as one line of printable ASCII, or nothing (it is sent back in a request). */
function headerValue(value: string | string[] | undefined): string | null {
  const text = Array.isArray(value) ? value[0] : value;
  return text && text.length <= 1024 && /^[\x20-\x7e]+$/.test(text) ? text : null;
}

function requestOnce(
  url: URL,
  pinned: { address: string; family: number },
  signal: AbortSignal,
  maxBytes: number,
  validators?: Validators,
) {
  return new Promise<{
    status: number;
    location?: string;
    contentType: string;
    bytes: Buffer;
    validators: Validators;
  }>((resolve, reject) => {
    const client = url.protocol === "https:" ? https : http;
    const request = client.request(
      url,
      {
        method: "GET",
        signal,
        headers: {
          "user-agent": "AtriumFetcher/1.0",
          accept: "text/html,text/markdown,text/plain,text/csv,application/pdf;q=0.9,*/*;q=0.5",
          ...(validators?.etag ? { "if-none-match": validators.etag } : {}),
          ...(validators?.lastModified ? { "if-modified-since": validators.lastModified } : {}),
        },
        lookup: pinnedLookup(pinned),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          response.resume();
          resolve({
            status,
            location: response.headers.location,
            contentType: "",
            bytes: Buffer.alloc(0),
            validators: { etag: null, lastModified: null },
          });
          return;
        }
        const declared = Number(response.headers["content-length"] ?? 0);
        if (declared > maxBytes) {
          response.destroy();
          reject(
            new FetchRefused(
              `The document is ${declared} bytes; the limit for fetched documents is ${maxBytes} bytes.`,
            ),
          );
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            response.destroy();
            reject(new FetchRefused(`The document is larger than the ${maxBytes}-byte limit for fetched documents.`));
            return;
          }
          chunks.push(chunk);
        });
        response.on("end", () =>
          resolve({
            status,
            contentType: String(response.headers["content-type"] ?? ""),
            bytes: Buffer.concat(chunks),
            validators: {
              etag: headerValue(response.headers.etag),
              lastModified: headerValue(response.headers["last-modified"]),
            },
          }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end();
  });
}

/** The URL if it is http(s) without credentials in it; FetchRefused otherwise. */
function reachableUrl(target: string): URL {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new FetchRefused(`${target} is not a URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new FetchRefused(`Only http and https URLs can be reached, not ${url.protocol}`);
  if (url.username || url.password)
    throw new FetchRefused("URLs with credentials in them are refused; put credentials in headers.");
  return url;
}

/**
 * Checks that a URL is http(s), carries no credentials and resolves only to addresses its
 * purpose may reach: the check when an integration's URL is written.
 */
export async function assertReachableUrl(target: string, policy: FetchPolicy): Promise<void> {
  await resolveChecked(reachableUrl(target), policy);
}

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** Keyed by the body stream of a pinnedFetch Response: the node:http response it would read. */
const nodeBodies = new WeakMap<ReadableStream<Uint8Array>, http.IncomingMessage>();

/**
 * A web body over `incoming` that a reader may take as the node stream itself (takeNodeBody) in
 * the turn of the event loop the Response is handed over, to read it without a web-stream layer
 * per chunk (issue 53). Not taken by then, it reads `incoming` as Readable.toWeb does, read or not,
 * so a caller that leaves a small body unread still frees the connection.
 */
function lazyBody(incoming: http.IncomingMessage): ReadableStream<Uint8Array> {
  let web: ReadableStream<Uint8Array> | undefined;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const start = () => {
    nodeBodies.delete(body);
    web ??= Readable.toWeb(incoming) as unknown as ReadableStream<Uint8Array>;
    return web;
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        reader ??= start().getReader();
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      async cancel(reason) {
        nodeBodies.delete(body);
        if (reader) await reader.cancel(reason);
        else if (web) await web.cancel(reason);
        else incoming.destroy();
      },
    },
    { highWaterMark: 0 },
  );
  nodeBodies.set(body, incoming);
  setImmediate(() => {
    if (nodeBodies.has(body)) start();
  });
  return body;
}

/**
 * The node:http response behind a pinnedFetch Response's body, taken (its web body is then never
 * read), or undefined for any other Response, a body already read, or one not taken in the turn
 * of the event loop the Response came. The taker reads it to its end or destroys it; the
 * request's signal still aborts it.
 */
export function takeNodeBody(response: Response): http.IncomingMessage | undefined {
  const body = response.body;
  if (!body || body.locked || response.bodyUsed) return undefined;
  const incoming = nodeBodies.get(body);
  nodeBodies.delete(body);
  return incoming;
}

/**
 * fetch for clients that make their own requests (model providers, MCP servers): the URL is
 * checked as assertReachableUrl checks it and the connection is pinned to the address checked, so a
 * name that resolves to a public address at check time and a private one a moment later (DNS
 * rebinding) still reaches only the public one. Redirects are never followed: a 3xx is handed
 * back as it is, or refused when `redirect` is "error". The response body streams; a failed
 * connection is fetch's TypeError with the error's code only (Node's messages name the address).
 */
export async function pinnedFetch(
  input: string | URL | Request,
  init: RequestInit | undefined,
  policy: FetchPolicy,
): Promise<Response> {
  const request = new Request(input, init);
  const url = reachableUrl(request.url);
  const pinned = await resolveChecked(url, policy);
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : null;
  return new Promise<Response>((resolve, reject) => {
    const client = url.protocol === "https:" ? https : http;
    const outgoing = client.request(
      url,
      {
        method: request.method,
        headers: {
          ...Object.fromEntries(request.headers),
          ...(body ? { "content-length": String(body.byteLength) } : {}),
        },
        signal: request.signal,
        lookup: pinnedLookup(pinned),
      },
      (incoming) => {
        const status = incoming.statusCode ?? 0;
        if (status >= 300 && status < 400 && incoming.headers.location && request.redirect === "error") {
          incoming.destroy();
          reject(
            new TypeError(`fetch failed: ${url.origin} answered with a redirect, and redirects are not followed.`),
          );
          return;
        }
        const headers = new Headers();
        for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2)
          headers.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
        const empty = NULL_BODY_STATUSES.has(status) || request.method === "HEAD";
        if (empty) incoming.resume();
        resolve(
          new Response(empty ? null : lazyBody(incoming), {
            status,
            statusText: incoming.statusMessage ?? "",
            headers,
          }),
        );
      },
    );
    outgoing.on("error", (error: Error & { code?: unknown }) => {
      if (request.signal.aborted) reject(request.signal.reason ?? error);
      // As fetch fails (clients recognise it), with the error's code for a cause.
      else
        reject(
          new TypeError("fetch failed", {
            cause: new Error(typeof error.code === "string" ? error.code : "the connection failed"),
          }),
        );
    });
    outgoing.end(body ?? undefined);
  });
}

/**
 * Fetches an http(s) URL its purpose may reach, following redirects as content (public addresses
 * only, whatever the first URL's purpose); throws FetchRefused with a reason a person can act on.
 * With `validators` the request is conditional, and a 304 answers `notModified`.
 */
export async function fetchUrl(target: string, policy: FetchPolicy, validators?: Validators): Promise<Fetched> {
  const timeoutMs = policy.timeoutMs ?? 15_000;
  const maxBytes = policy.maxBytes ?? 10 * 1024 * 1024;
  const maxRedirects = policy.maxRedirects ?? 5;
  const signal = AbortSignal.timeout(timeoutMs);
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new FetchRefused(`${target} is not a URL.`);
  }
  try {
    for (let redirects = 0; ; redirects++) {
      if (url.protocol !== "http:" && url.protocol !== "https:")
        throw new FetchRefused(`Only http and https URLs can be fetched, not ${url.protocol}`);
      if (url.username || url.password) throw new FetchRefused("URLs with credentials cannot be fetched.");
      const pinned = await resolveChecked(url, redirects === 0 ? policy : { purpose: "content", allow: policy.allow });
      const result = await requestOnce(url, pinned, signal, maxBytes, validators);
      if (result.location) {
        if (redirects >= maxRedirects) throw new FetchRefused(`Too many redirects (more than ${maxRedirects}).`);
        url = new URL(result.location, url);
        continue;
      }
      if (result.status === 304 && validators)
        return { url: url.href, contentType: "", bytes: result.bytes, validators, notModified: true };
      if (result.status < 200 || result.status >= 300)
        throw new FetchRefused(`The server answered HTTP ${result.status} for ${url.href}.`);
      return { ...result, url: url.href, notModified: false };
    }
  } catch (error) {
    if (error instanceof FetchRefused) throw error;
    if (signal.aborted)
      throw new FetchRefused(`Fetching ${url.href} took longer than ${Math.round(timeoutMs / 1000)} s.`);
    // The error's code only: Node's messages carry the address it connected to.
    const code = (error as { code?: unknown }).code;
    throw new FetchRefused(`Fetching ${url.href} failed${typeof code === "string" ? ` (${code})` : ""}.`);
  }
}
