// SCIM PATCH (RFC 7644 §3.5.2) over a canonical resource, with the leniencies Entra ID and Okta
// need: `op` in any case, attribute names in any case, "True"/"False" strings, a path-less
// `replace`/`add` whose value holds dotted keys and extension URNs, filtered paths
// (`emails[type eq "work"].value`, `members[value eq "…"]`), members as objects or bare ids,
// adding what is there and removing what is not as no-ops. The operations apply to a copy, in
// order; the first that cannot apply throws, so the caller writes nothing of the request.
import { matchesFilter, parseScimFilter, type Filter } from "./filter";
import {
  attributesOf,
  canonicalValue,
  ENTERPRISE_ATTRIBUTES,
  ENTERPRISE_SCHEMA,
  findDef,
  MAX_SCIM_PATCH_OPERATIONS,
  scimError,
  startsWithIgnoringCase,
  type AttributeDef,
  type ResourceKind,
  type ScimObject,
  USER_SCHEMA,
  GROUP_SCHEMA,
} from "./schema";

type Op = "add" | "replace" | "remove";

export interface PatchOperation {
  op: Op;
  path?: string;
  value?: unknown;
}

const EXTERNAL_ID: AttributeDef = { name: "externalId", type: "string" };

interface Target {
  /** Where the attribute lives: the resource, or its enterprise extension. */
  extension: boolean;
  def: AttributeDef;
  filter?: Filter;
  sub?: AttributeDef;
}

function isObject(value: unknown): value is ScimObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The PatchOp body's operations, checked: 400 `invalidSyntax` for a body that is not one. */
export function readPatchBody(body: unknown): PatchOperation[] {
  if (!isObject(body)) throw scimError(400, "invalidSyntax", "The body must be a PatchOp object.");
  const key = Object.keys(body).find((name) => name.toLowerCase() === "operations");
  const operations = key ? body[key] : undefined;
  if (!Array.isArray(operations) || operations.length === 0)
    throw scimError(400, "invalidSyntax", "Operations must be a non-empty array.");
  if (operations.length > MAX_SCIM_PATCH_OPERATIONS)
    throw scimError(400, "tooMany", `A PATCH holds at most ${MAX_SCIM_PATCH_OPERATIONS} operations.`);
  return operations.map((raw, index) => {
    if (!isObject(raw)) throw scimError(400, "invalidSyntax", `Operations[${index}] must be an object.`);
    const field = (name: string) => raw[Object.keys(raw).find((candidate) => candidate.toLowerCase() === name) ?? name];
    const op = typeof field("op") === "string" ? (field("op") as string).toLowerCase() : "";
    if (op !== "add" && op !== "replace" && op !== "remove")
      throw scimError(400, "invalidSyntax", `Operations[${index}].op must be add, replace or remove.`);
    const path = field("path");
    if (path !== undefined && path !== null && typeof path !== "string")
      throw scimError(400, "invalidPath", `Operations[${index}].path must be a string.`);
    return {
      op,
      path: typeof path === "string" && path.trim() !== "" ? path.trim() : undefined,
      value: field("value"),
    };
  });
}

/** The index of the `]` closing the `[` at `open`, skipping quoted text. */
function closingBracket(path: string, open: number): number {
  for (let index = open + 1; index < path.length; index++) {
    if (path[index] === '"') {
      for (index++; index < path.length && path[index] !== '"'; index++) if (path[index] === "\\") index++;
    } else if (path[index] === "]") {
      return index;
    }
  }
  return -1;
}

