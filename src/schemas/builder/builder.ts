// Agents, flows and apps: the draft documents (what PATCH .../draft writes), the views the API
// answers, versions, publish results and list rows. Imports nothing from the server, so the
// console editors use the same shapes.
import { z } from "zod";
import {
  boundedInt,
  descriptionText,
  ListQuery,
  NameQuery,
  nameText,
  NextCursor,
  plainText,
  Timestamp,
  TimestampInput,
  Uuid,
} from "../common";
import {
  APPROVAL_TIMEOUT_MINUTES,
  MAX_APPROVAL_MESSAGE_CHARS,
  MAX_CODE_CHARS,
  MAX_CONDITION_BRANCHES,
  MAX_EXPRESSION_CHARS,
  MAX_GREETING_CHARS,
  MAX_HTTP_BODY_TEMPLATE_CHARS,
  MAX_HTTP_HEADERS,
  MAX_INSTRUCTIONS_CHARS,
  MAX_LABEL_CHARS,
  MAX_LOOP_BODY_NODES,
  MAX_LOOP_CONCURRENCY,
  MAX_LOOP_ITEMS,
  MAX_MEMBER_POSITION,
  MAX_NODE_POSITION,
  MAX_NODE_TITLE_CHARS,
  MAX_SHORT_NAME_CHARS,
  MAX_SLUG_CHARS,
  MAX_URL_CHARS,
  MAX_VERSION_NOTES_CHARS,
} from "../limits";

export const BUILDER_KINDS = ["agent", "flow", "app"] as const;
export type BuilderKind = (typeof BUILDER_KINDS)[number];

const Text = plainText;
const Name = nameText;
const Slug = z
  .string()
  .max(200)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "lowercase letters, digits and single dashes");
const Strings = (max = 100, length = 2000) => z.array(Text(length)).max(max);
const FreeObject = z.record(z.string(), z.unknown());

export const LastChange = z
  .object({
    at: Timestamp,
    by: z.string().meta({ description: "Member email, or the key's name for an organization key" }),
    source: z.string().meta({
      description:
        "Where the change came from: `api` (an API key), `mcp` (an AI client), `ui` (the console) or `cli` (the admin CLI)",
    }),
    action: z.string().meta({ description: "`created`, `draft_updated`, `published` or `deployed`" }),
    summary: z.string(),
  })
  .meta({ id: "LastChange" });
export type LastChange = z.infer<typeof LastChange>;

export const Question = z.strictObject({ id: Text(100).min(1), label: Text(MAX_LABEL_CHARS) });

// ---------------------------------------------------------------------------------------------
// Agents

const IdentityFields = {
  role: Text(500),
  summary: Text(4000),
  goals: Strings(),
  outOfScope: Strings(),
  personaTraits: Strings(),
  guardrails: Strings(),
};
export const AgentIdentity = z.strictObject({
  role: IdentityFields.role.default(""),
  summary: IdentityFields.summary.default(""),
  goals: IdentityFields.goals.default([]),
  outOfScope: IdentityFields.outOfScope.default([]),
  personaTraits: IdentityFields.personaTraits.default([]),
  guardrails: IdentityFields.guardrails.default([]),
});
export const BUILT_INS = ["webSearch", "webScrape", "deepResearch", "artifacts", "voice"] as const;
export const AgentBuiltIns = z.strictObject(
  Object.fromEntries(BUILT_INS.map((name) => [name, z.boolean().default(false)])) as Record<
    (typeof BUILT_INS)[number],
    z.ZodDefault<z.ZodBoolean>
  >,
);
/** PATCH shapes of the nested objects: no defaults, so only what is passed merges in. */
const IdentityPatch = z.strictObject(
  Object.fromEntries(Object.entries(IdentityFields).map(([k, v]) => [k, v.optional()])) as {
    [K in keyof typeof IdentityFields]: z.ZodOptional<(typeof IdentityFields)[K]>;
  },
);
const BuiltInsPatch = z.strictObject(
  Object.fromEntries(BUILT_INS.map((name) => [name, z.boolean().optional()])) as Record<
    (typeof BUILT_INS)[number],
    z.ZodOptional<z.ZodBoolean>
  >,
);
export const Integration = z.strictObject({
  toolkit: Text(100).min(1),
  name: Text(200).min(1),
  selectedTools: Strings(),
});

