// The OpenAPI 3.1 document, generated from the routers by trpc-to-openapi and completed with
// what the generator does not know: every error code each operation can answer (one named schema
// per code, with its typed extras), success statuses other than 200, the conversation stream,
// the upload form and the headers every response carries. Error responses and headers shared by
// many operations are components, so the document stays small for generators.
import { forEachOpenApiProcedure, generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import type { ZodType } from "zod";
import { createSchema } from "zod-openapi";
import { MAX_TITLE_CHARS } from "@/schemas/limits";
import { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS_PER_TURN, MAX_TURN_UPLOAD_BYTES } from "@/schemas/runs/attachment";
import { SourceContent } from "@/schemas/knowledge/source";
import { ERROR_STATUS, type ErrorCode } from "@/server/errors";
import type { Meta } from "@/server/trpc/init";
import { WEBHOOK_EVENT_TYPES } from "@/schemas/org/webhooks";
import { appRouter } from "@/server/trpc/root";

type Components = NonNullable<OpenAPIObject["components"]>;
type SchemaMap = NonNullable<Components["schemas"]>;

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
    "Malformed JSON, JSON nested over 64 levels, failed validation (`problems` lists every one; text over its maxLength, or holding U+0000 or an unpaired surrogate, is named), bad cursor or limit; 413 for a JSON body over 8 MiB or an upload over 4.5 MB; a body that is not JSON, or an upload of a refused file type, is 400",
  invitation_unavailable:
    "An invitation link already used, revoked or expired (`reason`: used, revoked, expired); nothing written",
  export_link_unavailable: "Portal only: a mailed export link used or expired (`reason`)",
  export_link_other_user: "Portal only: a mailed export link sent to another end user",
  not_found:
    "No such resource in the organization (other organizations' items and unpublished ones read the same), or no such route",
  method_not_allowed: "The path exists but not with this method; `Allow` lists the methods",
  groups_disabled: "User groups are not enabled",
  model_not_in_plan: "The end user's plans do not allow a model the app calls (`models`); nothing ran, nothing charged",
  group_not_found: "A group id matches no group; nothing written",
  plan_group:
    "The group belongs to a plan and follows it (422 on member add, 409 on rename or delete); nothing written",
  grants_unsupported: "Per-user grants sent to an organization that manages access with groups; nothing written",
  portal_scope_unsupported: "A group grant named a deploymentId in a groups-managed organization; nothing written",
  invalid_code: "Portal sign-in: the code is wrong, used, expired or void after 5 wrong tries (the portal door only)",
  deleted_identity: "The email belongs to a deleted account; nothing written",
  tier_not_found: "A tierPlanId matches no live plan",
  grant_target_not_found: "A grant's targetId does not exist in the organization",
  end_user_not_found: "endUserId matches no end user",
  agent_not_found:
    "A draft names an agent (an app's adviser or member) the organization does not have; `problems` lists each; nothing written",
  flow_not_found:
    "A draft names a flow (an agent's flows, an app's member) the organization does not have; `problems` lists each; nothing written",
  knowledgebase_not_found:
    "An agent draft names a knowledgebase the organization does not have; `problems` lists each; nothing written",
  mcp_connection_not_found:
    "An agent's integration names an MCP connection (toolkit) the organization does not have; `problems` lists each; nothing written",
  directory_managed:
    "The group comes from the organization's directory (SCIM): its name and members change there only; nothing written",
  live_paid_subscription: "The end user holds a live paid subscription on a requested plan; nothing written",
  service_disabled: "The App service (Conversation or Transaction) is off in its published API config",
  insufficient_credits: "Credits cannot cover the run or search; nothing ran, nothing charged",
  plan_limit: "The plan has no room for another one; `limit` and `used` say why; nothing created",
  cross_origin_request:
    "A cookie-authenticated request (console, portal) came from a page of another origin; nothing done",
  invalid_embed_token:
    "Only on the portal's embed exchange: the embed token is forged, expired, longer-lived than an hour, for another portal, or names no usable end user; nothing done",
  origin_not_allowed:
    "Only on the portal's embed exchange: the embedding page's origin is not allowed, or the portal's embedding is off; nothing done",
  search_unavailable: "Document search could not answer; nothing charged; retry",
  service_unavailable:
    "The database cannot be reached (stopped, restarting or full); retry after `Retry-After` seconds",
  export_too_large: "Knowledgebase over the 50 MB export cap",
  output_invalid: "The transaction ran but its output does not match the output schema (`raw`, `details`); billed",
  canceled:
    "Only in a conversation stream's `error` event: the run was stopped by its cancel endpoint (the execution is `canceled`, billed)",
  conflict:
    "Stale `expectedUpdatedAt` / `If-Unmodified-Since`, an Idempotency-Key reused with another body or still running, or a portal slug another portal has; nothing written",
  precondition_failed: "`If-Match` names a version other than the current one (drafts, pages); nothing written",
  invalid_workflow:
    "Flow refused by validation (`feedback` names each problem; nothing written), or a flow node that could not do what its data asks as it ran (`feedback` names the node; the run is recorded as failed, not billed)",
  invalid_model: "Model id unknown or unavailable; nothing written",
  version_not_found: "`version` names no version of this item (another item's or organization's, or none); nothing ran",
  unpublished_dependencies: "Adviser or member not published; `dependencies` lists them; nothing written",
  unsupported_attachment:
    "A chat attachment that is not PDF, DOCX, PPTX, XLSX, TXT, MD, CSV, PNG, JPEG or WebP by its content, cannot be read, or is an image for an app none of whose models accepts images; nothing ran, nothing charged",
  run_limit_exceeded:
    "The run outgrew a bound (steps, a node's or member's output, the reply, time, a loop's items, a code node's time or memory, an http_request's time or answer); the message names it; the run was stopped, recorded as failed and billed",
  provider_error: "The model provider failed or timed out; nothing charged when nothing was produced; retry later",
  rate_limited: "Too many requests (120 per minute per key, sliding 60-second window); see Retry-After",
  server_error: "Server-side failure; safe to retry",
};

