// Helpers for in-process tests: call the REST and console doors with real `Request`s, and make
// a fresh tenant (organization, owner, keys) per test through the same services the CLI uses.
import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { SCOPES, type Role, type Scope } from "@/schemas/identity/auth";
import type { Member } from "@/schemas/identity/member";
import type { Organization, OrganizationSettingsUpdate } from "@/schemas/org/organization";
import { createConsoleHandler } from "@/server/adapters/console";
import { createRestHandler } from "@/server/adapters/rest";
import type { OperatorActor } from "@/server/auth/actor";
import { getDb, type Db } from "@/server/db";
import { createApiKey } from "@/server/services/identity/api-keys";
import { addMember } from "@/server/services/identity/members";
import { createOrganization, updateOrganization } from "@/server/services/org/organizations";
import { validatingHandler } from "./openapi-validator";

export type Handler = (request: Request) => Promise<Response>;

/** A parsed response. `body` is the JSON body (null when empty), loosely typed for assertions. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface ApiOptions {
  /** An API key secret, sent as `Authorization: Bearer <key>`. */
  key?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (for malformed bodies). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Another REST handler instance (a second "server"); defaults to one over getDb(). */
  handler?: Handler;
}

let defaultRest: Handler | undefined;
let defaultConsole: Handler | undefined;

/** The `/api/v1` handler as the route module builds it; every response is checked against the OpenAPI document. */
export function restHandler(): Handler {
  return (defaultRest ??= validatingHandler(createRestHandler({ db: getDb })));
}

export function consoleHandler(): Handler {
  return (defaultConsole ??= createConsoleHandler({ db: getDb }));
}

