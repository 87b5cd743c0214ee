// Every response gets a request id and the console's security headers from one middleware;
// pages get a Content-Security-Policy whose nonce Next.js puts on its scripts. The real
// responses of a production build are checked in e2e/security.spec.ts.
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { middleware } from "@/middleware";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function run(path: string, headers: Record<string, string> = {}) {
  return middleware(new NextRequest(`http://localhost:3000${path}`, { headers }));
}

/** What the route handler behind the middleware sees of a forwarded request header. */
function forwarded(response: Response, name: string): string | null {
  return response.headers.get(`x-middleware-request-${name}`);
}

describe("the middleware", () => {
  it("sets the security headers on every route", () => {
    for (const path of [
      "/",
      "/sign-in",
      "/docs",
      "/chat/x",
      "/api/health",
      "/api/trpc/auth.me",
      "/api/mcp",
      "/api/v1/openapi.json",
      "/no-such-page",
    ]) {
      const response = run(path);
      const csp = response.headers.get("content-security-policy")!;
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
      expect(csp).not.toContain("'unsafe-eval'");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    }
  });

  it("gives each page a fresh nonce and hands the policy to Next.js on the request", () => {
    const first = run("/sign-in");
    const second = run("/sign-in");
    const nonce = /'nonce-([^']+)'/.exec(first.headers.get("content-security-policy")!)![1]!;
    expect(second.headers.get("content-security-policy")).not.toContain(nonce);
    expect(forwarded(first, "x-nonce")).toBe(nonce);
    expect(forwarded(first, "content-security-policy")).toBe(first.headers.get("content-security-policy"));
  });

  it("gives every response an X-Request-Id and forwards the same id to the route", () => {
    const fresh = run("/api/health");
    const id = fresh.headers.get("x-request-id")!;
    expect(id).toMatch(UUID);
    expect(forwarded(fresh, "x-request-id")).toBe(id);
    expect(run("/api/health").headers.get("x-request-id")).not.toBe(id);
  });

  it("keeps the /api/v1 echo rule: a valid client id is echoed, anything else replaced", () => {
    const echoed = run("/api/v1/models", { "x-request-id": "client.id-42_A" });
    expect(echoed.headers.get("x-request-id")).toBe("client.id-42_A");
    expect(forwarded(echoed, "x-request-id")).toBe("client.id-42_A");
    for (const bad of ["has space", "x".repeat(129), "semi;colon"]) {
      const replaced = run("/api/v1/models", { "x-request-id": bad });
      expect(replaced.headers.get("x-request-id")).toMatch(UUID);
      expect(forwarded(replaced, "x-request-id")).toBe(replaced.headers.get("x-request-id"));
    }
  });
});
