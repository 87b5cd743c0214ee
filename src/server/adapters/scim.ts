// The SCIM door: `/scim/v2` (contract: "Directory sync: SCIM 2.0"). The key checks of every
// door run first, for the `scim` door (an organization key with the scim scope only), then the
// body is read within the JSON bounds, and the directory service answers. Every refusal is in
// SCIM's error shape instead of the envelope, with X-Request-Id, the rate-limit headers and
// Retry-After as elsewhere. Writes and refusals are recorded for the console's sync activity.
import { printableText } from "@/schemas/text";
import { authenticateApiKey } from "@/server/auth/authenticate";
import { rateLimitHeaders } from "@/server/auth/rate-limit";
import { requestOrigin, type KeyActor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { logIfUnexpected, toAppError, type AppError } from "@/server/errors";
import { listOf, resourceTypes, schemas, serviceProviderConfig } from "@/server/scim/discovery";
import { pathKeys } from "@/server/scim/filter";
import { ERROR_SCHEMA, scimError, type ScimObject } from "@/server/scim/schema";
import { recordDirectoryEvent } from "@/server/services/identity/directory";
import {
  createDirectoryGroup,
  deleteDirectoryGroup,
  getDirectoryGroup,
  listDirectoryGroups,
  patchDirectoryGroup,
  replaceDirectoryGroup,
} from "@/server/services/identity/directory-groups";
import { scimBaseUrl, type ListQuery } from "@/server/services/identity/directory-shared";
import {
  createDirectoryUser,
  deleteDirectoryUser,
  getDirectoryUser,
  listDirectoryUsers,
  patchDirectoryUser,
  replaceDirectoryUser,
} from "@/server/services/identity/directory-users";
import { parseJsonText, readBodyText, refuseDeclaredOversize } from "./json-body";
import { requestIdFor } from "./envelope";
import { textResponse } from "./text-response";

export const SCIM_PATH = "/scim/v2";
const SCIM_CONTENT_TYPE = "application/scim+json; charset=utf-8";

export interface ScimHandlerOptions {
  /** Called per request so the database is opened lazily and tests can substitute it. */
  db: () => Db;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The error's scimType, when it has one. */
function scimTypeOf(error: AppError): string | null {
  if (typeof error.extra.scimType === "string") return error.extra.scimType;
  return error.status === 400 && error.code === "invalid_request" ? "invalidSyntax" : null;
}

/** The SCIM error body for any failure: the status of the error, its scimType when it has one. */
function scimErrorResponse(error: AppError, requestId: string, headers: Record<string, string>): Response {
  logIfUnexpected(error);
  const merged = new Headers(headers);
  for (const [name, value] of Object.entries(error.headers)) merged.set(name, value);
  merged.set("X-Request-Id", requestId);
  merged.set("Content-Type", SCIM_CONTENT_TYPE);
  const scimType = scimTypeOf(error);
  const detail = error.status >= 500 ? "The server could not answer; try again." : printableText(error.message);
  const body = { schemas: [ERROR_SCHEMA], status: String(error.status), ...(scimType ? { scimType } : {}), detail };
  return textResponse(JSON.stringify(body), { status: error.status, headers: merged });
}

function listNames(value: string | null): string[] {
  return value
    ? value
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean)
    : [];
}

/** A copy of the resource with only the `attributes` asked for (id and schemas always), or without the `excludedAttributes`. */
function project(resource: ScimObject, attributes: string[], excluded: string[]): ScimObject {
  const pick = (source: ScimObject, keys: string[]): [string, unknown] | undefined => {
    const key = Object.keys(source).find((name) => name.toLowerCase() === keys[0]!.toLowerCase());
    if (key === undefined) return undefined;
    if (keys.length === 1) return [key, source[key]];
    const inner = source[key];
    if (typeof inner !== "object" || inner === null || Array.isArray(inner)) return undefined;
    const picked = pick(inner as ScimObject, keys.slice(1));
    return picked ? [key, { [picked[0]]: picked[1] }] : undefined;
  };
  if (attributes.length) {
    const result: ScimObject = { schemas: resource.schemas, id: resource.id };
    for (const name of attributes) {
      const picked = pick(resource, pathKeys(name));
      if (!picked) continue;
      const [key, value] = picked;
      const existing = result[key];
      result[key] =
        typeof existing === "object" && existing !== null && !Array.isArray(existing)
          ? { ...existing, ...(value as ScimObject) }
          : value;
    }
    return result;
  }
  const result = structuredClone(resource);
  for (const name of excluded) {
    const keys = pathKeys(name);
    let container: ScimObject | undefined = result;
    for (const key of keys.slice(0, -1)) {
      const found: string | undefined = Object.keys(container).find(
        (candidate) => candidate.toLowerCase() === key.toLowerCase(),
      );
      const inner: unknown = found === undefined ? undefined : container[found];
      container =
        typeof inner === "object" && inner !== null && !Array.isArray(inner) ? (inner as ScimObject) : undefined;
      if (!container) break;
    }
    const last = keys[keys.length - 1]!.toLowerCase();
    if (!container || last === "id" || last === "schemas") continue;
    const found = Object.keys(container).find((candidate) => candidate.toLowerCase() === last);
    if (found !== undefined) delete container[found];
  }
  return result;
}

function integerParam(url: URL, name: string): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw scimError(400, "invalidValue", `${name} must be an integer.`);
  return value;
}

async function readScimBody(request: Request): Promise<unknown> {
  const text = await readBodyText(request);
  if (text.trim() === "") throw scimError(400, "invalidSyntax", "The request needs a JSON body.");
  return parseJsonText(text);
}

function methodNotAllowed(allowed: string): never {
  throw scimError(405, null, `This method is not allowed here; use ${allowed}.`, { Allow: allowed });
}

