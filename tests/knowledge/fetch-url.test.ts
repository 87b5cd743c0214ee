// The SSRF guard: private, loopback, link-local and metadata addresses are refused, directly and
// after a redirect; time and size are bounded. A local HTTP server plays the outside world,
// reached through the policy's explicit allow-list (host:port), never a global switch.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addressVerdict,
  assertReachableUrl,
  FetchRefused,
  fetchUrl,
  isMetadataAddress,
  isPublicAddress,
  type FetchLimits,
  type FetchPolicy,
} from "@/server/jobs/fetch-url";

let server: http.Server;
let port: number;
let allow: string[];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname === "/redirect") {
      response.writeHead(302, { location: url.searchParams.get("to")! });
      response.end();
    } else if (url.pathname === "/big") {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end("x".repeat(5000));
    } else if (url.pathname === "/hang") {
      // never answers
    } else if (url.pathname === "/loop") {
      response.writeHead(302, { location: "/loop" });
      response.end();
    } else {
      response.writeHead(200, { "content-type": "text/html" });
      response.end("<html><body><p>hello</p></body></html>");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  allow = [`127.0.0.1:${port}`];
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function refusal(url: string, policy: FetchLimits = {}): Promise<string> {
  try {
    await fetchUrl(url, { purpose: "content", timeoutMs: 3000, ...policy });
  } catch (error) {
    expect(error).toBeInstanceOf(FetchRefused);
    return (error as Error).message;
  }
  throw new Error(`${url} was fetched`);
}

describe("SSRF guard", () => {
  it("fetches from an explicitly allowed local server", async () => {
    const fetched = await fetchUrl(`http://127.0.0.1:${port}/page`, { purpose: "content", allow });
    expect(fetched.contentType).toBe("text/html");
    expect(fetched.bytes.toString()).toContain("hello");
  });

  it("refuses 127.0.0.1, 10.0.0.1, 169.254.169.254 and [::1] directly", async () => {
    expect(await refusal(`http://127.0.0.1:${port}/page`)).toMatch(/127\.0\.0\.1.*private, loopback/);
    expect(await refusal("http://10.0.0.1/")).toMatch(/10\.0\.0\.1/);
    expect(await refusal("http://169.254.169.254/latest/meta-data/")).toMatch(/169\.254\.169\.254/);
    expect(await refusal(`http://[::1]:${port}/`)).toMatch(/::1/);
    expect(await refusal("http://localhost/")).toMatch(/loopback/);
  });

  it("refuses a redirect to each of them", async () => {
    for (const target of [
      `http://127.0.0.1:${port + 1}/`,
      "http://10.0.0.1/",
      "http://169.254.169.254/latest/meta-data/",
      `http://[::1]:${port}/`,
    ]) {
      const message = await refusal(`http://127.0.0.1:${port}/redirect?to=${encodeURIComponent(target)}`, { allow });
      expect(message).toMatch(/Only public addresses can be fetched/);
    }
  });

  it("refuses other schemes, credentials, endless redirects, oversized bodies and slow servers", async () => {
    expect(await refusal("ftp://example.com/file")).toMatch(/Only http and https/);
    expect(await refusal("file:///etc/passwd")).toMatch(/Only http and https/);
    expect(await refusal(`http://user:pw@127.0.0.1:${port}/`, { allow })).toMatch(/credentials/);
    expect(await refusal(`http://127.0.0.1:${port}/loop`, { allow })).toMatch(/Too many redirects/);
    expect(await refusal(`http://127.0.0.1:${port}/big`, { allow, maxBytes: 1000 })).toMatch(/limit/);
    expect(await refusal(`http://127.0.0.1:${port}/hang`, { allow, timeoutMs: 300 })).toMatch(/longer than/);
  });

  it("classifies addresses, including IPv4 inside IPv6", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.100.100.200",
      "0.0.0.0",
      "::1",
      "::",
      "fe80::1",
      "fd00:ec2::254",
      "fc00::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a9fe:a9fe",
      "64:ff9b::a00:1",
      "2002:7f00:1::1",
      "ff02::1",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it("tells cloud metadata addresses apart, in every spelling", () => {
    for (const address of [
      "169.254.169.254",
      "169.254.170.2",
      "100.100.100.200",
      "fd00:ec2::254",
      "::ffff:169.254.169.254",
      "::ffff:a9fe:a9fe",
      "64:ff9b::a9fe:a9fe",
      "2002:a9fe:a9fe::1",
    ]) {
      expect(isMetadataAddress(address), address).toBe(true);
    }
    for (const address of ["127.0.0.1", "10.0.0.1", "::1", "fd00:ec2::253", "93.184.216.34"]) {
      expect(isMetadataAddress(address), address).toBe(false);
    }
  });

  it("decides by purpose: content public only, integrations private only when allowed, metadata never", () => {
    const content: FetchPolicy = { purpose: "content" };
    const integration: FetchPolicy = { purpose: "integration", privateAddresses: false };
    const privateIntegration: FetchPolicy = { purpose: "integration", privateAddresses: true };
    const deployment: FetchPolicy = { purpose: "deployment" };
    expect(
      ["127.0.0.1", "::1", "10.0.0.5"].map((a) =>
        [content, integration, privateIntegration, deployment].map((p) => addressVerdict(a, p)),
      ),
    ).toEqual(Array(3).fill(["private", "private", "reachable", "reachable"]));
    for (const policy of [content, integration, privateIntegration, deployment]) {
      expect(addressVerdict("169.254.169.254", policy)).toBe("metadata");
      expect(addressVerdict("fd00:ec2::254", policy)).toBe("metadata");
      expect(addressVerdict("8.8.8.8", policy)).toBe("reachable");
    }
  });

  it("refuses the metadata address in its other spellings for every purpose, naming the rule", async () => {
    const spellings = [
      "http://169.254.169.254/latest/meta-data/",
      "http://2852039166/",
      "http://0xA9FEA9FE/",
      "http://0251.0376.0251.0376/",
      "http://169.254.43518/",
      "http://[::ffff:169.254.169.254]/",
      "http://[::ffff:a9fe:a9fe]/",
      "http://[fd00:ec2::254]/",
      "http://[fd00:ec2:0:0:0:0:0:254]/",
    ];
    const policies: FetchPolicy[] = [
      { purpose: "content" },
      { purpose: "integration", privateAddresses: true },
      { purpose: "deployment" },
    ];
    for (const url of spellings) {
      for (const policy of policies) {
        const refused = await assertReachableUrl(url, {
          ...policy,
          allow: [`${new URL(url).hostname.replace(/^\[|\]$/g, "")}:80`],
        }).then(
          () => `${url} passed`,
          (error: Error) => error.message,
        );
        expect(refused, `${url} as ${policy.purpose}`).toMatch(/metadata/);
      }
    }
  });
});
