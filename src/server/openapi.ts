// The OpenAPI 3.1 document, generated from the routers by trpc-to-openapi and completed with
// what the generator does not know: the error envelope and codes of each operation, success
// statuses other than 200, and the headers every response carries.
import { forEachOpenApiProcedure, generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { MAX_TITLE_CHARS } from "@/schemas/limits";
import { ERROR_STATUS, type ErrorCode } from "@/server/errors";
import type { Meta } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/root";

const ERROR_MEANINGS: Record<ErrorCode, string> = {
  unauthorized: "Authorization header missing or malformed",
  invalid_api_key: "The key matches no active key",
  api_key_revoked: "The key was revoked",
  member_removed: "Personal key whose owner left the organization",
  member_key_required: "The endpoint (MCP) needs a personal key",
  api_disabled: "Developer API, Apps endpoints or MCP server turned off for the organization",
  feature_not_available: "The plan lacks the developer API, or the quality checker on test endpoints",
  insufficient_scope: "The key lacks the required scope",
  forbidden_role: "The personal key's member lacks the role; nothing written",
  invalid_request:
    "Malformed JSON, JSON nested over 64 levels, failed validation (`problems` lists every one; text over its maxLength, or holding U+0000 or an unpaired surrogate, is named), bad cursor or limit; 413 for a JSON body over 8 MiB or an upload over 4.5 MB, 415 for a body that is not JSON",
  not_found: "No such resource in the organization (other organizations' items and unpublished ones read the same), or no such route",
  method_not_allowed: "The path exists but not with this method; `Allow` lists the methods",
  groups_disabled: "User groups are not enabled",
  group_not_found: "A group id matches no group; nothing written",
  plan_group: "The group belongs to a plan and follows it (422 on member add, 409 on rename or delete); nothing written",
  grants_unsupported: "Per-user grants sent to an organization that manages access with groups; nothing written",
  portal_scope_unsupported: "A group grant named a deploymentId in a groups-managed organization; nothing written",
  invalid_code: "Portal sign-in: the code is wrong, used, expired or void after 5 wrong tries (the portal door only)",
  deleted_identity: "The email belongs to a deleted account; nothing written",
  tier_not_found: "A tierPlanId matches no live plan",
  grant_target_not_found: "A grant's targetId does not exist in the organization",
  end_user_not_found: "endUserId matches no end user",
  live_paid_subscription: "The end user holds a live paid subscription on a requested plan; nothing written",
  service_disabled: "The App service (Conversation or Transaction) is off in its published API config",
  insufficient_credits: "Credits cannot cover the run or search; nothing ran, nothing charged",
  plan_limit: "The plan has no room for another one; `limit` and `used` say why; nothing created",
  cross_origin_request: "A cookie-authenticated request (console, portal) came from a page of another origin; nothing done",
  search_unavailable: "Document search could not answer; nothing charged; retry",
  export_too_large: "Knowledgebase over the 50 MB export cap",
  output_invalid: "The transaction ran but its output does not match the output schema (`raw`, `details`); billed",
  conflict: "Stale `expectedUpdatedAt` / `If-Unmodified-Since`, an Idempotency-Key reused with another body or still running, or a portal slug another portal has; nothing written",
  invalid_workflow: "Flow refused by validation; `feedback` names each problem; nothing written",
  invalid_model: "Model id unknown or unavailable; nothing written",
  unpublished_dependencies: "Adviser or member not published; `dependencies` lists them; nothing written",
  run_limit_exceeded: "The run outgrew a bound (steps, a node's or member's output, the reply, or time); the message names it; the run was stopped, recorded as failed and billed",
  provider_error: "The model provider failed or timed out; nothing charged when nothing was produced; retry later",
  rate_limited: "Too many requests (120 per minute per key, sliding 60-second window); see Retry-After",
  server_error: "Server-side failure; safe to retry",
};

/** Codes any authenticated call can answer, in the order the checks run. */
const AUTHENTICATION_ERRORS: ErrorCode[] = [
  "unauthorized",
  "invalid_api_key",
  "api_key_revoked",
  "member_removed",
  "feature_not_available",
  "api_disabled",
  "rate_limited",
];

function errorCodesFor(meta: Meta): ErrorCode[] {
  const codes: ErrorCode[] = [...AUTHENTICATION_ERRORS];
  if (meta.auth?.scope) codes.push("insufficient_scope", "forbidden_role");
  codes.push("invalid_request", ...(meta.errors ?? []), "server_error");
  return [...new Set(codes)];
}

/** Statuses a code can take: its own, plus the second status some codes have. */
const EXTRA_STATUSES: Partial<Record<ErrorCode, number[]>> = { plan_group: [409] };

function statusesOf(code: ErrorCode): number[] {
  return [ERROR_STATUS[code], ...(EXTRA_STATUSES[code] ?? [])];
}

const REQUEST_ID_HEADER = {
  description: "Echo of a valid client `X-Request-Id`, else a new UUID. On every response.",
  schema: { type: "string" },
};
const WWW_AUTHENTICATE_HEADER = {
  description: '`Bearer realm="atrium"`, with `error="invalid_token"` when a key was sent and cannot be used (RFC 6750)',
  schema: { type: "string" },
};
const IDEMPOTENT_REPLAYED_HEADER = {
  description: "`true` when this is the remembered answer to an earlier request with the same Idempotency-Key",
  schema: { type: "string", enum: ["true"] },
};
const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": { description: "Requests allowed per 60-second window for this key", schema: { type: "integer" } },
  "RateLimit-Remaining": { description: "Requests left in the current window", schema: { type: "integer" } },
  "RateLimit-Reset": { description: "Seconds until the window frees up", schema: { type: "integer" } },
};