/** Models that answer, in order, when the agent's model fails before any output (runtime/fallbacks.ts). */
export const MAX_FALLBACK_MODELS = 3;
const FallbackModels = z.array(Text(200).min(1)).max(MAX_FALLBACK_MODELS);

/** The stored agent draft (and each version's snapshot). */
export const AgentDocument = z.strictObject({
  name: Name,
  slug: Slug.default(""),
  description: descriptionText.default(""),
  identity: AgentIdentity.prefault({}),
  systemInstruction: Text(MAX_INSTRUCTIONS_CHARS).default(""),
  model: Text(200).min(1).default("atrium-offline"),
  fallbackModels: FallbackModels.default([]),
  builtIns: AgentBuiltIns.prefault({}),
  knowledge: z
    .array(z.strictObject({ knowledgebaseId: Uuid }))
    .max(50)
    .default([]),
  flows: z.array(Uuid).max(50).default([]),
  integrations: z.array(Integration).max(50).default([]),
  outputTemplateIds: z.array(Uuid).max(50).default([]),
  conversationStarters: Strings(20, 500).default([]),
  questions: z.array(Question).max(50).default([]),
});
export type AgentDocument = z.infer<typeof AgentDocument>;

/** PATCH body: only the fields passed change; arrays replace; `identity` and `builtIns` merge. */
export const AgentPatch = z.strictObject({
  name: Name.optional(),
  slug: Slug.optional(),
  description: descriptionText.optional(),
  identity: IdentityPatch.optional(),
  systemInstruction: Text(MAX_INSTRUCTIONS_CHARS).optional(),
  model: Text(200).min(1).optional().meta({ description: "A model id from `GET /models`; else `invalid_model`" }),
  fallbackModels: FallbackModels.optional().meta({
    description:
      "At most 3 model ids from `GET /models` (else `invalid_model`), tried in order when a call fails before any output (429, 5xx, timeout, refused connection) after one retry",
  }),
  builtIns: BuiltInsPatch.optional(),
  knowledge: z
    .array(z.strictObject({ knowledgebaseId: Uuid }))
    .max(50)
    .optional()
    .meta({ description: "Knowledgebases of the organization; `title` is read back" }),
  flows: z.array(Uuid).max(50).optional().meta({ description: "Flow ids of the organization" }),
  integrations: z.array(Integration).max(50).optional(),
  outputTemplateIds: z.array(Uuid).max(50).optional(),
  conversationStarters: Strings(20, 500).optional(),
  questions: z.array(Question).max(50).optional(),
});

// ---------------------------------------------------------------------------------------------
// Flows

export const NODE_TYPES = [
  "trigger_start",
  "llm",
  "knowledge_search",
  "template",
  "output",
  "condition",
  "set_variable",
  "loop",
  "http_request",
  "code",
  "approval",
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

/** The node types a loop's body may hold: they compute an output, and neither branch nor end the run. */
export const LOOP_BODY_TYPES = ["llm", "knowledge_search", "template", "http_request", "code"] as const;

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Wall time of one http_request node's call, and the most of its answer read, in bytes. */
export const HTTP_NODE_LIMITS = { timeMs: 30_000, answerBytes: 1024 * 1024 };

/** Where a condition's branch, or its `else`, goes: a node id or several. */
const NodeTarget = z.union([Text(100).min(1), z.array(Text(100).min(1)).max(20)]);
/** A JSON Logic expression (any JSON value); its size and shape are checked by expressionProblem. */
const Expression = z.unknown().refine((value) => value !== undefined, "Required: a JSON Logic expression");
const VariableName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "letters, digits and underscores, not starting with a digit");
const HeaderName = z
  .string()
  .min(1)
  .max(MAX_SHORT_NAME_CHARS)
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "an HTTP header name");
const HeaderValue = Text(MAX_URL_CHARS).regex(/^[^\r\n]*$/, "one line");

