// Every door through the server `npm start` runs: the production request listener
// (src/server/http/listener.ts) with its real route table (src/server/http/direct-routes.ts) on
// a loopback port, and at least one real HTTP request for every method of every route: each
// operation of the OpenAPI document, SCIM Users, Groups and discovery, /auth/oidc/*, /auth/saml/*, MCP, every
// console and portal tRPC procedure, the chat streams and their resume, uploads, exports,
// metrics and health. Each request must reach its handler (never the listener's method gate,
// never the fallback, never a router's 404/405) and answer in its door's own shape. A route of the
// table, or a route file under src/app, without a case here fails the suite.
//
// Only two route files are Next.js's alone (NEXT_ONLY_ROUTES): the benchmark's baseline and the
// envelope's 404 for unknown /api paths. The fallback here stands in for Next.js (a build is not
// made for this suite); their probes check that the listener hands them to it.
import { readdir } from "node:fs/promises";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publicOrigin } from "@/env";
import {
  allowedMethods,
  DIRECT_ROUTES,
  EVERY_METHOD,
  NEXT_ONLY_ROUTES,
  SERVED_METHODS,
  type DirectRoute,
} from "@/server/http/direct-routes";
import { createRequestListener, guardServer } from "@/server/http/listener";
import { openApiDocument } from "@/server/openapi";
import { portalRouter } from "@/server/trpc/portal-root";
import { appRouter } from "@/server/trpc/root";
import { issueKey, newOrganization, signInCookie, toApiResponse, type ApiResponse } from "../helpers";

// Several hundred requests from one key in a minute; the limiter still runs.
process.env.RATE_LIMIT_PER_MINUTE = "100000";
process.env.METRICS_TOKEN = "door-suite-metrics-token";

const SCIM_ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";
const SCIM_USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const SCIM_GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";
const FALLBACK = "x-answered-by";

interface Ctx {
  base: string;
  orgKey: string;
  /** The owner's personal key: MCP takes personal keys only. */
  personalKey: string;
  scimKey: string;
  cookie: string;
}

interface Probe {
  method: string;
  /** Shown in the test's name; defaults to the method and path. */
  label?: string;
  path: (ctx: Ctx) => string | Promise<string>;
  headers?: (ctx: Ctx) => Record<string, string>;
  body?: (ctx: Ctx) => BodyInit | undefined;
  check: (response: ApiResponse) => void;
}

interface Case {
  /** A concrete path of the route, for the probes every route gets (HEAD, OPTIONS, refused methods). */
  sample: (ctx: Ctx) => string;
  /** What each method the route's handler takes sends, and what its door answers. */
  probes: Probe[];
}

let ctx: Ctx;
let server: http.Server;

/** Stands in for Next.js: marks what the listener handed on. */
function fallback(_message: http.IncomingMessage, response: http.ServerResponse) {
  response.writeHead(404, { [FALLBACK]: "fallback" }).end();
}

