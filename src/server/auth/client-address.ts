// The address a request came from. Route handlers see no socket, so the server puts it in
// X-Forwarded-For: src/cli/http-server.ts writes the socket's address there when no proxy is
// trusted (a client-sent header is dropped), and leaves the header as the proxies wrote it behind
// N trusted proxies that each append the address they saw (TRUST_PROXY=N): the client is then the
// N-th entry from the right.
import { env } from "@/env";

const IPV4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

export function clientAddress(headers: Headers, trustProxy: number = env().TRUST_PROXY): string {
  const hops = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const address = hops[hops.length - Math.max(1, trustProxy)] ?? hops[0];
  if (!address) return "unknown";
  return IPV4_MAPPED.exec(address)?.[1] ?? address.toLowerCase();
}