/**
 * The `data` of each node type that has one to check (beyond `next`, `position` and `title`,
 * which every node may hold). A draft may lack required fields while it is built (the graph
 * rules then read these partially); publishing and running need them.
 */
export const NODE_DATA = {
  condition: z.object({
    branches: z
      .array(
        z.strictObject({
          name: Text(100).min(1).meta({ description: "What the branch is called; the node's output when it is taken" }),
          when: Expression.meta({ description: "JSON Logic over `{inputs, vars, nodes, loop}`" }),
          next: NodeTarget,
        }),
      )
      .min(1)
      .max(MAX_CONDITION_BRANCHES),
    else: NodeTarget.optional(),
  }),
  set_variable: z.object({
    name: VariableName,
    value: Text(MAX_EXPRESSION_CHARS).optional(),
    expression: Expression.optional(),
  }),
  loop: z.object({
    items: Expression,
    body: z
      .array(z.strictObject({ id: Text(100).min(1), type: z.enum(LOOP_BODY_TYPES), data: FreeObject.default({}) }))
      .min(1)
      .max(MAX_LOOP_BODY_NODES),
    concurrency: boundedInt(1, MAX_LOOP_CONCURRENCY).default(1),
  }),
  http_request: z.object({
    method: z.enum(HTTP_METHODS).default("GET"),
    url: Text(MAX_URL_CHARS).min(1),
    body: Text(MAX_HTTP_BODY_TEMPLATE_CHARS).optional(),
    headers: z
      .record(HeaderName, HeaderValue)
      .refine((headers) => Object.keys(headers).length <= MAX_HTTP_HEADERS, `At most ${MAX_HTTP_HEADERS} headers`)
      .refine(
        (headers) =>
          !Object.keys(headers).some((name) =>
            ["host", "content-length", "transfer-encoding", "connection"].includes(name.toLowerCase()),
          ),
        "host, content-length, transfer-encoding and connection are set by Atrium",
      )
      .optional(),
    credentials: Text(MAX_SLUG_CHARS).min(1).optional(),
  }),
  code: z.object({ code: Text(MAX_CODE_CHARS).min(1) }),
  approval: z.object({
    message: Text(MAX_APPROVAL_MESSAGE_CHARS).min(1),
    timeoutMinutes: boundedInt(APPROVAL_TIMEOUT_MINUTES.min, APPROVAL_TIMEOUT_MINUTES.max).default(
      APPROVAL_TIMEOUT_MINUTES.default,
    ),
  }),
} satisfies Partial<Record<NodeType, z.ZodObject>>;

