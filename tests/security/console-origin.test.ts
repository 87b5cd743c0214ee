// Cross-site request forgery against the console: a page on another origin of the same site
// (another port of the same host counts) must not run a mutation, start a chat or sign a
// person in or out with their cookie. Refused with 403 cross_origin_request, nothing written.
import { describe, expect, it } from "vitest";
import { POST as conversationPost } from "@/app/api/console/apps/[appId]/conversation/route";
import { assertSameOrigin } from "@/server/auth/same-origin";
import { getDb } from "@/server/db";
import { isAppError } from "@/server/errors";
import {
  consoleHandler,
  newOrganization,
  signInCookie,
  toApiResponse,
  trpcErrorCode,
  type ApiResponse,
} from "../helpers";
import { credits, publishedApp, readEvents } from "../runtime-helpers";

const CONSOLE = "http://localhost:3000";

function mutation(procedure: string, input: unknown, headers: Record<string, string>): Promise<ApiResponse> {
  const request = new Request(`${CONSOLE}/api/trpc/${procedure}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: input === undefined ? undefined : JSON.stringify(input),
  });
  return consoleHandler()(request).then(toApiResponse);
}

function chat(appId: string, body: string, headers: Record<string, string>): Promise<Response> {
  const request = new Request(`${CONSOLE}/api/console/apps/${appId}/conversation`, { method: "POST", headers, body });
  return conversationPost(request, { params: Promise.resolve({ appId }) });
}

function refusedBy(error: unknown): { status: number; code: string } | undefined {
  if (!isAppError(error)) return undefined;
  return { status: error.status, code: error.code };
}

describe("assertSameOrigin", () => {
  const check = (headers: Record<string, string>, url = `${CONSOLE}/api/trpc/x`, publicOrigin?: string) => {
    try {
      assertSameOrigin(new Request(url, { method: "POST", headers }), publicOrigin);
      return "allowed";
    } catch (error) {
      return refusedBy(error);
    }
  };
  const refused = { status: 403, code: "cross_origin_request" };

  it("allows the request's own origin, the configured public origin, and clients that send neither header", () => {
    expect(check({ origin: CONSOLE, "sec-fetch-site": "same-origin" })).toBe("allowed");
    expect(
      check({ origin: "https://atrium.example.com" }, "http://127.0.0.1:3000/api/trpc/x", "https://atrium.example.com"),
    ).toBe("allowed");
    expect(check({})).toBe("allowed");
    // Next.js builds request.url from its own host name; the Host the browser used counts.
    expect(check({ origin: "http://127.0.0.1:3221", host: "127.0.0.1:3221" }, "http://localhost:3221/api/trpc/x")).toBe(
      "allowed",
    );
    expect(
      check(
        {
          origin: "https://atrium.example.com",
          "x-forwarded-host": "atrium.example.com",
          "x-forwarded-proto": "https",
        },
        "http://localhost:3000/api/trpc/x",
      ),
    ).toBe("allowed");
  });

  it("refuses another port, another host, another scheme, an opaque origin and any Sec-Fetch-Site but same-origin", () => {
    expect(check({ origin: "http://localhost:3001" })).toEqual(refused);
    expect(check({ origin: "http://evil.example" })).toEqual(refused);
    expect(check({ origin: "https://localhost:3000" })).toEqual(refused);
    expect(
      check({ origin: "http://127.0.0.1:3222", host: "127.0.0.1:3221" }, "http://localhost:3221/api/trpc/x"),
    ).toEqual(refused);
    expect(check({ origin: "null" })).toEqual(refused);
    for (const site of ["same-site", "cross-site", "none"]) expect(check({ "sec-fetch-site": site })).toEqual(refused);
    // The site header decides even when a matching Origin is claimed.
    expect(check({ origin: CONSOLE, "sec-fetch-site": "same-site" })).toEqual(refused);
  });
});

describe("console mutations from another origin", () => {
  it("do not sign a person out: 403 cross_origin_request and the session lives on", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const crossOrigin: Record<string, string>[] = [
      { origin: "http://localhost:3001" },
      { "sec-fetch-site": "same-site" },
    ];
    for (const headers of crossOrigin) {
      const response = await mutation("auth.signOut", undefined, { cookie, ...headers });
      expect({ status: response.status, code: trpcErrorCode(response) }).toEqual({
        status: 403,
        code: "cross_origin_request",
      });
      expect(response.headers.get("set-cookie")).toBeNull();
      expect(response.headers.get("x-request-id")).toBeTruthy();
    }
    expect(await getDb().session.count({ where: { memberId: tenant.owner.member.id } })).toBe(1);

    const sameOrigin = await mutation("auth.signOut", undefined, {
      cookie,
      origin: CONSOLE,
      "sec-fetch-site": "same-origin",
    });
    expect(sameOrigin.status).toBe(200);
    expect(await getDb().session.count({ where: { memberId: tenant.owner.member.id } })).toBe(0);
  });

  it("do not sign a person in (login CSRF) and write nothing", async () => {
    const tenant = await newOrganization();
    const response = await mutation(
      "auth.signIn",
      { email: tenant.owner.email, password: tenant.owner.password },
      { origin: "http://127.0.0.1:4000" },
    );
    expect({ status: response.status, code: trpcErrorCode(response) }).toEqual({
      status: 403,
      code: "cross_origin_request",
    });
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(await getDb().session.count({ where: { memberId: tenant.owner.member.id } })).toBe(0);
  });

  it("refuse a body that is not JSON (a form or text/plain post) with 415 and write nothing", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const response = await mutation("invitations.create", undefined, { cookie, "content-type": contentType });
      expect({ status: response.status, code: trpcErrorCode(response) }).toEqual({
        status: 415,
        code: "invalid_request",
      });
    }
    const plain = await consoleHandler()(
      new Request(`${CONSOLE}/api/trpc/auth.signOut`, {
        method: "POST",
        headers: { cookie, "content-type": "text/plain" },
        body: "{}",
      }),
    );
    expect(plain.status).toBe(415);
    expect(await getDb().session.count({ where: { memberId: tenant.owner.member.id } })).toBe(1);
    expect(await getDb().member.count({ where: { organizationId: tenant.organization.id } })).toBe(1);
  });

  it("still answer same-origin JSON mutations and plain GET queries", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const invite = await mutation(
      "invitations.create",
      { email: `x-${tenant.organization.id}@example.test`, role: "viewer" },
      { cookie, origin: CONSOLE },
    );
    expect(invite.status).toBe(200);
    const me = await consoleHandler()(
      new Request(`${CONSOLE}/api/trpc/auth.me`, { headers: { cookie, "sec-fetch-site": "same-origin" } }),
    );
    expect(me.status).toBe(200);
  });
});

describe("the console chat route from another origin", () => {
  it("refuses a text/plain post (no preflight) and a cross-port JSON post; no credit is spent, no conversation stored", async () => {
    const app = await publishedApp();
    const cookie = await signInCookie(app.tenant.owner.email, app.tenant.owner.password);
    const before = await credits(app.tenant);
    const body = JSON.stringify({ message: "How long do refunds take?" });

    const plain = await chat(app.appId, body, { cookie, "content-type": "text/plain;charset=UTF-8", origin: CONSOLE });
    expect(plain.status).toBe(415);
    expect(((await plain.json()) as { error: { code: string } }).error.code).toBe("invalid_request");

    const plainNoOrigin = await chat(app.appId, body, { cookie, "content-type": "text/plain" });
    expect(plainNoOrigin.status).toBe(415);

    const crossPort = await chat(app.appId, body, {
      cookie,
      "content-type": "application/json",
      origin: "http://localhost:3001",
      "sec-fetch-site": "same-site",
    });
    expect(crossPort.status).toBe(403);
    expect(crossPort.headers.get("x-request-id")).toBeTruthy();
    expect(((await crossPort.json()) as { error: { code: string } }).error.code).toBe("cross_origin_request");

    expect(await credits(app.tenant)).toBe(before);
    expect(await getDb().conversation.count({ where: { organizationId: app.tenant.organization.id } })).toBe(0);

    const same = await chat(app.appId, body, {
      cookie,
      "content-type": "application/json",
      origin: CONSOLE,
      "sec-fetch-site": "same-origin",
    });
    expect(same.status).toBe(200);
    expect((await readEvents(same)).at(-1)!.event).toBe("done");
  });
});
