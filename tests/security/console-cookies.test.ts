// The session cookie is Secure whenever the console is served over https: directly, or behind
// a TLS-terminating proxy named by PUBLIC_ORIGIN.
import { describe, expect, it } from "vitest";
import { servedOverHttps } from "@/server/auth/cookies";
import { consoleHandler, newOrganization, signInCookie, toApiResponse } from "../helpers";

async function post(url: string, procedure: string, input: unknown, cookie?: string) {
  const request = new Request(`${url}/api/trpc/${procedure}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: input === undefined ? undefined : JSON.stringify(input),
  });
  return toApiResponse(await consoleHandler()(request));
}

describe("the session cookie", () => {
  it("is Secure when signing in and out over https", async () => {
    const tenant = await newOrganization();
    const signedIn = await post("https://atrium.example.com", "auth.signIn", {
      email: tenant.owner.email,
      password: tenant.owner.password,
    });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get("set-cookie")).toMatch(/;\s*Secure(;|$)/);

    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    const signedOut = await post("https://atrium.example.com", "auth.signOut", undefined, cookie);
    expect(signedOut.headers.get("set-cookie")).toMatch(/Max-Age=0.*;\s*Secure/);
  });

  it("is not Secure over plain http without an https public origin", async () => {
    const tenant = await newOrganization();
    const signedIn = await post("http://localhost:3000", "auth.signIn", {
      email: tenant.owner.email,
      password: tenant.owner.password,
    });
    expect(signedIn.headers.get("set-cookie")).not.toMatch(/Secure/i);
    expect(await signInCookie(tenant.owner.email, tenant.owner.password)).toMatch(/^atrium_session=/);
  });

  it("is Secure behind a proxy whose public origin is https", () => {
    expect(
      servedOverHttps(new Request("http://127.0.0.1:3000/api/trpc/auth.signIn"), "https://atrium.example.com"),
    ).toBe(true);
    expect(servedOverHttps(new Request("http://127.0.0.1:3000/api/trpc/auth.signIn"), "http://atrium.internal")).toBe(
      false,
    );
    expect(servedOverHttps(new Request("http://127.0.0.1:3000/api/trpc/auth.signIn"), undefined)).toBe(false);
    expect(servedOverHttps(new Request("https://atrium.example.com/api/trpc/auth.signIn"), undefined)).toBe(true);
    expect(
      servedOverHttps(
        new Request("http://127.0.0.1:3000/api/trpc/auth.signIn", { headers: { "x-forwarded-proto": "https" } }),
        undefined,
      ),
    ).toBe(true);
  });
});