type Operation = {
  responses: Record<string, { description: string; content?: unknown; headers?: Record<string, unknown> }>;
  security?: unknown;
  parameters?: unknown[];
  requestBody?: { content?: Record<string, unknown>; required?: boolean; description?: string };
};

/** What the generator cannot know: the multipart form, the Idempotency-Key header, a second success status. */
function addDoors(operation: Operation, meta: Meta): void {
  // The REST door honours Idempotency-Key on every POST (adapters/rest.ts).
  if (meta.openapi?.method === "POST") {
    operation.parameters = [
      ...(operation.parameters ?? []),
      {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description:
          "1..255 printable ASCII. The same key with the same body on the same path replays the first success (status and body) with `Idempotent-Replayed: true` (a stream replays as one `done` event); another body or path, or while the first still runs, gives 409 `conflict`. A refused request does not keep the key. Kept 24 hours per organization.",
        schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" },
      },
    ];
    for (const [status, response] of Object.entries(operation.responses)) {
      if (status.startsWith("2")) response.headers = { ...response.headers, "Idempotent-Replayed": IDEMPOTENT_REPLAYED_HEADER };
    }
  }
  if (operation.requestBody?.content?.["application/json"]) {
    operation.responses["413"] = {
      description: "`invalid_request`: the JSON body is over the 8 MiB request limit (refused while it is read)",
      headers: { "X-Request-Id": REQUEST_ID_HEADER },
      content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
    };
  }
  if (meta.multipart) {
    operation.requestBody = operation.requestBody ?? { content: {} };
    operation.requestBody.content = {
      ...operation.requestBody.content,
      "multipart/form-data": {
        schema: {
          type: "object",
          required: ["file"],
          additionalProperties: false,
          properties: {
            file: { type: "string", format: "binary", description: "A PDF, CSV, TXT or MD file. The whole request may be up to 4.5 MB (413 `invalid_request` above); for larger documents give a `url`." },
            name: { type: "string", minLength: 1, maxLength: MAX_TITLE_CHARS, description: "Defaults to the file name" },
          },
        },
      },
    };
    operation.responses["413"] = {
      description: "`invalid_request`: the upload is over the 4.5 MB request limit, or a JSON body over 8 MiB",
      headers: { "X-Request-Id": REQUEST_ID_HEADER },
      content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
    };
  }
  if (meta.alsoSucceeds) {
    const success = operation.responses[String(meta.successStatus ?? 200)];
    if (success) operation.responses[String(meta.alsoSucceeds.status)] = { ...success, description: meta.alsoSucceeds.description };
  }
}