beforeAll(async () => {
  server = http.createServer(createRequestListener({ trustProxy: 0, fallback }));
  guardServer(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const tenant = await newOrganization();
  const scim = await issueKey(tenant.operator, { kind: "organization", scopes: ["scim"], name: "Okta" });
  ctx = {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    orgKey: tenant.orgKey.secret,
    personalKey: tenant.personalKey.secret,
    scimKey: scim.secret,
    cookie: await signInCookie(tenant.owner.email, tenant.owner.password),
  };
});

afterAll(() => {
  server?.closeAllConnections();
  server?.close();
});

async function send(probe: Probe): Promise<ApiResponse> {
  const response = await fetch(`${ctx.base}${await probe.path(ctx)}`, {
    method: probe.method,
    headers: probe.headers?.(ctx),
    body: probe.body?.(ctx),
    redirect: "manual",
  });
  return toApiResponse(response);
}

// ---------------------------------------------------------------------------------------------
// What "reached its handler, in its door's shape" means

function answeredDirectly(response: ApiResponse): void {
  expect(response.headers.get(FALLBACK), "handed to the fallback").toBeNull();
  expect(response.headers.get("x-request-id")).toBeTruthy();
  expect(response.status, response.text).toBeLessThan(500);
}

function expectEnvelope(response: ApiResponse, status?: number, code?: string): void {
  if (status !== undefined)
    expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(response.body).toEqual({
    error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
  });
}

/** A REST answer from the operation's own handler: not the router's 404 or 405, refusals in the envelope. */
function reachedRestOperation(response: ApiResponse): void {
  answeredDirectly(response);
  expect(response.status).not.toBe(405);
  if (response.status >= 400) {
    expectEnvelope(response);
    expect(response.body.error.message).not.toMatch(/^No route/);
  }
}

function expectScimShape(response: ApiResponse, status: number): void {
  answeredDirectly(response);
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/scim+json");
  expect(response.body).toMatchObject({ schemas: [SCIM_ERROR], status: String(status), detail: expect.any(String) });
}

function expectStatus(status: number) {
  return (response: ApiResponse) => {
    answeredDirectly(response);
    expect(response.status, response.text).toBe(status);
  };
}

/** A tRPC answer from the procedure (its auth or validation), in tRPC's shape, not "No procedure found". */
function reachedProcedure(response: ApiResponse): void {
  answeredDirectly(response);
  expect(response.status).not.toBe(405);
  if (response.body?.error) {
    expect(response.body.error).toMatchObject({ message: expect.any(String), data: { code: expect.any(String) } });
    expect(response.body.error.message).not.toMatch(/No procedure found/);
  } else {
    expect(response.body).toHaveProperty("result");
  }
}

// ---------------------------------------------------------------------------------------------
// REST: every operation of the OpenAPI document, the document itself, uploads

const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type OperationObject = { requestBody?: { content?: Record<string, unknown> } };
const bearer = (key: (ctx: Ctx) => string) => (c: Ctx) => ({ authorization: `Bearer ${key(c)}` });
const orgKey = (c: Ctx) => c.orgKey;
const personalKey = (c: Ctx) => c.personalKey;

function restProbes(): Probe[] {
  const probes: Probe[] = [];
  const paths = openApiDocument().paths ?? {};
  for (const [template, item] of Object.entries(paths)) {
    const concrete = `/api/v1${template.replace(/\{[^}]+\}/g, UNKNOWN_ID)}`;
    const operations = item as Record<string, OperationObject | undefined>;
    const declared = HTTP_METHODS.filter((method) => operations[method.toLowerCase()]);
    for (const method of declared) {
      const withBody = method !== "GET";
      probes.push({
        method,
        label: `${method} /api/v1${template}`,
        path: () => concrete,
        headers: (c) => ({ ...bearer(orgKey)(c), ...(withBody ? { "content-type": "application/json" } : {}) }),
        body: () => (withBody ? "{}" : undefined),
        check: reachedRestOperation,
      });
      if (operations[method.toLowerCase()]?.requestBody?.content?.["multipart/form-data"]) {
        probes.push({
          method,
          label: `${method} /api/v1${template} (multipart upload)`,
          path: () => concrete,
          headers: bearer(orgKey),
          body: () => {
            const form = new FormData();
            form.append("file", new Blob(["# Door\n\nA page."], { type: "text/markdown" }), "door.md");
            return form;
          },
          check: reachedRestOperation,
        });
      }
    }
    probes.push({
      method: "OPTIONS",
      label: `OPTIONS /api/v1${template}`,
      path: () => concrete,
      check: (response) => {
        expectStatus(204)(response);
        expect(new Set(response.headers.get("allow")!.split(", "))).toEqual(new Set([...declared, "OPTIONS"]));
      },
    });
    const refused = HTTP_METHODS.find((method) => !declared.includes(method));
    if (refused)
      probes.push({
        method: refused,
        label: `${refused} /api/v1${template} (not an operation)`,
        path: () => concrete,
        headers: bearer(orgKey),
        check: (response) => {
          answeredDirectly(response);
          expectEnvelope(response, 405, "method_not_allowed");
          expect(new Set(response.headers.get("allow")!.split(", "))).toEqual(new Set(declared));
        },
      });
  }
  const openapi = () => "/api/v1/openapi.json";
  probes.push(
    {
      method: "GET",
      path: openapi,
      check: (response) => {
        expectStatus(200)(response);
        expect(response.body.openapi).toMatch(/^3\.1/);
      },
    },
    { method: "HEAD", path: openapi, check: expectStatus(200) },
    {
      method: "OPTIONS",
      path: openapi,
      check: (response) => {
        expectStatus(204)(response);
        expect(response.headers.get("allow")).toBe("GET, OPTIONS");
      },
    },
    ...(["POST", "PUT", "PATCH", "DELETE"] as const).map((method): Probe => ({
      method,
      path: openapi,
      check: (response) => {
        answeredDirectly(response);
        expectEnvelope(response, 405, "method_not_allowed");
        expect(response.headers.get("allow")).toBe("GET");
      },
    })),
    { method: "HEAD", path: () => "/api/v1/models", headers: bearer(orgKey), check: expectStatus(200) },
  );
  return probes;
}

// ---------------------------------------------------------------------------------------------
// SCIM: Users, Groups and the discovery documents, as Okta sends them

const scimKey = (c: Ctx) => c.scimKey;
const scimJson = (c: Ctx) => ({ ...bearer(scimKey)(c), "content-type": "application/scim+json" });

async function scimCreate(kind: "Users" | "Groups"): Promise<string> {
  const body =
    kind === "Users"
      ? { schemas: [SCIM_USER], userName: `door.${Math.random().toString(36).slice(2)}@okta.example`, active: true }
      : { schemas: [SCIM_GROUP], displayName: `Door ${Math.random().toString(36).slice(2)}`, members: [] };
  const response = await fetch(`${ctx.base}/scim/v2/${kind}`, {
    method: "POST",
    headers: scimJson(ctx),
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

function scimProbes(): Probe[] {
  const probes: Probe[] = [];
  for (const kind of ["Users", "Groups"] as const) {
    const one = async () => `/scim/v2/${kind}/${await scimCreate(kind)}`;
    const replacement =
      kind === "Users"
        ? { schemas: [SCIM_USER], userName: `renamed.${Math.random().toString(36).slice(2)}@okta.example` }
        : { schemas: [SCIM_GROUP], displayName: "Renamed" };
    const patch =
      kind === "Users"
        ? { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] }
        : { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "displayName", value: "Patched" }] };
    probes.push(
      { method: "GET", path: () => `/scim/v2/${kind}`, headers: bearer(scimKey), check: expectStatus(200) },
      {
        method: "POST",
        path: () => `/scim/v2/${kind}`,
        headers: scimJson,
        body: () =>
          JSON.stringify(
            kind === "Users"
              ? { schemas: [SCIM_USER], userName: `new.${Math.random().toString(36).slice(2)}@okta.example` }
              : { schemas: [SCIM_GROUP], displayName: "New" },
          ),
        check: expectStatus(201),
      },
      {
        method: "GET",
        label: `GET /scim/v2/${kind}/{id}`,
        path: one,
        headers: bearer(scimKey),
        check: expectStatus(200),
      },
      {
        method: "PUT",
        label: `PUT /scim/v2/${kind}/{id}`,
        path: one,
        headers: scimJson,
        body: () => JSON.stringify(replacement),
        check: expectStatus(200),
      },
      {
        method: "PATCH",
        label: `PATCH /scim/v2/${kind}/{id}`,
        path: one,
        headers: scimJson,
        body: () => JSON.stringify(patch),
        check: expectStatus(204),
      },
      {
        method: "DELETE",
        label: `DELETE /scim/v2/${kind}/{id}`,
        path: one,
        headers: bearer(scimKey),
        check: expectStatus(204),
      },
      {
        method: "POST",
        label: `POST /scim/v2/${kind} without a key (SCIM's 401)`,
        path: () => `/scim/v2/${kind}`,
        headers: () => ({ "content-type": "application/scim+json" }),
        body: () => "{}",
        check: (response) => expectScimShape(response, 401),
      },
      {
        method: "DELETE",
        label: `DELETE /scim/v2/${kind}/{unknown} (SCIM's 404)`,
        path: () => `/scim/v2/${kind}/${UNKNOWN_ID}`,
        headers: bearer(scimKey),
        check: (response) => expectScimShape(response, 404),
      },
    );
  }
  for (const document of ["ServiceProviderConfig", "ResourceTypes", "Schemas"]) {
    probes.push(
      { method: "GET", path: () => `/scim/v2/${document}`, headers: bearer(scimKey), check: expectStatus(200) },
      ...(["POST", "PUT", "PATCH", "DELETE"] as const).map((method): Probe => ({
        method,
        path: () => `/scim/v2/${document}`,
        headers: scimJson,
        body: () => (method === "DELETE" ? undefined : "{}"),
        check: (response) => {
          expectScimShape(response, 405);
          expect(response.headers.get("allow")).toBe("GET");
        },
      })),
    );
  }
  for (const method of ["HEAD", "OPTIONS"]) {
    probes.push({
      method,
      path: () => "/scim/v2/Users",
      headers: bearer(scimKey),
      check: (response) => {
        answeredDirectly(response);
        expect(response.status).toBe(405);
        expect(response.headers.get("allow")).toBe("GET, POST");
        if (method !== "HEAD") expectScimShape(response, 405);
      },
    });
  }
  return probes;
}

// ---------------------------------------------------------------------------------------------
// tRPC: every procedure of the console's and the portal's routers

type ProcedureDef = { _def: { type: "query" | "mutation" | "subscription" } };

function trpcProbes(endpoint: string, router: { _def: { procedures: unknown } }): Probe[] {
  return Object.entries(router._def.procedures as Record<string, ProcedureDef>).map(([name, procedure]) =>
    procedure._def.type === "query"
      ? { method: "GET", path: () => `${endpoint}/${name}`, check: reachedProcedure }
      : {
          method: "POST",
          path: () => `${endpoint}/${name}`,
          headers: () => ({ "content-type": "application/json" }),
          body: () => "{}",
          check: reachedProcedure,
        },
  );
}

// ---------------------------------------------------------------------------------------------
// The cases, one per route of the table (and of Next.js's own routes)

const cookie = (c: Ctx) => ({ cookie: c.cookie });
const jsonFromConsole = (c: Ctx) => ({ cookie: c.cookie, "content-type": "application/json", origin: publicOrigin() });
const MCP_INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "door-suite", version: "1" } },
});