/** A path as its target; undefined for an attribute Atrium does not keep (the operation is ignored). */
function parsePath(kind: ResourceKind, path: string): Target | undefined {
  let rest = path;
  let defs = attributesOf(kind);
  let extension = false;
  if (kind === "User" && startsWithIgnoringCase(rest, `${ENTERPRISE_SCHEMA}:`)) {
    rest = rest.slice(ENTERPRISE_SCHEMA.length + 1);
    defs = ENTERPRISE_ATTRIBUTES;
    extension = true;
  } else {
    const core = kind === "User" ? USER_SCHEMA : GROUP_SCHEMA;
    if (startsWithIgnoringCase(rest, `${core}:`)) rest = rest.slice(core.length + 1);
  }
  const open = rest.indexOf("[");
  const dot = rest.indexOf(".");
  let name = rest;
  let filter: Filter | undefined;
  let subName: string | undefined;
  if (open !== -1 && (dot === -1 || open < dot)) {
    const close = closingBracket(rest, open);
    if (close === -1) throw scimError(400, "invalidPath", `The path ${path} has no closing bracket.`);
    name = rest.slice(0, open);
    filter = parseScimFilter(rest.slice(open + 1, close));
    const after = rest.slice(close + 1);
    if (after.startsWith(".")) subName = after.slice(1);
    else if (after !== "") throw scimError(400, "invalidPath", `The path ${path} cannot be read.`);
  } else if (dot !== -1) {
    name = rest.slice(0, dot);
    subName = rest.slice(dot + 1);
  }
  if (name === "" || subName === "" || subName?.includes("."))
    throw scimError(400, "invalidPath", `The path ${path} cannot be read.`);
  if (!extension && (name.toLowerCase() === "id" || name.toLowerCase() === "meta"))
    throw scimError(400, "mutability", `${name} cannot be changed.`);
  if (!extension && name.toLowerCase() === "externalid" && !filter && !subName) return { extension, def: EXTERNAL_ID };
  const def = findDef(defs, name);
  if (!def || def.mutability === "readOnly" || def.mutability === "writeOnly") return undefined;
  if (filter && !def.multiValued)
    throw scimError(400, "invalidPath", `${def.name} is not multi-valued; it takes no filter.`);
  let sub: AttributeDef | undefined;
  if (subName !== undefined) {
    sub = findDef(def.subAttributes ?? [], subName);
    if (!sub) return undefined;
  }
  return { extension, def, filter, sub };
}

function containerOf(resource: ScimObject, target: Target): ScimObject {
  if (!target.extension) return resource;
  const existing = resource[ENTERPRISE_SCHEMA];
  if (isObject(existing)) return existing;
  const created: ScimObject = {};
  resource[ENTERPRISE_SCHEMA] = created;
  return created;
}

/**
 * The identity of a value of a multi-valued attribute: its `value` when it has one, else every
 * field. Compared through Sets, so adding or removing n members of a group of m costs n + m.
 */
function identityOf(item: unknown): string {
  return isObject(item) && item.value !== undefined
    ? `value:${JSON.stringify(item.value)}`
    : `item:${JSON.stringify(item)}`;
}

/** The attribute values a filter of plain equalities states (`type eq "work"`), for creating the value it names. */
function equalitiesOf(filter: Filter, def: AttributeDef): ScimObject | null {
  if (filter.op === "eq") {
    const sub = findDef(def.subAttributes ?? [], filter.attrPath);
    return sub ? { [sub.name]: canonicalValue(sub, filter.compValue, `${def.name}.${sub.name}`) } : null;
  }
  if (filter.op !== "and") return null;
  const parts = filter.filters.map((inner) => equalitiesOf(inner, def));
  return parts.every((part) => part !== null) ? Object.assign({}, ...parts) : null;
}