export const NODE_TYPES_DESCRIPTION = `Node types (\`nodes[].type\`) and the \`data\` each needs:
- \`trigger_start\`: the flow's start; it hands on the flow's \`inputs\`. Exactly one per flow. No required data.
- \`llm\`: \`data.prompt\` (template, required); \`data.model\` (optional, a model id from \`GET /models\`).
- \`knowledge_search\`: \`data.knowledgebaseId\` (uuid of a knowledgebase of the organization, required) and \`data.query\` (template, required); its output is the matching passages.
- \`template\`: \`data.template\` (text template, required).
- \`output\`: \`data.value\` (template, required): the flow's final value.
- \`condition\`: \`data.branches\` (1 to ${MAX_CONDITION_BRANCHES} of \`{name, when, next}\`, required): the first branch whose \`when\` (a JSON Logic expression, at most ${MAX_EXPRESSION_CHARS} characters as JSON) is true runs its \`next\` (a node id or ids); none true runs \`data.else\` (optional; without it the run ends). Its output is the branch's name (\`else\` when none). A condition has no \`data.next\`.
- \`set_variable\`: \`data.name\` (letters, digits, underscores; required) and either \`data.value\` (template) or \`data.expression\` (JSON Logic): sets \`vars.<name>\` for the nodes after it.
- \`loop\`: \`data.items\` (JSON Logic giving a list, or text holding a JSON array; at most ${MAX_LOOP_ITEMS} items, more fails the run at this node) and \`data.body\` (1 to ${MAX_LOOP_BODY_NODES} nodes of types ${LOOP_BODY_TYPES.join(", ")}, run in order for each item; they read \`{{loop.item}}\` and \`{{loop.index}}\`); \`data.concurrency\` (1 to ${MAX_LOOP_CONCURRENCY} items at once, default 1). Its output is a JSON array: the last body node's output for each item.
- \`http_request\`: \`data.url\` (template, required), \`data.method\` (${HTTP_METHODS.join(", ")}; default GET), \`data.body\` (template; not sent with GET), \`data.headers\` (at most ${MAX_HTTP_HEADERS} plain header templates) and \`data.credentials\` (the slug of an MCP connection of the organization whose stored headers are sent, only to that connection's origin). Public addresses only (as URL sources); ${HTTP_NODE_LIMITS.timeMs / 1000} s and ${HTTP_NODE_LIMITS.answerBytes / (1024 * 1024)} MB bounds; a status other than 2xx fails the run. Its output is the answer's body.
- \`code\`: \`data.code\` (JavaScript, the body of a function of \`input\` = \`{inputs, vars, nodes}\`; at most ${MAX_CODE_CHARS} characters): runs in a sandbox with no network and no files, within 64 MB and 5 s. Its output is what it returns (text as is, anything else as JSON).
- \`approval\`: \`data.message\` (template, required, at most ${MAX_APPROVAL_MESSAGE_CHARS} characters): what approvers read; \`data.timeoutMinutes\` (${APPROVAL_TIMEOUT_MINUTES.min} to ${APPROVAL_TIMEOUT_MINUTES.max}, default ${APPROVAL_TIMEOUT_MINUTES.default}). The run pauses here (status \`awaiting_approval\`) until a member approves (it continues) or rejects it or the time runs out (it fails). Its output is the decision's comment.

Templates read \`{{inputs.<key>}}\`, \`{{vars.<name>}}\` and \`{{nodes.<id>.output}}\` of a node that runs before this one. JSON Logic reads the same as \`{"var": "inputs.<key>"}\`, \`{"var": "vars.<name>"}\`, \`{"var": "nodes.<id>.output"}\` (and \`nodes.<id>.json\`, the output parsed when it is JSON). Nodes run in array order unless \`data.next\` (a node id, or an array of node ids) says which node runs next; \`data.next\` never forms a cycle. Node ids are unique. Any node may hold \`data.position\` \`{x, y}\` (two numbers from -${MAX_NODE_POSITION} to ${MAX_NODE_POSITION}): where the console's canvas draws it; runs ignore it. Any node may hold \`data.title\` (one line, at most ${MAX_NODE_TITLE_CHARS} characters): the name the console shows for it; runs ignore it. A run is bounded in steps, each node's output, and time (\`run_limit_exceeded\`).`;

export const FlowInput = z.strictObject({
  key: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "letters, digits and underscores, not starting with a digit"),
  label: Text(500).default(""),
  description: descriptionText.default(""),
  type: Text(50)
    .default("text")
    .meta({ description: "`text`, `number`, `integer`, `boolean`, `select` (one of `options`) or `multiselect`" }),
  required: z.boolean().default(false),
  options: Strings().default([]),
});
export type FlowInput = z.infer<typeof FlowInput>;

export const FlowNode = z
  .strictObject({
    id: Text(100).min(1),
    type: Text(100).min(1),
    data: FreeObject.default({}),
    blocks: z.array(FreeObject).max(100).default([]),
  })
  .meta({ id: "FlowNode", description: NODE_TYPES_DESCRIPTION });
export type FlowNode = z.infer<typeof FlowNode>;