export async function toApiResponse(response: Response): Promise<ApiResponse> {
  const text = await response.text();
  let body: unknown = null;
  if (text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** Calls `/api/v1<path>` in-process. */
export async function api(method: string, path: string, options: ApiOptions = {}): Promise<ApiResponse> {
  const headers = new Headers(options.headers);
  if (options.key !== undefined) headers.set("authorization", `Bearer ${options.key}`);
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
  const request = new Request(`http://localhost/api/v1${path}`, { method, headers, body });
  const handler = options.handler ? validatingHandler(options.handler) : restHandler();
  return toApiResponse(await handler(request));
}

// ---------------------------------------------------------------------------------------------
// Console door (tRPC over HTTP, session cookie)

export interface TrpcOptions {
  cookie?: string;
  headers?: Record<string, string>;
}

/** Calls a console procedure the way the browser's tRPC client does (no transformer). */
export async function trpc(
  kind: "query" | "mutation",
  procedure: string,
  input?: unknown,
  options: TrpcOptions = {},
): Promise<ApiResponse> {
  const headers = new Headers(options.headers);
  if (options.cookie) headers.set("cookie", options.cookie);
  let url = `http://localhost/api/trpc/${procedure}`;
  let init: RequestInit;
  if (kind === "query") {
    if (input !== undefined) url += `?input=${encodeURIComponent(JSON.stringify(input))}`;
    init = { method: "GET", headers };
  } else {
    headers.set("content-type", "application/json");
    init = { method: "POST", headers, body: input === undefined ? undefined : JSON.stringify(input) };
  }
  return toApiResponse(await consoleHandler()(new Request(url, init)));
}

/** The product error code of a console (tRPC) error response. */
export function trpcErrorCode(response: ApiResponse): string | undefined {
  return response.body?.error?.data?.appError?.code;
}

/** Signs in through the console door and returns the `Cookie` header value for later calls. */
export async function signInCookie(email: string, password: string): Promise<string> {
  const response = await trpc("mutation", "auth.signIn", { email, password });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${response.text}`);
  const setCookie = response.headers.get("set-cookie");
  if (!setCookie) throw new Error("sign-in set no cookie");
  return setCookie.split(";")[0]!;
}

// ---------------------------------------------------------------------------------------------
// Tenants

export interface IssuedKey {
  id: string;
  secret: string;
  scopes: Scope[];
}

export interface Person {
  member: Member;
  email: string;
  password: string;
}

export interface Tenant {
  organization: Organization;
  operator: OperatorActor;
  owner: Person;
  /** Organization key with every scope. */
  orgKey: IssuedKey;
  /** The owner's personal key with every scope. */
  personalKey: IssuedKey;
}

export function uniqueSuffix(): string {
  return randomBytes(5).toString("hex");
}

export interface NewOrganizationOptions {
  name?: string;
  plan?: Organization["plan"];
  credits?: number;
  /** Settings applied after creation (apiEnabled, ...), as the operator. */
  settings?: OrganizationSettingsUpdate;
}

/** A fresh organization with an owner who can sign in, an organization key and a personal key. */
export async function newOrganization(options: NewOrganizationOptions = {}): Promise<Tenant> {
  const db = getDb();
  const suffix = uniqueSuffix();
  let organization = await createOrganization(db, {
    name: options.name ?? `Test org ${suffix}`,
    plan: options.plan,
    credits: options.credits,
  });
  const operator: OperatorActor = { kind: "operator", organizationId: organization.id };
  if (options.settings) organization = await updateOrganization(db, operator, options.settings);
  const owner = await addPerson(operator, "owner");
  const orgKey = await issueKey(operator, { kind: "organization" });
  const personalKey = await issueKey(operator, { kind: "personal", memberId: owner.member.id });
  return { organization, operator, owner, orgKey, personalKey };
}

/** Adds a member with a known password (as the operator). */
export async function addPerson(operator: OperatorActor, role: Role, email?: string): Promise<Person> {
  const address = email ?? `${role}-${uniqueSuffix()}@example.test`;
  const password = `pw-${uniqueSuffix()}-${uniqueSuffix()}`;
  const { member } = await addMember(getDb(), operator, { email: address, role, password });
  return { member, email: address, password };
}

/** Creates an API key as the operator; a personal key needs `memberId`. */
export async function issueKey(
  operator: OperatorActor,
  options: { kind: "organization" | "personal"; memberId?: string; scopes?: Scope[]; name?: string },
): Promise<IssuedKey> {
  const key = await createApiKey(getDb(), operator, {
    name: options.name ?? `${options.kind} key`,
    kind: options.kind,
    scopes: options.scopes ?? [...SCOPES],
    memberId: options.memberId,
  });
  return { id: key.id, secret: key.secret, scopes: key.scopes };
}

/**
 * An organization key replaced every `every` requests: a sweep over the whole OpenAPI document
 * sends more than one key's rate limit in a minute.
 */
export function rotatingKey(tenant: Tenant, every = 100): () => Promise<string> {
  let sent = 0;
  let current = "";
  return async () => {
    if (sent++ % every === 0) current = (await issueKey(tenant.operator, { kind: "organization" })).secret;
    return current;
  };
}

/**
 * Rate-limit tests send ~120 requests in a second or two. The limiter weighs the previous
 * 60-second window, so a run that straddles a window edge may be allowed a request more;
 * start such a test well inside a window.
 */
export async function awayFromWindowEdge(neededSeconds = 10): Promise<void> {
  const intoWindow = (Date.now() / 1000) % 60;
  if (intoWindow + neededSeconds < 60) return;
  await new Promise((resolve) => setTimeout(resolve, (60 - intoWindow) * 1000 + 100));
}

/**
 * The rate-limit counters' sweep: at most once a minute per process it comes with whichever
 * request is then, so tests that list a request's own statements leave it out.
 */
export function isCounterSweep(config: unknown): boolean {
  return typeof config === "string" && config.includes("delete from rate_limit_counters");
}

/**
 * The WAL flushes that `db`'s backend has waited for so far, from PostgreSQL 18's per-backend
 * I/O statistics; `db` must be a pool of one connection. Null where they cannot be read or where
 * commits never wait for a flush anyway (fsync or synchronous_commit off).
 */
export async function walFlushCounter(db: Db): Promise<(() => Promise<number>) | null> {
  const { rows } = await db.pool.query<{ measurable: boolean }>(
    "select to_regproc('pg_stat_get_backend_io') is not null and current_setting('fsync') = 'on' and current_setting('synchronous_commit') = 'on' as measurable",
  );
  if (!rows[0]!.measurable) return null;
  return async () => {
    await db.pool.query("select pg_stat_force_next_flush()");
    const { rows } = await db.pool.query<{ fsyncs: number }>(
      "select coalesce(sum(fsyncs), 0)::int as fsyncs from pg_stat_get_backend_io(pg_backend_pid()) where object = 'wal'",
    );
    return rows[0]!.fsyncs;
  };
}

/** Asserts a refusal's status and error code together (one diff shows both); returns the error body. */
export function expectError(response: ApiResponse, status: number, code: string): any {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  return response.body.error;
}
