// Who changed what, where and when, in the words of the person reading the console: "Instructions
// edited by ana@example.com in the console, 3 min ago" rather than "Changed systemInstruction (ui)".
// The server keeps its own terms in the API (field names, door names); only the console translates.

/** The fields of agents, flows and apps (src/schemas/builder/builder.ts) as the editors label them. */
const FIELD_WORDS: Record<string, string> = {
  name: "Name",
  slug: "Slug",
  description: "Description",
  identity: "Identity",
  systemInstruction: "Instructions",
  model: "Model",
  builtIns: "Built-in tools",
  knowledge: "Knowledge",
  flows: "Flows",
  integrations: "Integrations",
  outputTemplateIds: "Output templates",
  conversationStarters: "Conversation starters",
  questions: "Questions",
  kind: "Kind",
  inputs: "Inputs",
  nodes: "Nodes",
  adviser: "Adviser",
  members: "Members",
  orchestrationMode: "Orchestration mode",
  goals: "Goals",
  adviserInstructions: "Adviser instructions",
  api: "Endpoints and schemas",
  version: "Version",
};

/** Where a change came from (LastChange.source, a version's source, an audit event's door). */
const DOOR_WORDS: Record<string, string> = {
  ui: "in the console",
  console: "in the console",
  api: "through the API",
  mcp: "from an AI client (MCP)",
  cli: "with the admin CLI",
  portal: "in a portal",
  scim: "by directory sync",
  system: "by Atrium itself",
};

/** A door as a name, where a table says what something came through (a subscription, a grant). */
const DOOR_NAMES: Record<string, string> = {
  ui: "Console",
  console: "Console",
  api: "API",
  mcp: "AI client (MCP)",
  cli: "Admin CLI",
  portal: "Portal",
  scim: "Directory sync",
  system: "Atrium",
  processor: "Billing processor",
  group: "A group",
};

/** The verbs of audit actions (`agent.publish`), as a past participle. */
const VERB_WORDS: Record<string, string> = {
  create: "created",
  update: "edited",
  draft_update: "edited",
  delete: "deleted",
  publish: "published",
  deploy: "made live",
  rename: "renamed",
  revoke: "revoked",
  add: "added",
  remove: "removed",
  accept: "accepted",
  approve: "approved",
  reject: "rejected",
  archive: "archived",
  cancel: "cancelled",
  dismiss: "dismissed",
  erase: "erased",
  export: "exported",
  hide: "hidden",
  link: "linked",
  resend: "sent again",
  replay: "sent again",
  retry: "retried",
  suspend: "suspended",
  upload: "uploaded",
  sign_in: "signed in",
  complete: "completed",
  failed: "failed",
  move: "moved",
  reactivate: "reactivated",
  test: "tested",
  tests_update: "tests edited",
  dataset_import: "dataset imported",
  dataset_delete: "dataset deleted",
  member_add: "member added",
  member_remove: "member removed",
  admission_add: "admission added",
  admission_remove: "admission removed",
  role_change: "role changed",
  password_change: "password changed",
  password_reset: "password reset",
  rotate_secret: "secret rotated",
  embed_secret_rotate: "embed secret rotated",
  metadata_refresh: "metadata refreshed",
};

/** What a thing is called in a line of activity, where its type's words would read wrong. */
const TYPE_WORDS: Record<string, string> = {
  execution: "Run",
  sso_connection: "SSO connection",
  conversation: "Conversation",
};

/** Actions that read better as a whole than as their thing and verb. */
const ACTION_WORDS: Record<string, string> = {
  "end_user.export_mail": "End user's data mailed to them",
  "subscription.bonus_credits": "Bonus credits given",
  "execution.await_approval": "Run paused for approval",
  "execution.feedback": "Feedback given on a run",
  "directory.sync_failed": "Directory sync failed",
  "retention.sweep": "Old data deleted under the retention policy",
  "source.ready": "Source indexed",
  "source.failed": "Source could not be indexed",
  "portal.embed_sign_in": "Signed in through the embedded chat",
  "member.notification_email": "Notification emails changed",
  "member.mfa_enroll": "Two-step sign-in set up",
  "member.mfa_verify": "Two-step sign-in confirmed",
  "member.mfa_remove": "Two-step sign-in turned off",
  "member.mfa_reset": "Two-step sign-in reset",
};