/** Codes any authenticated call can answer, in the order the checks run (a SCIM token is insufficient_scope everywhere). */
const AUTHENTICATION_ERRORS: ErrorCode[] = [
  "unauthorized",
  "invalid_api_key",
  "api_key_revoked",
  "member_removed",
  "feature_not_available",
  "api_disabled",
  "rate_limited",
  "insufficient_scope",
];

function errorCodesFor(meta: Meta): ErrorCode[] {
  const codes: ErrorCode[] = [...AUTHENTICATION_ERRORS];
  if (meta.auth?.scope) codes.push("insufficient_scope", "forbidden_role");
  codes.push("invalid_request", ...(meta.errors ?? []));
  // Every POST takes an Idempotency-Key: one reused with another body or path, or while the first call runs.
  if (meta.openapi?.method === "POST") codes.push("conflict");
  codes.push("server_error", "service_unavailable");
  return [...new Set(codes)];
}

/** Statuses a code can take: its own, plus the second status some codes have. */
const EXTRA_STATUSES: Partial<Record<ErrorCode, number[]>> = { plan_group: [409] };

function statusesOf(code: ErrorCode): number[] {
  return [ERROR_STATUS[code], ...(EXTRA_STATUSES[code] ?? [])];
}

const HEADER_REFS = {
  requestId: { $ref: "#/components/headers/X-Request-Id" },
  rateLimit: {
    "RateLimit-Limit": { $ref: "#/components/headers/RateLimit-Limit" },
    "RateLimit-Remaining": { $ref: "#/components/headers/RateLimit-Remaining" },
    "RateLimit-Reset": { $ref: "#/components/headers/RateLimit-Reset" },
    "RateLimit-Policy": { $ref: "#/components/headers/RateLimit-Policy" },
    RateLimit: { $ref: "#/components/headers/RateLimit" },
  },
  retryAfter: { $ref: "#/components/headers/Retry-After" },
  wwwAuthenticate: { $ref: "#/components/headers/WWW-Authenticate" },
  idempotentReplayed: { $ref: "#/components/headers/Idempotent-Replayed" },
  etag: { $ref: "#/components/headers/ETag" },
};

const HEADERS: NonNullable<Components["headers"]> = {
  "X-Request-Id": {
    description: "Echo of a valid client `X-Request-Id`, else a new UUID. On every response.",
    schema: { type: "string" },
  },
  "RateLimit-Limit": { description: "Requests allowed per 60-second window for this key", schema: { type: "integer" } },
  "RateLimit-Remaining": { description: "Requests left in the current window", schema: { type: "integer" } },
  "RateLimit-Reset": { description: "Seconds until the window frees up", schema: { type: "integer" } },
  "RateLimit-Policy": {
    description: 'The same limit in the IETF RateLimit fields\' form: `"default";q=<limit>;w=60`',
    schema: { type: "string" },
  },
  RateLimit: {
    description: 'The IETF RateLimit field: `"default";r=<remaining>;t=<seconds until the window frees up>`',
    schema: { type: "string" },
  },
  "Retry-After": {
    description: "Whole seconds (>= 1) until a request will be allowed (429), or worth retrying (503)",
    schema: { type: "integer", minimum: 1 },
  },
  "WWW-Authenticate": {
    description:
      '`Bearer realm="atrium"`, with `error="invalid_token"` when a key was sent and cannot be used (RFC 6750)',
    schema: { type: "string" },
  },
  ETag: {
    description:
      "The resource's current version, a strong tag; send it back in `If-Match` to write only to this version",
    schema: { type: "string" },
  },
  "Idempotent-Replayed": {
    description: "`true` when this is the remembered answer to an earlier request with the same Idempotency-Key",
    schema: { type: "string", enum: ["true"] },
  },
};