function applyToTarget(resource: ScimObject, op: Op, target: Target, value: unknown, path: string): void {
  const container = containerOf(resource, target);
  const { def, filter, sub } = target;
  const label = `${target.extension ? `${ENTERPRISE_SCHEMA}:` : ""}${def.name}${sub ? `.${sub.name}` : ""}`;

  if (!def.multiValued) {
    if (sub) {
      if (op === "remove") {
        if (isObject(container[def.name])) delete (container[def.name] as ScimObject)[sub.name];
        return;
      }
      const parent = isObject(container[def.name]) ? (container[def.name] as ScimObject) : {};
      const canonical = canonicalValue(sub, value, label);
      if (canonical === undefined) delete parent[sub.name];
      else parent[sub.name] = canonical;
      container[def.name] = parent;
      return;
    }
    if (op === "remove") {
      delete container[def.name];
      return;
    }
    const canonical = canonicalValue(def, value, label);
    if (canonical === undefined) delete container[def.name];
    // Sub-attributes not named are left as they are (RFC 7644 §3.5.2.1 and §3.5.2.3).
    else if (def.type === "complex" && isObject(container[def.name]))
      container[def.name] = { ...(container[def.name] as ScimObject), ...(canonical as ScimObject) };
    else container[def.name] = canonical;
    return;
  }

  const current = Array.isArray(container[def.name]) ? (container[def.name] as unknown[]) : [];
  if (!filter) {
    if (sub) {
      // `emails.value`: applies to every value (creating one when there is none).
      if (op === "remove") container[def.name] = current.map((item) => (isObject(item) ? omit(item, sub.name) : item));
      else {
        const canonical = canonicalValue(sub, value, label);
        container[def.name] = (current.length ? current : [{}]).map((item) => ({
          ...(isObject(item) ? item : {}),
          [sub.name]: canonical,
        }));
      }
      return;
    }
    if (op === "remove") {
      if (value === undefined || value === null) delete container[def.name];
      // A remove with a value (Entra ID's member removal) removes those values.
      else {
        const removed = new Set((canonicalValue(def, value, label) as unknown[]).map(identityOf));
        container[def.name] = current.filter((item) => !removed.has(identityOf(item)));
      }
      return;
    }
    const values = (canonicalValue(def, value, label) as unknown[] | undefined) ?? [];
    if (op === "replace") {
      container[def.name] = values;
      return;
    }
    const merged = [...current];
    const present = new Set(current.map(identityOf));
    for (const item of values) {
      const identity = identityOf(item);
      if (present.has(identity)) continue;
      present.add(identity);
      merged.push(item);
    }
    container[def.name] = merged;
    return;
  }

  const matched = new Set(current.filter((item) => matchesFilter(item, filter)));
  if (op === "remove") {
    container[def.name] = sub
      ? current.map((item) => (matched.has(item) && isObject(item) ? omit(item, sub.name) : item))
      : current.filter((item) => !matched.has(item));
    return;
  }
  const canonical = sub
    ? canonicalValue(sub, value, label)
    : canonicalValue({ ...def, multiValued: false }, value, label);
  if (matched.size === 0) {
    // Entra ID sets `emails[type eq "work"].value` on users with no work email yet: create it.
    const stated = equalitiesOf(filter, def);
    if (!stated) throw scimError(400, "noTarget", `No value of ${def.name} matches the filter in ${path}.`);
    container[def.name] = [
      ...current,
      sub ? { ...stated, [sub.name]: canonical } : { ...stated, ...(canonical as ScimObject) },
    ];
    return;
  }
  container[def.name] = current.map((item) => {
    if (!matched.has(item) || !isObject(item)) return item;
    return sub ? { ...item, [sub.name]: canonical } : { ...item, ...(canonical as ScimObject) };
  });
}

function omit(item: ScimObject, key: string): ScimObject {
  const copy = { ...item };
  delete copy[key];
  return copy;
}

function applyOne(kind: ResourceKind, resource: ScimObject, operation: PatchOperation): void {
  const { op, path, value } = operation;
  if (path !== undefined) {
    const target = parsePath(kind, path);
    if (target) applyToTarget(resource, op, target, value, path);
    return;
  }
  if (op === "remove") throw scimError(400, "noTarget", "A remove operation needs a path.");
  if (!isObject(value)) throw scimError(400, "invalidValue", `An ${op} operation with no path needs an object value.`);
  // No path: each key of the value is a path of its own (dotted keys and extension URNs included).
  for (const [key, item] of Object.entries(value)) {
    const lower = key.toLowerCase();
    if (lower === "schemas" || lower === "meta") continue;
    if (lower === "id") {
      if (item !== resource.id) throw scimError(400, "mutability", "id cannot be changed.");
      continue;
    }
    if (kind === "User" && lower === ENTERPRISE_SCHEMA.toLowerCase()) {
      if (!isObject(item)) throw scimError(400, "invalidValue", `${ENTERPRISE_SCHEMA} must be an object.`);
      for (const [name, inner] of Object.entries(item))
        applyOne(kind, resource, { op, path: `${ENTERPRISE_SCHEMA}:${name}`, value: inner });
      continue;
    }
    applyOne(kind, resource, { op, path: key, value: item });
  }
}

/** The resource after every operation, in order; the input is not changed. */
export function applyPatch(kind: ResourceKind, resource: ScimObject, operations: PatchOperation[]): ScimObject {
  const copy = structuredClone(resource);
  for (const operation of operations) applyOne(kind, copy, operation);
  return copy;
}
