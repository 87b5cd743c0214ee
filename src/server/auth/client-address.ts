// The address a request came from. Next.js route handlers see no socket: Next.js puts the
// socket's address in X-Forwarded-For, unless the request already carries that header, which
// it then passes on as it came. Behind N proxies that each append the address they saw
// (TRUST_PROXY=N), the client is the N-th entry from the right. With no proxy, a client can
// name any address; deploy behind one that overwrites the header (see the README).
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