const PROBLEMS = {
  type: "array",
  description: "Every problem found, each naming the field",
  items: {
    type: "object",
    required: ["path", "message"],
    properties: { path: { type: "string" }, message: { type: "string" } },
  },
};

/** The fields some codes add beside `code` and `message`, typed for generators. */
const ERROR_EXTRAS: Partial<Record<ErrorCode, { required?: string[]; properties: Record<string, unknown> }>> = {
  invalid_request: { properties: { problems: PROBLEMS } },
  agent_not_found: { properties: { problems: PROBLEMS } },
  flow_not_found: { properties: { problems: PROBLEMS } },
  knowledgebase_not_found: { properties: { problems: PROBLEMS } },
  mcp_connection_not_found: { properties: { problems: PROBLEMS } },
  plan_limit: {
    properties: {
      limit: { type: "integer", description: "What the plan allows" },
      used: { type: "integer", description: "How many exist now" },
    },
  },
  unpublished_dependencies: {
    required: ["dependencies"],
    properties: {
      dependencies: {
        type: "array",
        description: "The adviser or members that are not published",
        items: {
          type: "object",
          required: ["id", "kind", "name"],
          properties: { id: { $ref: "#/components/schemas/Uuid" }, kind: { type: "string" }, name: { type: "string" } },
        },
      },
    },
  },
  invalid_workflow: {
    required: ["feedback"],
    properties: {
      feedback: {
        type: "array",
        description: "Every problem of the flow, with the node it is about when there is one",
        items: {
          type: "object",
          required: ["message"],
          properties: { nodeId: { type: "string" }, message: { type: "string" } },
        },
      },
    },
  },
  output_invalid: {
    required: ["raw", "details"],
    properties: {
      raw: { type: "string", description: "The reply as the model gave it" },
      details: {
        type: "array",
        description: "Where the reply departs from the output schema",
        items: {
          type: "object",
          required: ["pointer", "message"],
          properties: { pointer: { type: "string" }, message: { type: "string" } },
        },
      },
      executionId: { $ref: "#/components/schemas/Uuid" },
    },
  },
  invalid_model: { properties: { model: { type: "string", description: "The model id refused" } } },
  rate_limited: { properties: { retryAfterSeconds: { type: "integer" } } },
};

/** `invalid_request` → `InvalidRequestError`. */
function errorSchemaName(code: ErrorCode): string {
  return `${code.replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase())}Error`;
}

function errorSchemas(): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
    const extras = ERROR_EXTRAS[code];
    schemas[errorSchemaName(code)] = {
      type: "object",
      description: `\`${code}\` (${statusesOf(code).join(" or ")}): ${ERROR_MEANINGS[code]}`,
      required: ["code", "message", ...(extras?.required ?? [])],
      properties: {
        code: { type: "string", const: code },
        message: { type: "string", description: "Human-readable; wording may change" },
        ...extras?.properties,
      },
      additionalProperties: true,
    };
  }
  return schemas;
}

/** The envelope of an error response that may carry any of `codes`, discriminated on `code`. */
function errorEnvelopeOf(codes: ErrorCode[]): unknown {
  const refs = codes.map((code) => ({ $ref: `#/components/schemas/${errorSchemaName(code)}` }));
  return {
    type: "object",
    required: ["error"],
    properties: {
      error:
        refs.length === 1
          ? refs[0]
          : {
              oneOf: refs,
              discriminator: {
                propertyName: "code",
                mapping: Object.fromEntries(codes.map((code, index) => [code, refs[index]!.$ref])),
              },
            },
    },
  };
}

/** Error responses shared by many operations, kept once under components.responses. */
const sharedResponses = new Map<string, { name: string; response: unknown }>();

function errorResponse(status: number, codes: ErrorCode[], description?: string): { $ref: string } {
  const key = `${status}:${codes.join(",")}:${description ?? ""}`;
  let shared = sharedResponses.get(key);
  if (!shared) {
    const sameStatus = [...sharedResponses.keys()].filter((other) => other.startsWith(`${status}:`)).length;
    const name = sameStatus === 0 ? `Error${status}` : `Error${status}_${sameStatus + 1}`;
    shared = {
      name,
      response: {
        description: description ?? codes.map((code) => `\`${code}\``).join(", "),
        headers: {
          "X-Request-Id": HEADER_REFS.requestId,
          ...(status === 401 ? { "WWW-Authenticate": HEADER_REFS.wwwAuthenticate } : {}),
          ...(status === 429 || status === 503 ? { "Retry-After": HEADER_REFS.retryAfter } : {}),
        },
        content: { "application/json": { schema: errorEnvelopeOf(codes) } },
      },
    };
    sharedResponses.set(key, shared);
  }
  return { $ref: `#/components/responses/${shared.name}` };
}

