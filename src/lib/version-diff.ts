// What changed between two documents of one agent, flow or app (two versions, or a version and
// the draft), as a builder reads it: nodes, members, inputs and knowledge matched by their ids,
// fields by the editors' labels. Pure, so the console's compare view and the tests share it.
import type { FlowNode } from "@/schemas/builder/builder";
import { nodeTitle, typeLabel } from "@/components/builder/flow-nodes";
import { fieldWords } from "./change-words";

type Doc = Record<string, unknown>;

export interface VersionChange {
  change: "added" | "removed" | "changed";
  /** What the change is about: a node of a flow, an element of a list field, or a field. */
  subject: "node" | "item" | "field";
  /** The field as the editors label it ("Nodes", "Instructions", "Endpoints and schemas › Greeting"). */
  field: string;
  /** The node or list element's name, when the change is about one. */
  name?: string;
  /** For a node: the fields of its data that changed. */
  fields?: string[];
  before?: string;
  after?: string;
  /** The change in one sentence. */
  words: string;
}

/** Item state and read-back values the server adds to a document: not content, never a change. */
const NOT_CONTENT = new Set([
  "id",
  "published",
  "productionVersionId",
  "versionCount",
  "lastChange",
  "createdAt",
  "updatedAt",
  "draftDiffersFromLive",
  "inputSchema",
]);
/** Read-back fields of references (an app's adviser and members, an agent's knowledge). */
const READ_BACK = new Set(["name", "title", "published", "versionId"]);

/** The key that identifies an element of a list field, when it has one. */
const IDENTITY_KEYS = ["id", "key", "knowledgebaseId", "toolkit", "slug"];

function identityOf(value: unknown): string | null {
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  for (const key of IDENTITY_KEYS) {
    const id = (value as Doc)[key];
    if (typeof id === "string" || typeof id === "number") return `${key}:${id}`;
  }
  return null;
}

/** A stable text of a value: keys sorted (PostgreSQL's jsonb reorders them), read-back names left out. */
function canonical(value: unknown, dropReadBack = false): string {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object")
      return Object.fromEntries(
        Object.keys(v)
          .filter((key) => !(dropReadBack && READ_BACK.has(key)))
          .sort()
          .map((key) => [key, walk((v as Doc)[key])]),
      );
    return v;
  };
  return JSON.stringify(walk(value)) ?? "";
}

