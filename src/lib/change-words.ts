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

/** "agent.publish" → "Agent published"; an action of another shape is left as it is. */
export function actionWords(action: string): string {
  const [type, verb] = action.split(".");
  if (!type || !verb || !VERB_WORDS[verb]) return action;
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
 * One audit event as a line: the action, and the fields it changed. A creation names no fields:
 * everything is new, and "App created: Name" would read like a label.
 */
export function eventWords(event: { action: string; outcome: string; changes: Record<string, unknown> }): string {
  const action = event.outcome === "failure" ? `${actionWords(event.action)} (failed)` : actionWords(event.action);
  const fields = event.action.split(".")[1] === "create" ? [] : Object.keys(event.changes).map(fieldWords);
  return fields.length ? `${action}: ${listWords(fields)}` : action;
}