type Response = {
  description: string;
  content?: Record<string, { schema?: unknown }>;
  headers?: Record<string, unknown>;
};
type Parameter = Record<string, unknown> & { in?: string; schema?: Record<string, unknown> };
type Operation = {
  responses: Record<string, Response | { $ref: string }>;
  security?: unknown;
  parameters?: Parameter[];
  requestBody?: {
    content?: Record<string, { schema?: { required?: string[]; $ref?: string } }>;
    required?: boolean;
    description?: string;
  };
};

const STREAM_EVENTS_TEXT = `Events, each with an \`id:\` (its place in the run):
- \`run\`: \`ConversationRunEvent\`, first: the \`execution_id\` to resume or cancel, and the \`conversation_id\`;
- \`delta\`: \`ConversationDeltaEvent\`, a piece of the reply;
- \`step\`: \`ConversationStepEvent\`, a member or tool starting or ending, or \`{kind: "approval", name, status: "waiting"}\` when the run paused at a flow's approval node (the stream then stays open and goes on when a member approves; \`POST /executions/{executionId}/approval\`);
- then exactly one \`done\` (\`ConversationDoneEvent\`) or \`error\` (\`ConversationErrorEvent\`; code \`canceled\` after a cancel, \`approval_rejected\` or \`approval_timed_out\` when the approval was refused or ran out).

Clients ignore events they do not know.`;

const STREAM_DESCRIPTION = `With \`"stream": true\` the answer is Server-Sent Events (refusals before the run starts stay JSON errors). Once the run starts the headers and a comment line go out at once, then a comment every 15 s keeps the connection open. ${STREAM_EVENTS_TEXT}

The run goes on if the connection drops (only \`POST …/runs/{executionId}/cancel\` or a run bound stops it) and its events are kept 24 hours: resume with \`GET /apps/{appId}/conversation/runs/{executionId}/events\` and \`Last-Event-ID\`, or repeat this POST with the same \`Idempotency-Key\` and body (and \`Last-Event-ID\`). One run, one charge.`;

const EVENTS_DESCRIPTION = `Server-Sent Events of the run, from the start or after \`Last-Event-ID\`, then live until the final event; a comment line goes out at once and every 15 s. ${STREAM_EVENTS_TEXT}`;

/** The event payloads of the conversation stream, named so generators type them. */
const STREAM_SCHEMAS: SchemaMap = {
  ConversationRunEvent: {
    type: "object",
    required: ["execution_id", "conversation_id"],
    description: "`event: run`: the first event; the run to resume (`GET …/runs/{execution_id}/events`) or cancel",
    properties: {
      execution_id: { $ref: "#/components/schemas/Uuid" },
      conversation_id: { $ref: "#/components/schemas/Uuid" },
    },
  },
  ConversationDeltaEvent: {
    type: "object",
    required: ["text"],
    properties: { text: { type: "string" } },
    description: "`event: delta`",
  },
  ConversationStepEvent: {
    type: "object",
    required: ["kind", "name", "status"],
    description:
      "`event: step`: one when a member or tool starts and one when it ends; `approval` `waiting` when the run paused for an approval",
    properties: {
      kind: { type: "string", enum: ["member", "tool", "approval"] },
      name: { type: "string" },
      status: { type: "string", enum: ["started", "finished", "failed", "waiting"] },
      output: { type: "string", description: "Truncated" },
    },
  },
  ConversationDoneEvent: {
    type: "object",
    required: ["reply", "citations", "conversation_id", "execution_id"],
    description: "`event: done`: the last event; close the stream",
    properties: {
      reply: { type: "string" },
      citations: { type: "array", items: { $ref: "#/components/schemas/Citation" } },
      conversation_id: { $ref: "#/components/schemas/Uuid" },
      execution_id: { $ref: "#/components/schemas/Uuid" },
    },
  },
  ConversationErrorEvent: {
    type: "object",
    required: ["error"],
    description:
      "`event: error`: the run failed after it started (a run bound, the provider) or was canceled (`canceled`); the last event",
    properties: { error: { $ref: "#/components/schemas/ErrorBody" } },
  },
};

/** The SSE event names of a conversation run and the schema of each one's `data`. */
const STREAM_EVENT_SCHEMAS = {
  run: "ConversationRunEvent",
  delta: "ConversationDeltaEvent",
  step: "ConversationStepEvent",
  done: "ConversationDoneEvent",
  error: "ConversationErrorEvent",
} as const;

/**
 * One message of the stream, as a standard SSE client hands it over (`event`, `id`, `data`),
 * discriminated on `event`: generators type the stream from this, with no vendor extension.
 */
const CONVERSATION_STREAM_EVENT = {
  description:
    "One message of a conversation stream, as an SSE client reads it: `event` names it, `id` resumes after it (`Last-Event-ID`), `data` is JSON text on the wire whose parsed value has the schema given here.",
  oneOf: Object.values(STREAM_EVENT_SCHEMAS).map((name) => ({ $ref: `#/components/schemas/${name}Message` })),
  discriminator: {
    propertyName: "event",
    mapping: Object.fromEntries(
      Object.entries(STREAM_EVENT_SCHEMAS).map(([event, name]) => [event, `#/components/schemas/${name}Message`]),
    ),
  },
};

