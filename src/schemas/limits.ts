// Every bound on input in one place. The zod text helpers of
// common.ts and the body reader of the doors read these; the "Bounds on input" table in docs/security.md
// documents them. Lengths are in characters (UTF-16 code units, as zod and JavaScript count).

/** A JSON request body, in bytes: 1 MB of inline source content fits however it is escaped. */
export const MAX_JSON_BODY_BYTES = 8 * 1024 * 1024;
/** Levels of JSON nesting in a body (64 allowed). */
export const MAX_JSON_DEPTH = 64;

/** Names of things: knowledgebases, agents, flows, apps, groups, plans, portals, versions. */
export const MAX_NAME_CHARS = 200;
/** Page and source titles. */
export const MAX_TITLE_CHARS = 300;
/** Descriptions of knowledgebases, groups, agents, flows and apps. */
export const MAX_DESCRIPTION_CHARS = 5_000;
/** A page's markdown, after every write (a create, a patch's result, a console edit). */
export const MAX_PAGE_MARKDOWN_CHARS = 1024 * 1024;
/** A conversation message, on every door (REST, console chat, MCP). */
export const MAX_MESSAGE_CHARS = 32_000;
/** Long instructions: an agent's system instruction, an app's adviser instructions. */
export const MAX_INSTRUCTIONS_CHARS = 50_000;
/** Short labels and identifiers inside documents (keys, slugs, model ids, node ids). */
export const MAX_LABEL_CHARS = 500;
/** An email address. */
export const MAX_EMAIL_CHARS = 320;
/** A password (the sign-in form's and a new one). */
export const MAX_PASSWORD_CHARS = 200;
/** A second-factor code as typed: six digits, or a recovery code with its dashes and spaces. */
export const MAX_MFA_CODE_CHARS = 40;
/** Short names: an API key's, an HTTP header's, a sign-in button's. */
export const MAX_SHORT_NAME_CHARS = 100;
/** A provider's or an MCP connection's slug (the first part of `<provider slug>/<model id>`). */
export const MAX_SLUG_CHARS = 40;
/** A portal's slug (its address is `/p/<slug>`). */
export const MAX_PORTAL_SLUG_CHARS = 48;
/** A URL Atrium calls or shows: a provider, an MCP server, an SSO issuer, a portal's logo. */
export const MAX_URL_CHARS = 2_000;
/** A credential written and never read back: a provider's API key, an MCP header's value. */
export const MAX_CREDENTIAL_CHARS = 4_000;
/** An OpenID Connect client secret. */
export const MAX_CLIENT_SECRET_CHARS = 2_000;
/** A domain name, and the member email domains of an SSO connection. */
export const MAX_DOMAIN_CHARS = 253;
export const MAX_SSO_DOMAINS = 50;
/** A knowledgebase search's words. */
export const MAX_SEARCH_QUERY_CHARS = 500;
/** Why a conversation's answer was wrong (feedback). */
export const MAX_FEEDBACK_REASON_CHARS = 1_000;
/** A reviewer's reason for rejecting an agent write. */
export const MAX_REVIEW_REASON_CHARS = 2_000;
/** An approver's comment on a paused run (its output when approved). */
export const MAX_APPROVAL_COMMENT_CHARS = 2_000;
/** Reviews approved in one bulk approval. */
export const MAX_BULK_REVIEWS = 100;
/**
 * An app's input or output JSON Schema, as JSON text. Compiling one for validation takes time
 * superlinear in its size (about 0.4 s at 50 KB, seconds at 500 KB), so it is bounded well below the body cap.
 */
export const MAX_APP_SCHEMA_CHARS = 65_536;
/** A version's notes, given when it is published. */
export const MAX_VERSION_NOTES_CHARS = 5_000;
/** A greeting shown to the people a portal or an app serves. */
export const MAX_GREETING_CHARS = 2_000;
/** Each coordinate of a flow node's `data.position` (where the console's canvas draws it). */
export const MAX_NODE_POSITION = 100_000;
/** A flow node's `data.title`: the name the console shows for it (one line). */
export const MAX_NODE_TITLE_CHARS = 200;

// Integers a client sends: each has a maximum well inside PostgreSQL's `integer` (2,147,483,647),
// shown as `maximum` in the OpenAPI document.
/** Credits: an organization's balance (set by the operator), a plan's allowance. */
export const MAX_CREDITS = 1_000_000_000;
/** An organization's caps on knowledgebases and on sources per knowledgebase. */
export const MAX_PLAN_CAP = 1_000_000;
/** The longest conversation retention an organization may set: ten years. */
export const MAX_RETENTION_DAYS = 3650;
/** An app member's `position` (its order among the members). */
export const MAX_MEMBER_POSITION = 10_000;
/** `limit` of a list page. */
export const MAX_PAGE_SIZE = 200;
/** `limit` of a knowledgebase search. */
export const MAX_SEARCH_RESULTS = 50;

// Times a client sends: what both PostgreSQL's timestamptz and JavaScript's Date hold, and sane.
/** The earliest time accepted in an input (ISO 8601). */
export const MIN_INPUT_TIME = "1970-01-01T00:00:00Z";
/** The latest time accepted in an input (ISO 8601). */
export const MAX_INPUT_TIME = "9999-12-31T23:59:59.999Z";
/** Calls in one tRPC batch (console and portal); the browser's batch link splits at the same size. */
export const MAX_TRPC_BATCH_CALLS = 20;

// Flow nodes that decide, call and compute (src/schemas/builder/builder.ts, NODE_DATA).
/** A JSON Logic expression (condition, set_variable, loop items), as JSON text. */
export const MAX_EXPRESSION_CHARS = 4_000;
/** Branches of one condition node. */
export const MAX_CONDITION_BRANCHES = 20;
/** Nodes a loop's body runs for each item. */
export const MAX_LOOP_BODY_NODES = 20;
/** Items one loop runs over; a longer list fails the run at that node. */
export const MAX_LOOP_ITEMS = 100;
/** Items a loop runs at once. */
export const MAX_LOOP_CONCURRENCY = 5;
/** A code node's JavaScript. */
export const MAX_CODE_CHARS = 20_000;
/** An http_request node's body template. */
export const MAX_HTTP_BODY_TEMPLATE_CHARS = 65_536;
/** Plain headers of one http_request node. */
export const MAX_HTTP_HEADERS = 20;
/** An approval node's message to its approvers (a template). */
export const MAX_APPROVAL_MESSAGE_CHARS = 4_000;
/** How long an approval waits for a decision, in minutes: at least 1, at most 7 days, 24 hours by default. */
export const APPROVAL_TIMEOUT_MINUTES = { min: 1, max: 7 * 24 * 60, default: 24 * 60 } as const;

/** An end-user CSV import (POST /end-user-imports): its rows (the header aside) and its text. */
export const MAX_IMPORT_ROWS = 1_000;
export const MAX_IMPORT_CSV_CHARS = 512 * 1024;
/** End users one bulk action (POST /end-user-bulk-actions) applies to: a list page's worth. */
export const MAX_BULK_END_USERS = 200;