function refusedByMcp(method: string): Probe {
  return {
    method,
    path: () => "/api/mcp",
    headers: bearer(personalKey),
    check: (response) => {
      answeredDirectly(response);
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      if (method !== "HEAD") expect(response.body.error.message).toMatch(/MCP server takes POST/);
    },
  };
}

function toSignIn(response: ApiResponse): void {
  answeredDirectly(response);
  expect(response.status).toBe(303);
  expect(response.headers.get("location")).toMatch(/\/sign-in\?sso_error=/);
}

function toFallback(method: string, pathname: string): Probe {
  return {
    method,
    path: () => pathname,
    check: (response) => expect(response.headers.get(FALLBACK)).toBe("fallback"),
  };
}

const CASES: Record<string, Case> = {
  "/api/v1": {
    sample: () => "/api/v1",
    // The REST door answers its own root: 404 in the envelope for every method.
    probes: SERVED_METHODS.map((method) => ({
      method,
      path: () => "/api/v1",
      check: (response) => {
        answeredDirectly(response);
        expect(response.status).toBe(404);
        if (method !== "HEAD") expectEnvelope(response, 404, "not_found");
      },
    })),
  },
  "/api/v1/{path*}": { sample: () => "/api/v1/models", probes: restProbes() },
  "/api/mcp": {
    sample: () => "/api/mcp",
    probes: [
      {
        method: "POST",
        label: "POST /api/mcp initialize",
        path: () => "/api/mcp",
        headers: (c) => ({
          ...bearer(personalKey)(c),
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        }),
        body: () => MCP_INITIALIZE,
        check: (response) => {
          expectStatus(200)(response);
          expect(response.body.result.serverInfo).toBeTruthy();
        },
      },
      {
        method: "POST",
        label: "POST /api/mcp without a key",
        path: () => "/api/mcp",
        headers: () => ({ "content-type": "application/json", accept: "application/json, text/event-stream" }),
        body: () => MCP_INITIALIZE,
        check: (response) => {
          answeredDirectly(response);
          expectEnvelope(response, 401, "unauthorized");
        },
      },
      ...["GET", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"].map(refusedByMcp),
    ],
  },
  "/scim/v2/{path*}": { sample: () => "/scim/v2/Users", probes: scimProbes() },
  "/auth/oidc/start": {
    sample: () => "/auth/oidc/start",
    probes: [
      {
        method: "GET",
        path: () => "/auth/oidc/start?email=nobody%40nowhere.example",
        check: toSignIn,
      },
    ],
  },
  "/auth/oidc/callback": {
    sample: () => "/auth/oidc/callback",
    probes: [{ method: "GET", path: () => "/auth/oidc/callback?code=x&state=y", check: toSignIn }],
  },
  "/auth/saml/start": {
    sample: () => "/auth/saml/start",
    probes: [{ method: "GET", path: () => "/auth/saml/start?email=nobody%40nowhere.example", check: toSignIn }],
  },
  "/auth/saml/acs": {
    sample: () => "/auth/saml/acs",
    probes: [
      {
        method: "POST",
        path: () => "/auth/saml/acs",
        headers: () => ({ "content-type": "application/x-www-form-urlencoded" }),
        body: () => "SAMLResponse=PHNhbWxwOlJlc3BvbnNlLz4%3D&RelayState=",
        check: toSignIn,
      },
    ],
  },
  "/auth/saml/metadata/{organizationId}": {
    sample: () => `/auth/saml/metadata/${UNKNOWN_ID}`,
    probes: [
      {
        method: "GET",
        path: () => `/auth/saml/metadata/${UNKNOWN_ID}`,
        check: (response) => {
          answeredDirectly(response);
          expectEnvelope(response, 404, "not_found");
        },
      },
    ],
  },
  "/api/trpc/{trpc}": { sample: () => "/api/trpc/auth.session", probes: trpcProbes("/api/trpc", appRouter) },
  "/api/portal/trpc/{trpc}": {
    sample: () => "/api/portal/trpc/portal.info",
    probes: trpcProbes("/api/portal/trpc", portalRouter),
  },
  "/api/console/apps/{appId}/conversation": {
    sample: () => `/api/console/apps/${UNKNOWN_ID}/conversation`,
    probes: [
      {
        method: "POST",
        path: () => `/api/console/apps/${UNKNOWN_ID}/conversation`,
        headers: jsonFromConsole,
        body: () => JSON.stringify({ message: "Hello" }),
        check: (response) => {
          answeredDirectly(response);
          expect(response.status).toBe(404);
          expectEnvelope(response);
        },
      },
    ],
  },
  "/api/console/files": {
    sample: () => "/api/console/files",
    probes: [
      {
        method: "POST",
        path: () => "/api/console/files",
        headers: (c) => ({ cookie: c.cookie, origin: publicOrigin() }),
        body: () => {
          const form = new FormData();
          form.append("file", new Blob([new Uint8Array([0x4d, 0x5a, 0, 0])]), "tool.exe");
          return form;
        },
        check: (response) => {
          answeredDirectly(response);
          expectEnvelope(response, 422, "unsupported_attachment");
        },
      },
    ],
  },
  "/api/portal/{portal}/files": {
    sample: () => "/api/portal/nowhere/files",
    probes: [
      {
        method: "POST",
        path: () => "/api/portal/nowhere/files",
        body: () => {
          const form = new FormData();
          form.append("file", new Blob(["A note."]), "note.txt");
          return form;
        },
        check: (response) => {
          answeredDirectly(response);
          expect([401, 403, 404]).toContain(response.status);
          expectEnvelope(response);
        },
      },
    ],
  },
  "/api/console/files/{fileId}/content": {
    sample: () => `/api/console/files/${UNKNOWN_ID}/content`,
    probes: [
      {
        method: "GET",
        path: () => `/api/console/files/${UNKNOWN_ID}/content`,
        headers: cookie,
        check: (response) => {
          answeredDirectly(response);
          expectEnvelope(response, 404, "not_found");
        },
      },
    ],
  },
  "/api/portal/{portal}/files/{fileId}/content": {
    sample: () => `/api/portal/nowhere/files/${UNKNOWN_ID}/content`,
    probes: [
      {
        method: "GET",
        path: () => `/api/portal/nowhere/files/${UNKNOWN_ID}/content`,
        check: (response) => {
          answeredDirectly(response);
          expect([401, 404]).toContain(response.status);
          expectEnvelope(response);
        },
      },
    ],
  },
  "/api/portal/{portal}/account/export": {
    sample: () => "/api/portal/nowhere/account/export",
    probes: [
      {
        method: "GET",
        path: () => "/api/portal/nowhere/account/export",
        check: (response) => {
          answeredDirectly(response);
          expectEnvelope(response, 404, "not_found");
        },
      },
      {
        method: "POST",
        path: () => "/api/portal/nowhere/account/export",
        headers: () => ({ "content-type": "application/json" }),
        body: () => JSON.stringify({ link: "a-link" }),
        check: (response) => {
          answeredDirectly(response);
          expectEnvelope(response, 404, "not_found");
        },
      },
    ],
  },
  "/api/console/apps/{appId}/conversation/runs/{executionId}/events": {
    sample: () => `/api/console/apps/${UNKNOWN_ID}/conversation/runs/${UNKNOWN_ID}/events`,
    probes: [
      {
        method: "GET",
        path: () => `/api/console/apps/${UNKNOWN_ID}/conversation/runs/${UNKNOWN_ID}/events`,
        headers: cookie,
        check: (response) => {
          answeredDirectly(response);
          expect(response.status).toBe(404);
          expectEnvelope(response);
        },
      },
    ],
  },
  "/api/portal/{portal}/apps/{appId}/conversation": {
    sample: () => `/api/portal/nowhere/apps/${UNKNOWN_ID}/conversation`,
    probes: [
      {
        method: "POST",
        path: () => `/api/portal/nowhere/apps/${UNKNOWN_ID}/conversation`,
        headers: () => ({ "content-type": "application/json" }),
        body: () => JSON.stringify({ message: "Hello" }),
        check: (response) => {
          answeredDirectly(response);
          expect([401, 404]).toContain(response.status);
          expectEnvelope(response);
        },
      },
    ],
  },
  "/api/portal/{portal}/apps/{appId}/conversation/runs/{executionId}/events": {
    sample: () => `/api/portal/nowhere/apps/${UNKNOWN_ID}/conversation/runs/${UNKNOWN_ID}/events`,
    probes: [
      {
        method: "GET",
        path: () => `/api/portal/nowhere/apps/${UNKNOWN_ID}/conversation/runs/${UNKNOWN_ID}/events`,
        check: (response) => {
          answeredDirectly(response);
          expect([401, 404]).toContain(response.status);
          expectEnvelope(response);
        },
      },
    ],
  },
  "/api/portal/{portal}/embed/session": {
    sample: () => "/api/portal/nowhere/embed/session",
    probes: [
      {
        method: "POST",
        path: () => "/api/portal/nowhere/embed/session",
        headers: () => ({ "content-type": "application/json", origin: "https://shop.example" }),
        body: () => JSON.stringify({ token: "a.b.c" }),
        check: (response) => {
          answeredDirectly(response);
          expectEnvelope(response, 404, "not_found");
        },
      },
    ],
  },
  "/api/portal/{portal}/embed/look": {
    sample: () => "/api/portal/nowhere/embed/look",
    probes: [
      {
        method: "GET",
        path: () => "/api/portal/nowhere/embed/look",
        headers: () => ({ origin: "https://shop.example" }),
        check: (response) => {
          answeredDirectly(response);
          expectEnvelope(response, 404, "not_found");
        },
      },
    ],
  },
  "/embed.js": {
    sample: () => "/embed.js",
    probes: [
      {
        method: "GET",
        path: () => "/embed.js",
        check: (response) => {
          expectStatus(200)(response);
          expect(response.headers.get("content-type")).toMatch(/^text\/javascript/);
          expect(response.text).toContain("atrium-chat");
        },
      },
    ],
  },
  "/api/console/end-users/{endUserId}/export": {
    sample: () => `/api/console/end-users/${UNKNOWN_ID}/export`,
    probes: [
      {
        method: "GET",
        path: () => `/api/console/end-users/${UNKNOWN_ID}/export`,
        headers: cookie,
        check: (response) => {
          answeredDirectly(response);
          expectEnvelope(response, 404, "not_found");
        },
      },
    ],
  },
  "/api/console/audit-events/export": {
    sample: () => "/api/console/audit-events/export",
    probes: [
      {
        method: "GET",
        path: () => "/api/console/audit-events/export?format=jsonl",
        headers: cookie,
        check: expectStatus(200),
      },
      {
        method: "GET",
        label: "GET /api/console/audit-events/export signed out",
        path: () => "/api/console/audit-events/export",
        check: (response) => {
          answeredDirectly(response);
          expectEnvelope(response, 401, "unauthorized");
        },
      },
    ],
  },
  "/api/health": {
    sample: () => "/api/health",
    probes: [
      {
        method: "GET",
        path: () => "/api/health",
        check: (response) => {
          expectStatus(200)(response);
          expect(response.body).toEqual({ status: "ok" });
        },
      },
    ],
  },
  "/api/metrics": {
    sample: () => "/api/metrics",
    probes: [
      {
        method: "GET",
        path: () => "/api/metrics",
        headers: () => ({ authorization: "Bearer door-suite-metrics-token" }),
        check: (response) => {
          expectStatus(200)(response);
          expect(response.text).toContain("# TYPE");
        },
      },
      {
        method: "GET",
        label: "GET /api/metrics with a wrong token",
        path: () => "/api/metrics",
        headers: () => ({ authorization: "Bearer wrong" }),
        check: (response) => {
          answeredDirectly(response);
          expect(response.status).toBe(401);
          expectEnvelope(response);
        },
      },
    ],
  },
  "/api/bench/models": { sample: () => "/api/bench/models", probes: [toFallback("GET", "/api/bench/models")] },
  "/api/{rest*}": {
    sample: () => "/api/no-such-route",
    probes: ["GET", "POST", "PUT", "PATCH", "DELETE"].map((method) => toFallback(method, "/api/no-such-route")),
  },
};

// ---------------------------------------------------------------------------------------------
// The probes every route gets from its declared methods: HEAD (a GET without the body), OPTIONS
// (204 with Allow), and every other served method refused 405 with Allow, in the envelope.

interface TableRoute {
  path: string;
  methods: DirectRoute["methods"];
  nextOnly: boolean;
}

const TABLE: TableRoute[] = [
  ...DIRECT_ROUTES.map((route) => ({ path: route.path, methods: route.methods, nextOnly: false })),
  ...NEXT_ONLY_ROUTES.map((route) => ({ path: route.path, methods: route.methods, nextOnly: true })),
];

function methodProbes(route: TableRoute, routeCase: Case): Probe[] {
  if (route.methods === EVERY_METHOD) return [];
  const allowed = allowedMethods(route.methods);
  const declared = route.methods;
  const sent = new Set(routeCase.probes.map((probe) => probe.method));
  const probes: Probe[] = [];
  for (const method of SERVED_METHODS) {
    if (sent.has(method)) continue;
    if (route.nextOnly && allowed.includes(method)) {
      probes.push(toFallback(method, routeCase.sample(ctx)));
    } else if (method === "HEAD" && declared.includes("GET")) {
      const get = routeCase.probes.find((probe) => probe.method === "GET")!;
      probes.push({
        ...get,
        method: "HEAD",
        label: `HEAD ${route.path} (its GET without the body)`,
        check: (response) => {
          answeredDirectly(response);
          expect(response.status).not.toBe(405);
          expect(response.text).toBe("");
        },
      });
    } else if (method === "OPTIONS") {
      probes.push({
        method,
        label: `OPTIONS ${route.path}`,
        path: routeCase.sample,
        check: (response) => {
          expectStatus(204)(response);
          expect(response.headers.get("allow")).toBe(allowed.join(", "));
        },
      });
    } else {
      probes.push({
        method,
        label: `${method} ${route.path} (not taken)`,
        path: routeCase.sample,
        check: (response) => {
          expect(response.status).toBe(405);
          if (method !== "HEAD") expectEnvelope(response, 405, "method_not_allowed");
          expect(response.headers.get("allow")).toBe(allowed.join(", "));
          expect(response.headers.get("x-request-id")).toBeTruthy();
        },
      });
    }
  }
  return probes;
}

/** The route files under src/app as route-table paths: `[x]` is `{x}`, `[...x]` is `{x*}`, `[[...x]]` both. */
async function routeFiles(): Promise<{ paths: string[]; file: string }[]> {
  const app = path.resolve(import.meta.dirname, "../../src/app");
  const entries = await readdir(app, { recursive: true });
  return entries
    .filter((entry) => path.basename(entry) === "route.ts")
    .map((entry) => {
      const segments = path
        .dirname(entry)
        .split(path.sep)
        .filter((segment) => !/^\(.*\)$/.test(segment));
      const last = segments.at(-1) ?? "";
      const optional = /^\[\[\.\.\.(\w+)\]\]$/.exec(last);
      const converted = segments.map((segment) =>
        segment.replace(/^\[\[?\.\.\.(\w+)\]?\]$/, "{$1*}").replace(/^\[(\w+)\]$/, "{$1}"),
      );
      const paths = [`/${converted.join("/")}`];
      if (optional) paths.push(`/${segments.slice(0, -1).join("/")}`);
      return { paths, file: path.join(app, entry) };
    });
}

describe("query parameters through the listener", () => {
  // tests/api/http-conventions.test.ts refuses them in-process; the listener parses the target
  // itself (node-bridge.ts), so the same names are sent over a socket here.
  it("refuses a parameter named like an object's built-in property with 400 invalid_request", async () => {
    for (const query of ["__proto__=1", "constructor=1", "toString=x&limit=2"]) {
      const response = await toApiResponse(
        await fetch(`${ctx.base}/api/v1/agents?${query}`, { headers: { authorization: `Bearer ${ctx.orgKey}` } }),
      );
      const name = query.split("=")[0];
      expect({ query, status: response.status, problems: response.body?.error?.problems }).toEqual({
        query,
        status: 400,
        problems: expect.arrayContaining([{ path: name, message: "Unknown field" }]),
      });
      expectEnvelope(response, 400, "invalid_request");
    }
  });
});

describe("the door suite covers the server's routes", () => {
  it("has a case for every route of the table, and no case without a route", () => {
    expect(Object.keys(CASES).sort()).toEqual(TABLE.map((route) => route.path).sort());
  });

  it("sends every served method to every route", () => {
    for (const route of TABLE) {
      const routeCase = CASES[route.path]!;
      const sent = new Set([...routeCase.probes, ...methodProbes(route, routeCase)].map((probe) => probe.method));
      expect({ route: route.path, sent: [...sent].sort() }).toEqual({
        route: route.path,
        sent: [...SERVED_METHODS].sort(),
      });
    }
  });

  it("has every route file of Next.js in the table, with the methods it exports", async () => {
    const files = await routeFiles();
    expect(files.flatMap((file) => file.paths).sort()).toEqual(TABLE.map((route) => route.path).sort());
    for (const { paths, file } of files) {
      const exported = Object.keys((await import(file)) as object).filter((name) => SERVED_METHODS.includes(name));
      for (const routePath of paths) {
        const route = TABLE.find((candidate) => candidate.path === routePath)!;
        if (route.methods === EVERY_METHOD)
          expect({ routePath, exported }).toEqual({ routePath, exported: expect.arrayContaining([...HTTP_METHODS]) });
        else
          expect({ routePath, exported: exported.sort() }).toEqual({ routePath, exported: [...route.methods].sort() });
      }
    }
  });
});

for (const route of TABLE) {
  describe(`${route.path}`, () => {
    const routeCase = CASES[route.path];
    if (!routeCase) return;
    // Built once the server is up (their paths need the context).
    const probes = (): Probe[] => [...routeCase.probes, ...methodProbes(route, routeCase)];
    const count = routeCase.probes.length + SERVED_METHODS.length;
    it(`answers each of its ${route.methods === EVERY_METHOD ? "" : "declared "}methods from its handler (${count} requests at most)`, async () => {
      const failures: string[] = [];
      for (const probe of probes()) {
        const label = probe.label ?? `${probe.method} ${await probe.path(ctx)}`;
        try {
          probe.check(await send(probe));
        } catch (error) {
          failures.push(`${label}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      expect(failures).toEqual([]);
    }, 180_000);
  });
}