const STREAM_MESSAGE_SCHEMAS = Object.fromEntries(
  Object.entries(STREAM_EVENT_SCHEMAS).map(([event, name]) => [
    `${name}Message`,
    {
      type: "object",
      required: ["event", "id", "data"],
      properties: {
        event: { type: "string", const: event },
        id: { type: "string", pattern: "^[0-9]{1,9}$" },
        data: { $ref: `#/components/schemas/${name}` },
      },
    },
  ]),
);

/** The `text/event-stream` content of a conversation run: a sequence of ConversationStreamEvent messages. */
const EVENT_STREAM_CONTENT = { schema: { $ref: "#/components/schemas/ConversationStreamEvent" } };

const FORM_LIST = { style: "form", explode: false };

const LAST_EVENT_ID = (description: string) => ({
  name: "Last-Event-ID",
  in: "header",
  required: false,
  description,
  schema: { type: "string", pattern: "^[0-9]{1,9}$" },
});

const ATTACHMENT_PART = {
  type: "string",
  format: "binary",
  contentMediaType: "application/octet-stream",
  description: `PDF, DOCX, PPTX, XLSX, TXT, MD, CSV, PNG, JPEG or WebP, typed by its content (another type is 422 \`unsupported_attachment\`); up to ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB (413 \`invalid_request\` above)`,
};