/**
 * The kinds of flow the console offers (the reference knows `form`: a flow run from a form of its
 * declared inputs). The API keeps `kind` a string, as the reference does, so a value written
 * through it before stays readable; the console's select shows such a value as it is.
 */
export const FLOW_KINDS = ["form"] as const;

export const FlowDocument = z.strictObject({
  name: Name,
  slug: Slug.default(""),
  description: descriptionText.default(""),
  kind: Text(50).default(FLOW_KINDS[0]),
  questions: z.array(Question).max(50).default([]),
  inputs: z.array(FlowInput).max(100).default([]),
  nodes: z.array(FlowNode).max(500).default([]),
});
export type FlowDocument = z.infer<typeof FlowDocument>;

export const FlowPatch = z.strictObject({
  name: Name.optional(),
  slug: Slug.optional(),
  description: descriptionText.optional(),
  kind: Text(50).optional(),
  questions: z.array(Question).max(50).optional(),
  inputs: z.array(FlowInput).max(100).optional(),
  nodes: z
    .array(FlowNode)
    .max(500)
    .optional()
    .meta({ description: "The flow's nodes; the node types and their `data` are described on `FlowNode`" }),
});

// ---------------------------------------------------------------------------------------------
// Apps

export const ORCHESTRATION_MODES = ["supervisor", "sequential", "broadcast"] as const;
export const OrchestrationMode = z.enum(ORCHESTRATION_MODES).meta({
  description:
    "`supervisor`: the adviser picks the members to consult; `sequential`: every member in order of `position`, each seeing the previous replies; `broadcast`: all members at once, the adviser synthesizes.",
});

const ApiFields = {
  conversationEnabled: z.boolean(),
  transactionEnabled: z.boolean(),
  greeting: Text(MAX_GREETING_CHARS),
  inputSchema: FreeObject.meta({ description: "JSON Schema of a transaction's input" }),
  outputSchema: FreeObject.meta({ description: "JSON Schema of a transaction's output" }),
};
export const AppApiConfig = z.strictObject({
  conversationEnabled: ApiFields.conversationEnabled.default(true),
  transactionEnabled: ApiFields.transactionEnabled.default(false),
  greeting: ApiFields.greeting.default(""),
  inputSchema: ApiFields.inputSchema.default({ type: "object" }),
  outputSchema: ApiFields.outputSchema.default({ type: "object" }),
});
const ApiPatch = z.strictObject({
  conversationEnabled: ApiFields.conversationEnabled.optional(),
  transactionEnabled: ApiFields.transactionEnabled.optional(),
  greeting: ApiFields.greeting.optional(),
  inputSchema: ApiFields.inputSchema.optional(),
  outputSchema: ApiFields.outputSchema.optional(),
});

const MemberKind = z.enum(["agent", "flow"]);
export const AppMemberWrite = z.strictObject({
  id: Uuid,
  kind: MemberKind,
  position: boundedInt(0, MAX_MEMBER_POSITION).optional().meta({ description: "Order; defaults to the array order" }),
});

export const AppDocument = z.strictObject({
  name: Name,
  slug: Slug.default(""),
  description: descriptionText.default(""),
  adviser: z.strictObject({ id: Uuid }).nullable().default(null),
  members: z
    .array(z.strictObject({ id: Uuid, kind: MemberKind, position: boundedInt(0, MAX_MEMBER_POSITION) }))
    .max(50)
    .default([]),
  orchestrationMode: OrchestrationMode.default("supervisor"),
  goals: Text(10_000).default(""),
  adviserInstructions: Text(MAX_INSTRUCTIONS_CHARS).default(""),
  api: AppApiConfig.prefault({}),
});
export type AppDocument = z.infer<typeof AppDocument>;

export const AppPatch = z.strictObject({
  name: Name.optional(),
  slug: Slug.optional(),
  description: descriptionText.optional(),
  adviser: z
    .strictObject({ id: Uuid })
    .nullable()
    .optional()
    .meta({ description: "An agent of the organization, or null (the built-in supervisor synthesizes)" }),
  members: z.array(AppMemberWrite).max(50).optional(),
  orchestrationMode: OrchestrationMode.optional(),
  goals: Text(10_000).optional(),
  adviserInstructions: Text(MAX_INSTRUCTIONS_CHARS).optional(),
  api: ApiPatch.optional().meta({ description: "Merged into the current config" }),
});