/** "systemInstruction" → "Instructions"; a field not in the table reads as its words ("someField" → "Some field"). */
export function fieldWords(field: string): string {
  if (FIELD_WORDS[field]) return FIELD_WORDS[field];
  const words = field
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_.]/g, " ")
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** "Instructions, Model and Name". */
export function listWords(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

export function doorWords(door: string): string {
  return DOOR_WORDS[door] ?? `through ${door}`;
}

/** "api" → "API", "scim" → "Directory sync": the door's name; an unknown one as it is. */
export function doorName(door: string): string {
  return DOOR_NAMES[door] ?? door;
}

/** "agent.publish" → "Agent published"; an action of another shape is left as it is. */
export function actionWords(action: string): string {
  if (ACTION_WORDS[action]) return ACTION_WORDS[action];
  const [type, verb] = action.split(".");
  if (!type || !verb || !VERB_WORDS[verb]) return action;
  if (TYPE_WORDS[type]) return `${TYPE_WORDS[type]} ${VERB_WORDS[verb]}`;
  const thing = fieldWords(type).toLowerCase();
  return `${thing.charAt(0).toUpperCase()}${thing.slice(1)} ${VERB_WORDS[verb]}`;
}

// Made on first use: the first Intl formatter of a process loads ICU's locale data, about 7 MB
// that a server which never words a time (only the console does) would hold from its start.
let relative: Intl.RelativeTimeFormat | undefined;
const RELATIVE = {
  format: (value: number, unit: Intl.RelativeTimeFormatUnit) =>
    (relative ??= new Intl.RelativeTimeFormat("en", { numeric: "auto", style: "long" })).format(value, unit),
};

/** "just now", "3 minutes ago", "2 hours ago", "yesterday"; past a week, the date. */
export function agoWords(at: string | Date, now: Date = new Date()): string {
  const then = new Date(at);
  const seconds = Math.round((now.getTime() - then.getTime()) / 1000);
  if (seconds < 45) return "just now";
  if (seconds < 45 * 60) return RELATIVE.format(-Math.max(1, Math.round(seconds / 60)), "minute");
  if (seconds < 22 * 3600) return RELATIVE.format(-Math.round(seconds / 3600), "hour");
  if (seconds < 7 * 86400) return RELATIVE.format(-Math.max(1, Math.round(seconds / 86400)), "day");
  return then.toLocaleDateString();
}

export interface LastChangeLike {
  at: string;
  by: string;
  source: string;
  action: string;
  summary: string;
}

/**
 * What changed, in words. A draft update's summary is "Changed <field>, <field>" (written by
 * src/server/services/builder/draft-edits.ts); the other summaries are already words.
 */
export function changeWhat(change: Pick<LastChangeLike, "action" | "summary">): string {
  if (change.action === "draft_updated") {
    const fields = /^Changed ([\w, ]+)$/.exec(change.summary)?.[1]?.split(", ");
    if (fields) return `${listWords(fields.map(fieldWords))} edited`;
    if (change.summary === "Saved the draft unchanged") return "Saved without changes";
  }
  return change.summary;
}

/** "Instructions edited by ana@example.com in the console, 3 minutes ago". */
export function lastChangeWords(change: LastChangeLike, now: Date = new Date()): string {
  return `${changeWhat(change)} by ${change.by} ${doorWords(change.source)}, ${agoWords(change.at, now)}`;
}

/**
 * One audit event as a line: the action, and the fields it changed (a publish: the version it
 * made). A creation names no fields: everything is new, and "App created: Name" would read like a label.
 */
export function eventWords(event: { action: string; outcome: string; changes: Record<string, unknown> }): string {
  const action = event.outcome === "failure" ? `${actionWords(event.action)} (failed)` : actionWords(event.action);
  const version = event.changes.version;
  if (event.action.endsWith(".publish") && Array.isArray(version) && typeof version[1] === "number")
    return `${action} as version ${version[1]}`;
  const fields = event.action.split(".")[1] === "create" ? [] : Object.keys(event.changes).map(fieldWords);
  return fields.length ? `${action}: ${listWords(fields)}` : action;
}