/** A value as a person reads it in one line: text as is, anything else as compact JSON. */
function shown(value: unknown): string {
  if (value === undefined || value === null || value === "") return "(empty)";
  const text = typeof value === "string" ? value : canonical(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

function elementName(value: unknown): string {
  if (value && typeof value === "object") {
    const v = value as Doc;
    for (const key of ["name", "title", "label", "key", "knowledgebaseId", "toolkit", "id"])
      if (typeof v[key] === "string" && v[key]) return v[key] as string;
  }
  return shown(value);
}

function nodeChanges(before: FlowNode[], after: FlowNode[]): VersionChange[] {
  const changes: VersionChange[] = [];
  const old = new Map(before.map((node) => [node.id, node]));
  const now = new Map(after.map((node) => [node.id, node]));
  const label = (node: FlowNode) => `"${nodeTitle(node)}" (${typeLabel(node.type)})`;
  for (const node of after)
    if (!old.has(node.id))
      changes.push({
        change: "added",
        subject: "node",
        field: "Nodes",
        name: nodeTitle(node),
        words: `Added node ${label(node)}`,
      });
  for (const node of before)
    if (!now.has(node.id))
      changes.push({
        change: "removed",
        subject: "node",
        field: "Nodes",
        name: nodeTitle(node),
        words: `Removed node ${label(node)}`,
      });
  for (const node of after) {
    const was = old.get(node.id);
    if (!was) continue;
    const fields: string[] = [];
    if (was.type !== node.type) fields.push("type");
    const keys = new Set([...Object.keys(was.data), ...Object.keys(node.data)]);
    // Where a node is drawn is not what it does.
    keys.delete("position");
    for (const key of [...keys].sort())
      if (canonical(was.data[key]) !== canonical(node.data[key])) fields.push(key === "next" ? "connections" : key);
    if (canonical(was.blocks ?? []) !== canonical(node.blocks ?? [])) fields.push("blocks");
    if (fields.length === 0) continue;
    // One data field changed: say from what to what.
    const rawKey = fields.length === 1 && fields[0] !== "connections" && fields[0] !== "type" ? fields[0]! : null;
    changes.push({
      change: "changed",
      subject: "node",
      field: "Nodes",
      name: nodeTitle(node),
      fields,
      ...(rawKey ? { before: shown(was.data[rawKey]), after: shown(node.data[rawKey]) } : {}),
      words:
        `Changed node ${label(node)}: ${fields.map((f) => fieldWords(f).toLowerCase()).join(", ")}` +
        (rawKey ? ` from ${shown(was.data[rawKey])} to ${shown(node.data[rawKey])}` : ""),
    });
  }
  return changes;
}

function listChanges(field: string, before: unknown[], after: unknown[]): VersionChange[] {
  const identified = [...before, ...after].every((value) => identityOf(value) !== null);
  const keyOf = (value: unknown) => (identified ? identityOf(value)! : canonical(value));
  const old = new Map(before.map((value) => [keyOf(value), value]));
  const now = new Map(after.map((value) => [keyOf(value), value]));
  const changes: VersionChange[] = [];
  const item = (change: VersionChange["change"], value: unknown, words: string, extra: Partial<VersionChange> = {}) =>
    changes.push({ change, subject: "item", field, name: elementName(value), words, ...extra });
  for (const [key, value] of now) if (!old.has(key)) item("added", value, `${field}: added "${elementName(value)}"`);
  for (const [key, value] of old)
    if (!now.has(key)) item("removed", value, `${field}: removed "${elementName(value)}"`);
  if (identified)
    for (const [key, value] of now) {
      const was = old.get(key);
      if (was === undefined || canonical(was, true) === canonical(value, true)) continue;
      const fields = [...new Set([...Object.keys(was as Doc), ...Object.keys(value as Doc)])]
        .filter((f) => !READ_BACK.has(f) && canonical((was as Doc)[f]) !== canonical((value as Doc)[f]))
        .sort();
      item(
        "changed",
        value,
        `${field}: changed "${elementName(value)}" (${fields.map((f) => fieldWords(f).toLowerCase()).join(", ")})`,
        { fields },
      );
    }
  // Same elements, another order: a list whose order matters (members, starters) changed.
  if (changes.length === 0 && canonical(before, true) !== canonical(after, true))
    changes.push({ change: "changed", subject: "field", field, words: `${field}: reordered` });
  return changes;
}

function fieldChanges(path: string[], before: unknown, after: unknown): VersionChange[] {
  const field = path.map(fieldWords).join(" › ");
  if (canonical(before, true) === canonical(after, true)) return [];
  if (path.length === 1 && path[0] === "nodes")
    return nodeChanges((before ?? []) as FlowNode[], (after ?? []) as FlowNode[]);
  if (Array.isArray(before) && Array.isArray(after)) return listChanges(field, before, after);
  const isObject = (v: unknown) => v !== null && typeof v === "object" && !Array.isArray(v);
  if (isObject(before) && isObject(after) && identityOf(before) === null && identityOf(after) === null) {
    const keys = [...new Set([...Object.keys(before as Doc), ...Object.keys(after as Doc)])].sort();
    return keys.flatMap((key) => fieldChanges([...path, key], (before as Doc)[key], (after as Doc)[key]));
  }
  const empty = (v: unknown) => v === undefined || v === null || v === "";
  const change = empty(before) ? "added" : empty(after) ? "removed" : "changed";
  const words =
    change === "added"
      ? `${field} set to ${shown(after)}`
      : change === "removed"
        ? `${field} cleared (was ${shown(before)})`
        : `${field} changed from ${shown(before)} to ${shown(after)}`;
  return [{ change, subject: "field", field, before: shown(before), after: shown(after), words }];
}

/** Every change from `before` to `after`, fields in the documents' order, nodes by id. */
export function versionDiff(before: Doc, after: Doc): VersionChange[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => !NOT_CONTENT.has(key));
  return keys.flatMap((key) => fieldChanges([key], before[key], after[key]));
}