/** A create's body: the kind's patch with its name required (POST /agents, /flows, /apps). */
export function createDraftInput<Shape extends z.ZodRawShape>(patch: z.ZodObject<Shape>) {
  return patch.extend({ name: Name });
}
/** Each kind's create body, for the console's create forms (the routers build the same one). */
export const CreateDraftInputs = {
  agents: createDraftInput(AgentPatch),
  flows: createDraftInput(FlowPatch),
  apps: createDraftInput(AppPatch),
};

// ---------------------------------------------------------------------------------------------
// Views

const ItemState = {
  id: Uuid,
  published: z.boolean().meta({ description: "A version is live" }),
  productionVersionId: Uuid.nullable(),
  versionCount: z.number().int(),
  lastChange: LastChange,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  draftDiffersFromLive: z
    .boolean()
    .meta({ description: "The draft is not the live version's document (true while unpublished)" }),
};

const Names = { name: z.string(), slug: z.string() };
const AgentFields = {
  ...AgentDocument.shape,
  ...Names,
  identity: AgentIdentity,
  builtIns: AgentBuiltIns,
  knowledge: z.array(z.object({ knowledgebaseId: Uuid, title: z.string() })),
};
export const Agent = z.object({ ...AgentFields, ...ItemState }).meta({ id: "Agent" });
export type Agent = z.infer<typeof Agent>;

const FlowFields = { ...FlowDocument.shape, ...Names, nodes: z.array(FlowNode) };
export const Flow = z
  .object({ ...FlowFields, ...ItemState, inputSchema: FreeObject.meta({ description: "JSON Schema of the inputs" }) })
  .meta({ id: "Flow" });
export type Flow = z.infer<typeof Flow>;

const Ref = {
  id: Uuid,
  name: z.string(),
  published: z.boolean(),
  versionId: Uuid.nullable()
    .optional()
    .meta({ description: "Live view: the version pinned when the app was published" }),
};
const AppFields = {
  ...AppDocument.shape,
  ...Names,
  adviser: z.object(Ref).nullable(),
  members: z.array(z.object({ ...Ref, kind: MemberKind, position: z.number().int() })),
  api: AppApiConfig,
};
export const App = z.object({ ...AppFields, ...ItemState }).meta({ id: "App" });
export type App = z.infer<typeof App>;

export const Version = z
  .object({
    id: Uuid,
    number: z.number().int(),
    name: z.string(),
    createdAt: Timestamp,
    isProduction: z.boolean(),
    publishedBy: z.string(),
    source: z.string(),
    notes: z.string(),
  })
  .meta({ id: "Version" });
export type Version = z.infer<typeof Version>;