/** The multipart forms of chat attachments: `POST /files` (one file) and a conversation turn with its files. */
function addAttachmentForm(operation: Operation, form: "files" | "conversation"): void {
  const json = operation.requestBody?.content?.["application/json"];
  const turnFields = (json?.schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  const schema =
    form === "files"
      ? {
          type: "object",
          required: ["file"],
          additionalProperties: false,
          properties: {
            file: ATTACHMENT_PART,
            endUserId: {
              type: "string",
              format: "uuid",
              description: "The end user the file is for (a turn on their behalf); theirs alone afterwards",
            },
          },
        }
      : {
          type: "object",
          additionalProperties: false,
          properties: {
            ...Object.fromEntries(Object.entries(turnFields).filter(([name]) => name !== "fileIds")),
            fileIds: { type: "array", items: { type: "string", format: "uuid" }, maxItems: MAX_ATTACHMENTS_PER_TURN },
            file: {
              type: "array",
              maxItems: MAX_ATTACHMENTS_PER_TURN,
              items: ATTACHMENT_PART,
              description: `One part per file, at most ${MAX_ATTACHMENTS_PER_TURN} a turn with \`fileIds\`; the whole request up to ${MAX_TURN_UPLOAD_BYTES / 1024 / 1024} MB (413 \`invalid_request\` above): upload larger files with \`POST /files\` and pass \`fileIds\``,
            },
          },
          description:
            "The JSON body's fields as form fields (`true`/`false` for booleans, `fileIds` repeated) and the files as `file` parts",
        };
  operation.requestBody = {
    required: true,
    content: {
      ...(form === "conversation" ? operation.requestBody?.content : {}),
      "multipart/form-data": { schema, encoding: { file: { contentType: "application/octet-stream" } } } as never,
    },
  };
  operation.responses["413"] = errorResponse(
    413,
    ["invalid_request"],
    form === "files"
      ? `\`invalid_request\`: the file is over ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB`
      : `\`invalid_request\`: a multipart turn over ${MAX_TURN_UPLOAD_BYTES / 1024 / 1024} MB, or a JSON body over 8 MiB`,
  );
}

/** A conversation turn's Server-Sent Events beside its JSON, or a run's events as a stream only. */
function addStreams(operation: Operation, meta: Meta, success: Response | undefined): void {
  if (meta.stream && success?.content) {
    success.description = `JSON, or with \`"stream": true\` Server-Sent Events. ${STREAM_DESCRIPTION}`;
    success.content["text/event-stream"] = EVENT_STREAM_CONTENT;
    operation.parameters = [
      ...(operation.parameters ?? []),
      LAST_EVENT_ID("With `Idempotency-Key`, attaching to the key's run: resume after this event `id:`"),
    ];
  }
  if (meta.events && success) {
    // The REST door answers these as Server-Sent Events only (adapters/rest.ts).
    success.description = EVENTS_DESCRIPTION;
    success.content = { "text/event-stream": EVENT_STREAM_CONTENT };
    operation.responses["204"] = {
      description:
        "The run has ended and the client already has its last event: nothing to send (an EventSource stops reconnecting)",
      headers: success.headers,
    } as Response;
    operation.parameters = [
      ...(operation.parameters ?? []),
      LAST_EVENT_ID(
        "The `id:` of the last event the client has: the stream resumes after it (an EventSource sends it when it reconnects)",
      ),
    ];
  }
}

/** The Idempotency-Key header on a POST, and `Idempotent-Replayed` on its successes. */
function addIdempotencyKey(operation: Operation): void {
  operation.parameters = [
    ...(operation.parameters ?? []),
    {
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        "1..255 printable ASCII. The same key with the same body on the same path replays the first success (status and body) with `Idempotent-Replayed: true`; another body or path, or while the first still runs, gives 409 `conflict`, except a conversation stream, which attaches to its run (from the start, or after `Last-Event-ID`) while it runs and replays it after. A refused request does not keep the key. Kept 24 hours per organization.",
      schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" },
    },
  ];
  for (const [status, response] of Object.entries(operation.responses)) {
    if (status.startsWith("2") && !("$ref" in response))
      (response as Response).headers = {
        ...(response as Response).headers,
        "Idempotent-Replayed": HEADER_REFS.idempotentReplayed,
      };
  }
}

/** A knowledge source's file as multipart/form-data beside the JSON body. */
function addSourceFileForm(operation: Operation): void {
  operation.requestBody = operation.requestBody ?? { content: {} };
  operation.requestBody.required = true;
  operation.requestBody.content = {
    ...operation.requestBody.content,
    "multipart/form-data": {
      schema: {
        type: "object",
        required: ["file"],
        additionalProperties: false,
        properties: {
          file: {
            type: "string",
            format: "binary",
            contentMediaType: "application/octet-stream",
            description:
              "A PDF, DOCX, PPTX, XLSX, HTML, CSV, TXT or MD file (another type is 400 `invalid_request`; DOCX, PPTX and XLSX are known by their content). Tables become markdown tables, a spreadsheet's sheets and a presentation's slides sections. The whole request may be up to 4.5 MB (413 `invalid_request` above); for larger documents give a `url`.",
          },
          name: {
            type: "string",
            minLength: 1,
            maxLength: MAX_TITLE_CHARS,
            description: "Defaults to the file name",
          },
        },
      },
      encoding: {
        file: { contentType: "application/pdf, text/csv, text/plain, text/markdown, application/octet-stream" },
      },
    } as never,
  };
  operation.responses["413"] = errorResponse(
    413,
    ["invalid_request"],
    "`invalid_request`: the upload is over the 4.5 MB request limit, or a JSON body over 8 MiB",
  );
}

/** A download's body: an attached file's bytes, or the audit log's events streamed. */
function addDownload(success: Response, download: NonNullable<Meta["download"]>): void {
  if (download === "file") {
    success.description = "The file's bytes, as a download";
    success.content = {
      "application/octet-stream": {
        schema: { type: "string", format: "binary", description: "Sent under the file's stored `contentType`" },
      },
    };
    success.headers = {
      ...success.headers,
      "Content-Disposition": {
        description: "`attachment`, with the file's name (`filename`, and `filename*` in UTF-8)",
        schema: { type: "string" },
      },
      "X-Content-Type-Options": { description: "`nosniff`", schema: { type: "string" } },
    };
  } else if (download === true) {
    success.description = "The events, streamed";
    success.content = {
      "application/x-ndjson": {
        schema: { type: "string", description: "`format=jsonl`: one AuditEvent (JSON) a line" },
      },
      "text/csv": { schema: { type: "string", description: "`format=csv`: a header row, then one event a line" } },
    };
  }
}

/** What the generator cannot know: the stream, the multipart form, the Idempotency-Key header, a second success status. */
function addDoors(operation: Operation, meta: Meta): void {
  // A list in the query is written comma-separated, `fields=id,name` (its schema splits it).
  for (const parameter of operation.parameters ?? [])
    if (parameter.in === "query" && parameter.schema?.type === "array") Object.assign(parameter, FORM_LIST);
  const success = operation.responses[String(meta.successStatus ?? 200)] as Response | undefined;
  addStreams(operation, meta, success);
  if (meta.csv && success?.content) {
    success.content["text/csv"] = { schema: { type: "string", description: meta.csv } };
  }
  // The REST door honours Idempotency-Key on every POST (adapters/rest.ts).
  if (meta.openapi?.method === "POST") addIdempotencyKey(operation);
  const jsonBody = operation.requestBody?.content?.["application/json"];
  if (jsonBody) {
    // A body whose every field is optional may be left out (an empty body reads as `{}`).
    if (!jsonBody.schema?.required?.length && !jsonBody.schema?.$ref) operation.requestBody!.required = false;
    operation.responses["413"] = errorResponse(
      413,
      ["invalid_request"],
      "`invalid_request`: the JSON body is over the 8 MiB request limit (refused while it is read)",
    );
  }
  if (meta.multipart === "files" || meta.multipart === "conversation") {
    addAttachmentForm(operation, meta.multipart);
  } else if (meta.multipart) {
    addSourceFileForm(operation);
  }
  if (meta.download && success) addDownload(success, meta.download);
  if (meta.alsoSucceeds && success) {
    const { status, description, schema } = meta.alsoSucceeds;
    operation.responses[String(status)] = schema
      ? {
          ...success,
          description,
          content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } },
        }
      : { ...success, description };
  }
}

