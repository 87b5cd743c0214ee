// Absolute links come from configuration (PUBLIC_ORIGIN), never from the request: the issue's
// attack, an unauthenticated code request with `Host: evil.example`, must mail the victim a link
// to the configured origin. Sent both as a route handler receives it (next dev builds the URL from
// the Host header) and over real HTTP through our own server (src/server/http/listener.ts).
process.env.PUBLIC_ORIGIN = "https://atrium.example.com";

import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publicOrigin } from "@/env";
import { getDb } from "@/server/db";
import { clientAddress, codeFromOutbox, portalCall, portalScenario } from "../portal/helpers";
import { listenOnLoopback, type LoopbackServer } from "../loopback-server";

const FORGED = { host: "evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" };

let loopback: LoopbackServer;
let base: string;

beforeAll(async () => {
  loopback = await listenOnLoopback(1);
  base = loopback.base;
});

afterAll(() => loopback.close());

async function mailTo(organizationId: string, email: string): Promise<string> {
  expect(await codeFromOutbox(organizationId, email)).toMatch(/^\d{6}$/);
  return (await getDb().outboxMessage.findFirstOrThrow({ where: { organizationId, to: email } })).text;
}

/** A raw request with the Host header the attacker chose (fetch would not let a test set it). */
function rawPost(path: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { ...headers, "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

describe("the portal sign-in mail links to the configured origin", () => {
  it("a code request whose URL and Host say evil.example (a route handler's view) mails the configured origin", async () => {
    const scenario = await portalScenario();
    const response = await portalCall(
      "mutation",
      "auth.requestCode",
      { portal: scenario.portal.slug, email: scenario.endUser.email },
      { headers: { ...FORGED, ...clientAddress() } },
    );
    expect(response.status).toBe(200);
    const text = await mailTo(scenario.tenant.organization.id, scenario.endUser.email);
    expect(text).toContain(`Sign in at https://atrium.example.com/p/${scenario.portal.slug}`);
    expect(text).not.toContain("evil.example");
  });

  it("the issue's attack over HTTP: unauthenticated POST with Host: evil.example mails the configured origin", async () => {
    const scenario = await portalScenario();
    const body = JSON.stringify({ portal: scenario.portal.slug, email: scenario.endUser.email });
    const status = await rawPost(
      "/api/portal/trpc/auth.requestCode",
      { ...FORGED, ...clientAddress(), "content-type": "application/json" },
      body,
    );
    expect(status).toBe(200);
    const text = await mailTo(scenario.tenant.organization.id, scenario.endUser.email);
    expect(text).toContain(`Sign in at https://atrium.example.com/p/${scenario.portal.slug}`);
    expect(text).not.toContain("evil.example");
  });
});

describe("publicOrigin", () => {
  it("is PUBLIC_ORIGIN when set, and http://localhost:PORT when not", () => {
    expect(publicOrigin()).toBe("https://atrium.example.com");
    expect(publicOrigin({ PUBLIC_ORIGIN: undefined, PORT: 4100 })).toBe("http://localhost:4100");
  });
});