function completeOperation(operation: Operation, meta: Meta): void {
  const success = operation.responses["200"];
  delete operation.responses["200"];
  for (const status of Object.keys(operation.responses)) delete operation.responses[status];
  const successStatus = meta.successStatus ?? 200;
  if (success) {
    operation.responses[String(successStatus)] = {
      ...success,
      ...(successStatus === 204 ? { content: undefined, description: "Done; no body" } : {}),
      headers: { "X-Request-Id": REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS },
    };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesFor(meta)) {
    for (const status of statusesOf(code)) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    operation.responses[String(status)] = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_MEANINGS[code]}`).join("; "),
      headers: {
        "X-Request-Id": REQUEST_ID_HEADER,
        ...(status === 401 ? { "WWW-Authenticate": WWW_AUTHENTICATE_HEADER } : {}),
        ...(status === 429 ? { "Retry-After": { description: "Whole seconds (>= 1) until a request will be allowed", schema: { type: "integer" } } } : {}),
      },
      content: {
        "application/json": {
          schema: {
            allOf: [
              { $ref: "#/components/schemas/ErrorEnvelope" },
              { type: "object", properties: { error: { type: "object", properties: { code: { type: "string", enum: codes } } } } },
            ],
          },
        },
      },
    };
  }
}

const ERROR_TABLE = (Object.keys(ERROR_STATUS) as ErrorCode[])
  .map((code) => `| \`${code}\` | ${ERROR_STATUS[code]}${EXTRA_STATUSES[code] ? ` or ${EXTRA_STATUSES[code]!.join(", ")}` : ""} | ${ERROR_MEANINGS[code]} |`)
  .join("\n");

const DESCRIPTION = `Atrium's developer API. Authenticate every call with \`Authorization: Bearer <API_KEY>\`.

Errors always use the envelope \`{"error":{"code","message", ...}}\`; branch on \`code\`, which is stable.

| Code | Status | Meaning |
|---|---|---|
${ERROR_TABLE}

Limits: 120 requests per minute per key in a sliding 60-second window, shared by every server process; every authenticated response carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`, and a 429 carries \`Retry-After\`.

Lists take \`limit\` (1..200, default 50) and \`cursor\`, and answer \`nextCursor\` (null on the last page).`;

let cached: OpenAPIObject | undefined;

export function openApiDocument(): OpenAPIObject {
  if (cached) return cached;
  const document = generateOpenApiDocument(appRouter, {
    title: "Atrium API",
    version: "1.0.0",
    description: DESCRIPTION,
    baseUrl: "/api/v1",
    securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "An organization key (sk_org_…) or a personal key (sk_mem_…)" } },
  });
  document.components = document.components ?? {};
  document.components.schemas = {
    ...document.components.schemas,
    ErrorEnvelope: {
      type: "object",
      required: ["error"],
      properties: {
        error: {
          type: "object",
          required: ["code", "message"],
          properties: {
            code: { type: "string", enum: Object.keys(ERROR_STATUS), description: "Stable machine-readable code" },
            message: { type: "string", description: "Human-readable; wording may change" },
            problems: {
              type: "array",
              description: "invalid_request from validation: every problem",
              items: { type: "object", required: ["path", "message"], properties: { path: { type: "string" }, message: { type: "string" } } },
            },
          },
          additionalProperties: true,
        },
      },
    },
  };

  forEachOpenApiProcedure(appRouter._def.procedures, ({ meta }) => {
    const openapi = meta.openapi!;
    const operation = document.paths?.[openapi.path]?.[openapi.method.toLowerCase() as "get"] as Operation | undefined;
    if (operation) {
      completeOperation(operation, meta as Meta);
      addDoors(operation, meta as Meta);
    }
  });

  document.paths = {
    "/openapi.json": {
      get: {
        operationId: "getOpenApiDocument",
        summary: "This document",
        tags: ["Meta"],
        security: [],
        responses: { "200": { description: "The OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object" } } } } },
      },
    },
    ...document.paths,
  };
  cached = document;
  return document;
}