function completeOperation(operation: Operation, meta: Meta): void {
  const success = operation.responses["200"] as Response | undefined;
  for (const status of Object.keys(operation.responses)) delete operation.responses[status];
  const successStatus = meta.successStatus ?? 200;
  if (success) {
    operation.responses[String(successStatus)] = {
      ...success,
      ...(successStatus === 204 ? { content: undefined, description: "Done; no body" } : {}),
      headers: {
        "X-Request-Id": HEADER_REFS.requestId,
        ...HEADER_REFS.rateLimit,
        ...(meta.etag ? { ETag: HEADER_REFS.etag } : {}),
      },
    };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesFor(meta)) {
    for (const status of statusesOf(code)) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b))
    operation.responses[String(status)] = errorResponse(status, codes);
}

const ERROR_TABLE = (Object.keys(ERROR_STATUS) as ErrorCode[])
  .map(
    (code) =>
      `| \`${code}\` | ${ERROR_STATUS[code]}${EXTRA_STATUSES[code] ? ` or ${EXTRA_STATUSES[code]!.join(", ")}` : ""} | ${ERROR_MEANINGS[code]} |`,
  )
  .join("\n");

const DESCRIPTION = `Atrium's developer API. Authenticate every call with \`Authorization: Bearer <API_KEY>\`.

Errors always use the envelope \`{"error":{"code","message", ...}}\`; branch on \`code\`, which is stable.

| Code | Status | Meaning |
|---|---|---|
${ERROR_TABLE}

Limits: 120 requests per minute per key in a sliding 60-second window, shared by every server process; every authenticated response carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`, and a 429 carries \`Retry-After\`.

Lists take \`limit\` (1..200, default 50) and \`cursor\`, and answer \`nextCursor\` (null on the last page).`;

const TAGS = [
  { name: "Meta", description: "This document" },
  { name: "Models", description: "The models agents and flow nodes may name" },
  { name: "End users", description: "People who use published apps through portals: accounts, plans, grants" },
  { name: "Tier plans", description: "Plans end users subscribe to" },
  { name: "User groups", description: "Groups of end users, their members and grants" },
  { name: "Portals", description: "Portals end users sign in to, and the groups admitted to them" },
  { name: "Agents", description: "Agents: drafts, versions, deploys and test runs" },
  { name: "Flows", description: "Flows (graphs of nodes): drafts, versions, deploys and test runs" },
  {
    name: "Apps",
    description: "Apps over agents and flows: drafts, versions, conversations (JSON or a stream) and transactions",
  },
  { name: "Executions", description: "The record of every run, with its trace and credits" },
  {
    name: "Knowledgebases",
    description: "Knowledgebases, their sources (uploads, text, URLs), pages, search and export",
  },
  { name: "Audit log", description: "Every change and sign-in, who made it, through which door" },
  {
    name: "Webhooks",
    description:
      'Endpoints that receive events, their deliveries and replays. Each event is POSTed per Standard Webhooks 1.0: headers `webhook-id` (the same on every retry and replay), `webhook-timestamp` (Unix seconds), `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per active secret). Answer 2xx within 15 s; 410 turns the endpoint off. The event types are in this document\'s `webhooks`.',
  },
];

/** What each webhook's `data` is; EndUser where it is exactly that schema. */
const WEBHOOK_DATA: Record<
  (typeof WEBHOOK_EVENT_TYPES)[number],
  { $ref: string } | { type: "object"; description: string }
> = {
  "end_user.created": { $ref: "#/components/schemas/EndUser" },
  "end_user.updated": { $ref: "#/components/schemas/EndUser" },
  "end_user.suspended": { $ref: "#/components/schemas/EndUser" },
  "end_user.reactivated": { $ref: "#/components/schemas/EndUser" },
  "end_user.deleted": { type: "object", description: "`{id, email, deleted: true}`" },
  "end_user.erased": { type: "object", description: "`{id, erasedAt}`: the end user's data was erased" },
  "subscription.created": {
    type: "object",
    description: "The subscription (as in an end user's `subscriptions`) with its `endUserId`",
  },
  "subscription.canceled": { type: "object", description: '`{id, endUserId, tierPlanId, status: "canceled"}`' },
  "credits.low": { type: "object", description: "The pool or balance under 10%" },
  "credits.exhausted": { type: "object", description: "The pool or balance at 0" },
  "review.requested": { type: "object", description: '`{id, kind, status: "pending", reviewPath}`' },
  "review.decided": { type: "object", description: '`{id, kind, status: "approved"|"rejected", reviewPath}`' },
  "source.ready": {
    type: "object",
    description: "The source as `GET /knowledgebases/{id}/sources/{sourceId}` shows it",
  },
  "source.failed": {
    type: "object",
    description: "The source as `GET /knowledgebases/{id}/sources/{sourceId}` shows it, with `errorMessage`",
  },
  "page.changed": {
    type: "object",
    description: "`{id, knowledgebaseId, title, markdown, deleted}` (`markdown` null when deleted)",
  },
  "app.published": { type: "object", description: "`{summary, version}` as `POST /apps/{id}/publish` answers" },
  "execution.failed": { type: "object", description: "The execution" },
  "execution.awaiting_approval": {
    type: "object",
    description:
      "`{execution, approval}`: the run paused at a flow's approval node (`approval`: `{nodeId, message, expiresAt}`)",
  },
  "execution.completed": {
    type: "object",
    description: "The execution of a run that waited for an approval, as it ended (succeeded or failed)",
  },
  "directory.sync_failed": { type: "object", description: "What the directory sent and why it failed" },
};