export const PublishSummary = z.object({
  id: Uuid,
  kind: z.enum(BUILDER_KINDS),
  type: z.string().meta({ description: "`agent`, `app`, or a flow's `kind`" }),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  published: z.boolean(),
  productionVersionId: Uuid.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const PublishInput = {
  deployToProduction: z
    .boolean()
    .optional()
    .meta({ description: "Unless false, the new version becomes the live one" }),
  name: Name.optional().meta({ description: "Version name; defaults to `v<number>`" }),
  notes: Text(MAX_VERSION_NOTES_CHARS).optional(),
};

export const ListItemsQuery = {
  include: z.enum(["drafts"]).optional().meta({
    description:
      "Lists unpublished items too (draft values, with `published` and `updatedAt`); needs the kind's write scope",
  }),
  limit: ListQuery.shape.limit,
  cursor: ListQuery.shape.cursor.meta({
    description: "`nextCursor` of the previous page; a stale or unknown cursor gives invalid_request",
  }),
  q: NameQuery.meta({
    description:
      "Only items whose name (the live version's, or with include=drafts the draft's) contains this text, ignoring case",
  }),
  updatedSince: TimestampInput.optional().meta({
    description:
      "Only items changed at or after this time (inclusive): when their live version changed, or with include=drafts when their draft changed",
  }),
};

/**
 * `fields` of a kind's list: comma-separated names (`fields=id,name`; repeating the parameter
 * works too), each one the listing returns. The document shows the names as an enum (an array
 * written `form`, unexploded: src/server/openapi.ts); a name only the other listing has (with or without
 * `include=drafts`) is invalid_request too, naming the valid ones.
 */
export function listFieldsQuery(kind: BuilderKind) {
  const names = [...new Set([...LIST_FIELDS[kind].published, ...LIST_FIELDS[kind].drafts])] as [string, ...string[]];
  return z
    .preprocess(
      (value) => (typeof value === "string" || Array.isArray(value) ? [value].flat().flatMap(splitNames) : value),
      z
        .array(
          z.enum(names, {
            error: (issue) => `unknown field ${String(issue.input)}; valid fields are ${names.join(", ")}`,
          }),
        )
        .min(1, "no field named"),
    )
    .meta({
      description: `The fields kept on each item (\`id\` always is); without \`include=drafts\`: ${LIST_FIELDS[kind].published.join(", ")}; with it: ${LIST_FIELDS[kind].drafts.join(", ")}`,
    })
    .optional();
}

function splitNames(value: unknown): unknown[] {
  return typeof value === "string" ? value.split(",") : [value];
}

/** Fields each listing may return (and `fields` may name), per kind and mode. */
export const LIST_FIELDS = {
  agent: {
    published: ["id", "name", "slug", "description", "model", "conversationStarters", "questions"],
    drafts: ["id", "name", "slug", "description", "published", "updatedAt"],
  },
  flow: {
    published: ["id", "name", "description", "inputs", "inputSchema"],
    drafts: ["id", "name", "description", "kind", "published", "updatedAt"],
  },
  app: {
    published: ["id", "name", "slug", "description", "orchestrationMode", "conversationEnabled", "transactionEnabled"],
    drafts: ["id", "name", "slug", "description", "published", "updatedAt"],
  },
} as const satisfies Record<BuilderKind, { published: readonly string[]; drafts: readonly string[] }>;

const ROW_NOTE = "A list row: `id` always, and the fields of the listing (all of them, or those `fields` names)";
const DraftRowFields = { published: z.boolean().optional(), updatedAt: Timestamp.optional() };

export const AgentListRow = z
  .object({
    id: Uuid,
    name: z.string().optional(),
    slug: z.string().optional(),
    description: z.string().optional(),
    model: z.string().optional(),
    conversationStarters: z.array(z.string()).optional(),
    questions: z.array(z.object({ id: z.string(), label: z.string() })).optional(),
    ...DraftRowFields,
  })
  .meta({ id: "AgentListRow", description: ROW_NOTE });

export const FlowListRow = z
  .object({
    id: Uuid,
    name: z.string().optional(),
    description: z.string().optional(),
    kind: z.string().optional(),
    inputs: z.array(FlowInput).optional(),
    inputSchema: FreeObject.optional(),
    ...DraftRowFields,
  })
  .meta({ id: "FlowListRow", description: ROW_NOTE });

export const AppListRow = z
  .object({
    id: Uuid,
    name: z.string().optional(),
    slug: z.string().optional(),
    description: z.string().optional(),
    orchestrationMode: z.string().optional(),
    conversationEnabled: z.boolean().optional(),
    transactionEnabled: z.boolean().optional(),
    ...DraftRowFields,
  })
  .meta({ id: "AppListRow", description: ROW_NOTE });

export const VersionWithDocument = Version.extend({
  document: FreeObject.meta({
    description: "The draft as published, in the draft view's shape (without id and state)",
  }),
});

export { NextCursor };

export const ListVersionsOutput = z.object({ versions: z.array(VersionWithDocument), nextCursor: NextCursor });