/** Routes one authenticated request to the directory service. */
async function route(db: Db, actor: KeyActor, request: Request, url: URL, segments: string[]): Promise<Answer> {
  const method = request.method;
  const [collection, id, ...rest] = segments;
  const baseUrl = scimBaseUrl();
  const attributes = listNames(url.searchParams.get("attributes"));
  const excluded = listNames(url.searchParams.get("excludedAttributes"));
  const shaped = (resource: ScimObject) => project(resource, attributes, excluded);
  const withoutMembers =
    excluded.some((name) => name.toLowerCase() === "members") ||
    (attributes.length > 0 && !attributes.some((name) => name.toLowerCase().startsWith("members")));
  const resourceAnswer = (resource: ScimObject, status = 200): Answer => ({
    status,
    body: shaped(resource),
    headers: {
      ETag: String((resource.meta as ScimObject).version),
      ...(status === 201 ? { Location: String((resource.meta as ScimObject).location) } : {}),
    },
  });
  if (rest.length) throw scimError(404, null, `No resource at ${url.pathname}.`);

  if (collection === "ServiceProviderConfig" && !id) {
    if (method !== "GET") methodNotAllowed("GET");
    return { status: 200, body: serviceProviderConfig(baseUrl) };
  }
  if (collection === "ResourceTypes" || collection === "Schemas") {
    if (method !== "GET") methodNotAllowed("GET");
    const all = collection === "Schemas" ? schemas(baseUrl) : resourceTypes(baseUrl);
    if (!id) return { status: 200, body: listOf(all) };
    const one = all.find((item) => String(item.id).toLowerCase() === id.toLowerCase());
    if (!one) throw scimError(404, null, `No ${collection === "Schemas" ? "schema" : "resource type"} ${id}.`);
    return { status: 200, body: one };
  }
  if (collection !== "Users" && collection !== "Groups") throw scimError(404, null, `No resource at ${url.pathname}.`);
  const users = collection === "Users";

  if (!id) {
    if (method === "GET") {
      const query: ListQuery = {
        filter: url.searchParams.get("filter") ?? undefined,
        startIndex: integerParam(url, "startIndex"),
        count: integerParam(url, "count"),
        withoutMembers,
      };
      const list = users ? await listDirectoryUsers(db, actor, query) : await listDirectoryGroups(db, actor, query);
      return { status: 200, body: { ...list, Resources: list.Resources.map(shaped) } };
    }
    if (method === "POST") {
      const body = await readScimBody(request);
      return resourceAnswer(
        users ? await createDirectoryUser(db, actor, body) : await createDirectoryGroup(db, actor, body),
        201,
      );
    }
    methodNotAllowed("GET, POST");
  }
  switch (method) {
    case "GET":
      return resourceAnswer(
        users ? await getDirectoryUser(db, actor, id) : await getDirectoryGroup(db, actor, id, { withoutMembers }),
      );
    case "PUT": {
      const body = await readScimBody(request);
      return resourceAnswer(
        users ? await replaceDirectoryUser(db, actor, id, body) : await replaceDirectoryGroup(db, actor, id, body),
      );
    }
    case "PATCH": {
      const body = await readScimBody(request);
      const resource = users
        ? await patchDirectoryUser(db, actor, id, body)
        : await patchDirectoryGroup(db, actor, id, body);
      // 204 with no body, unless the request names the attributes it wants back.
      if (url.searchParams.has("attributes")) return resourceAnswer(resource);
      return { status: 204, headers: { ETag: String((resource.meta as ScimObject).version) } };
    }
    case "DELETE":
      await (users ? deleteDirectoryUser(db, actor, id) : deleteDirectoryGroup(db, actor, id));
      return { status: 204 };
    default:
      methodNotAllowed("GET, PUT, PATCH, DELETE");
  }
}

function tooLarge(): AppError {
  return scimError(413, null, "The body is over the 8 MiB limit for SCIM requests.");
}

export function createScimHandler(options: ScimHandlerOptions) {
  return async function handleScim(request: Request): Promise<Response> {
    const requestId = requestIdFor(request);
    const url = new URL(request.url);
    const segments = url.pathname.slice(SCIM_PATH.length).split("/").filter(Boolean);
    let limitHeaders: Record<string, string> = {};
    let actor: KeyActor | undefined;
    const db = options.db();
    const action = `${request.method} /${segments.join("/")}`;
    try {
      refuseDeclaredOversize(request, undefined, tooLarge);
      const authenticated = await authenticateApiKey(
        db,
        request.headers.get("authorization"),
        "scim",
        requestOrigin(request, requestId, "scim"),
      );
      actor = authenticated.actor;
      limitHeaders = rateLimitHeaders(authenticated.rateLimit);
      const answer = await route(db, actor, request, url, segments);
      if (request.method !== "GET") await recordDirectoryEvent(db, actor, action, answer.status, "");
      const headers = new Headers({ ...limitHeaders, ...answer.headers });
      headers.set("X-Request-Id", requestId);
      if (answer.body === undefined) return new Response(null, { status: answer.status, headers });
      headers.set("Content-Type", SCIM_CONTENT_TYPE);
      return textResponse(JSON.stringify(answer.body), { status: answer.status, headers });
    } catch (error) {
      if (request.signal.aborted) return new Response(null, { status: 499 });
      let refusal = toAppError(error);
      // The body reader's own 413 carries the envelope's code; SCIM answers it in its shape.
      if (refusal.status === 413) refusal = tooLarge();
      if (actor)
        await recordDirectoryEvent(
          db,
          actor,
          action,
          refusal.status,
          refusal.status >= 500 ? "Server error" : refusal.message,
          scimTypeOf(refusal),
        );
      return scimErrorResponse(refusal, requestId, limitHeaders);
    }
  };
}