/** OpenAPI 3.1's `webhooks`: every event type an endpoint may receive, so generated clients type them. */
function webhooksSection(): Record<string, unknown> {
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          summary: type,
          tags: ["Webhooks"],
          security: [],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["type", "timestamp", "data"],
                  properties: {
                    type: { type: "string", const: type },
                    timestamp: { type: "string", format: "date-time" },
                    data: WEBHOOK_DATA[type],
                  },
                },
              },
            },
          },
          responses: {
            "200": { description: "Any 2xx: received" },
            "410": { description: "Gone: Atrium turns the endpoint off" },
          },
        },
      },
    ]),
  );
}

/**
 * JSON bodies that are a choice of shapes: trpc-to-openapi shows a procedure's input object (less
 * its path parameters), so the body is shown from the zod shape the input is checked against.
 */
const JSON_BODY_SHAPES: Record<string, ZodType> = {
  "post /knowledgebases/{knowledgebaseId}/sources": SourceContent,
};

function showJsonBodyShapes(document: OpenAPIObject): void {
  for (const [operationKey, shape] of Object.entries(JSON_BODY_SHAPES)) {
    const [method, path] = operationKey.split(" ") as [string, string];
    const operation = document.paths?.[path]?.[method as "post"] as Operation | undefined;
    const json = operation?.requestBody?.content?.["application/json"];
    if (!json) throw new Error(`No JSON body at ${operationKey}`);
    const { schema, components } = createSchema(shape, { io: "input" });
    json.schema = schema as typeof json.schema;
    Object.assign(document.components!.schemas!, components);
  }
}

let cached: OpenAPIObject | undefined;

export function openApiDocument(): OpenAPIObject {
  if (cached) return cached;
  const document = generateOpenApiDocument(appRouter, {
    title: "Atrium API",
    version: "1.0.0",
    description: DESCRIPTION,
    baseUrl: "/api/v1",
    securitySchemes: {
      bearerAuth: {
        type: "http",
        scheme: "bearer",
        description: "An organization key (sk_org_…) or a personal key (sk_mem_…)",
      },
    },
  });
  document.components = document.components ?? {};
  for (const name of Object.keys(document.components.schemas ?? {})) {
    // trpc-to-openapi's own tRPC error shapes; Atrium answers the envelope below instead.
    if (name.startsWith("error.")) delete document.components.schemas![name];
  }
  document.components.schemas = {
    ...document.components.schemas,
    ...STREAM_SCHEMAS,
    ...STREAM_MESSAGE_SCHEMAS,
    ConversationStreamEvent: CONVERSATION_STREAM_EVENT,
    ErrorBody: {
      type: "object",
      required: ["code", "message"],
      description: "The `error` object of any error response",
      properties: {
        code: { type: "string", enum: Object.keys(ERROR_STATUS) },
        message: { type: "string" },
      },
      additionalProperties: true,
    },
    ...(errorSchemas() as Record<string, never>),
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
              items: {
                type: "object",
                required: ["path", "message"],
                properties: { path: { type: "string" }, message: { type: "string" } },
              },
            },
          },
          additionalProperties: true,
        },
      },
    },
  };

  showJsonBodyShapes(document);
  forEachOpenApiProcedure(appRouter._def.procedures, ({ meta }) => {
    const openapi = meta.openapi!;
    const operation = document.paths?.[openapi.path]?.[openapi.method.toLowerCase() as "get"] as Operation | undefined;
    if (operation) {
      completeOperation(operation, meta as Meta);
      addDoors(operation, meta as Meta);
    }
  });
  document.components.headers = HEADERS;
  document.tags = TAGS;
  document.components.responses = Object.fromEntries(
    [...sharedResponses.values()].map(({ name, response }) => [name, response]),
  ) as never;

  document.paths = {
    "/openapi.json": {
      get: {
        operationId: "getOpenApiDocument",
        summary: "This document",
        tags: ["Meta"],
        security: [],
        responses: {
          "200": {
            description: "The OpenAPI 3.1 document",
            content: { "application/json": { schema: { type: "object" } } },
          },
        },
      },
    },
    ...document.paths,
  };
  document.webhooks = webhooksSection() as never;
  cached = document;
  return document;
}
