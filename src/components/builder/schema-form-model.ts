// The app editor's JSON Schema form, as pure logic: a schema becomes a list of fields (name, type,
// description, required, nested fields) and back, losslessly. Keywords the form does not edit
// (format, minimum, title, additionalProperties…) ride along on their field untouched; a schema the
// form cannot show (oneOf, $ref, patternProperties…) is refused with one sentence saying why, and
// the editor keeps it as raw JSON. The server accepts any JSON object whose `type`, `properties` and
// `required` are well formed (src/server/services/support/app-kind.ts, checkJsonSchema) and
// validates transactions with Ajv, so the form only writes standard types and keywords.

import { MAX_APP_SCHEMA_CHARS } from "@/schemas/limits";

export type FieldType = "string" | "number" | "integer" | "boolean" | "enum" | "array" | "object";

/** A schema the form shows: a type, its description and, by type, its choices, items or fields. */
export interface SchemaNode {
  type: FieldType;
  description: string;
  /** The choices of an `enum` field. */
  choices: string[];
  /** What an `array` holds. */
  items: SchemaNode | null;
  /** The fields of an `object`. */
  fields: SchemaField[];
  /** Keywords the form does not edit, written back as they came. */
  kept: Record<string, unknown>;
  /** An enum written without `"type": "string"`, written back the same way. */
  untypedEnum?: boolean;
}

/** A named property of an object. `id` is only the form's handle for a row; it is never written. */
export interface SchemaField extends SchemaNode {
  id: string;
  name: string;
  required: boolean;
}

/** The top of an app's input or output schema: always an object. */
export interface SchemaForm {
  fields: SchemaField[];
  kept: Record<string, unknown>;
}

export type ParsedSchema = { ok: true; form: SchemaForm } | { ok: false; reason: string };

export const FIELD_TYPES: { type: FieldType; label: string }[] = [
  { type: "string", label: "Text" },
  { type: "number", label: "Number" },
  { type: "integer", label: "Whole number" },
  { type: "boolean", label: "Yes or no" },
  { type: "enum", label: "One of a list" },
  { type: "array", label: "List of…" },
  { type: "object", label: "Group of fields" },
];

/**
 * Levels of nesting the form draws (a group inside a group inside a group…); deeper schemas are
 * edited as JSON. Four levels cover the inputs people type by hand and keep the form readable on a phone.
 */
export const MAX_FORM_DEPTH = 4;

/** Keywords that combine or point at other schemas: the form cannot draw them as fields. */
const BEYOND_THE_FORM: Record<string, string> = {
  oneOf: "chooses between several schemas (oneOf)",
  anyOf: "chooses between several schemas (anyOf)",
  allOf: "combines several schemas (allOf)",
  not: "excludes a schema (not)",
  $ref: "points at another schema ($ref)",
  $defs: "defines shared schemas ($defs)",
  definitions: "defines shared schemas (definitions)",
  $dynamicRef: "points at another schema ($dynamicRef)",
  patternProperties: "names fields by a pattern (patternProperties)",
  propertyNames: "restricts field names (propertyNames)",
  dependentSchemas: "has fields that depend on others (dependentSchemas)",
  dependentRequired: "has fields required by others (dependentRequired)",
  dependencies: "has fields that depend on others (dependencies)",
  if: "has conditions (if/then/else)",
  then: "has conditions (if/then/else)",
  else: "has conditions (if/then/else)",
  prefixItems: "describes list items by position (prefixItems)",
  contains: "requires a matching list item (contains)",
  unevaluatedProperties: "restricts unevaluated fields (unevaluatedProperties)",
  unevaluatedItems: "restricts unevaluated list items (unevaluatedItems)",
  const: "fixes a value (const)",
};

/** The keywords the form edits itself, per node; everything else is kept as it came. */
const EDITED = new Set(["type", "description", "enum", "items", "properties", "required"]);

const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "array", "object", "null"]);

/** The `$schema` values the server's validator (Ajv, src/server/runtime/json-schema.ts) understands. */
const DRAFT_07 = ["http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema"];

let lastId = 0;
/** A fresh handle for a row of the form (React keys, error lookup); never part of the schema. */
export function newFieldId(): string {
  lastId += 1;
  return `field-${lastId}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

class Unsupported extends Error {}

/** `where` names the place in words, e.g. `the field "address"`, for the sentence of a refusal. */
function refuse(where: string, what: string): never {
  throw new Unsupported(`The form cannot show this schema: ${where} ${what}.`);
}

function keptOf(schema: Record<string, unknown>, where: string): Record<string, unknown> {
  const kept: [string, unknown][] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key in BEYOND_THE_FORM) refuse(where, BEYOND_THE_FORM[key]!);
    if (key === "additionalProperties" && typeof value !== "boolean")
      refuse(where, "describes extra fields with a schema (additionalProperties)");
    if (key === "items" && schema.type !== "array") refuse(where, "describes list items but is not a list");
    if ((key === "properties" || key === "required") && schema.type !== "object")
      refuse(where, `has ${key} but is not a group of fields`);
    if (!EDITED.has(key)) kept.push([key, value]);
  }
  // Built from entries, so that a keyword such as "__proto__" stays a plain key.
  return Object.fromEntries(kept);
}

function nodeOf(schema: unknown, where: string, depth: number): SchemaNode {
  if (!isObject(schema)) refuse(where, "is not a schema object");
  const kept = keptOf(schema, where);
  const description = schema.description;
  if (description !== undefined && typeof description !== "string") refuse(where, "has a description that is not text");
  const base = { description: description ?? "", choices: [], items: null, fields: [], kept };
  const type = schema.type;
  if (schema.enum !== undefined) {
    const choices = schema.enum;
    if (!Array.isArray(choices) || !choices.every((choice) => typeof choice === "string"))
      refuse(where, "has choices that are not all text");
    if (type !== undefined && type !== "string") refuse(where, "has choices of a type other than text");
    return { ...base, type: "enum", choices: [...choices], ...(type === undefined ? { untypedEnum: true } : {}) };
  }
  if (Array.isArray(type)) refuse(where, `allows more than one type (${type.join(", ")})`);
  if (type === undefined) refuse(where, "has no type");
  if (typeof type !== "string" || !JSON_TYPES.has(type) || type === "null")
    refuse(where, `has the type ${JSON.stringify(type)}, which the form does not offer`);
  if (type === "array") {
    if (depth >= MAX_FORM_DEPTH) refuse(where, `is nested more than ${MAX_FORM_DEPTH} levels deep`);
    if (schema.items === undefined) refuse(where, "is a list whose items are not described");
    return { ...base, type, items: nodeOf(schema.items, `the items of ${where}`, depth + 1) };
  }
  if (type === "object") {
    if (depth >= MAX_FORM_DEPTH) refuse(where, `is nested more than ${MAX_FORM_DEPTH} levels deep`);
    return { ...base, type, fields: fieldsOf(schema, where, depth + 1) };
  }
  return { ...base, type: type as FieldType };
}

function fieldsOf(schema: Record<string, unknown>, where: string, depth: number): SchemaField[] {
  const properties = schema.properties ?? {};
  if (!isObject(properties)) refuse(where, "has properties that are not an object");
  const required = schema.required ?? [];
  if (!Array.isArray(required) || !required.every((name) => typeof name === "string"))
    refuse(where, "has a required list that is not a list of names");
  const names = Object.keys(properties);
  const unknown = required.find((name) => !names.includes(name));
  if (unknown !== undefined) refuse(where, `requires "${unknown}", which it does not describe`);
  if (new Set(required).size !== required.length) refuse(where, "lists a required field twice");
  return names.map((name) => ({
    ...nodeOf(properties[name], `the field "${name}"`, depth),
    id: newFieldId(),
    name,
    required: required.includes(name),
  }));
}

/** Reads an app's input or output schema into the form, or says in one sentence why it cannot. */
export function schemaToForm(schema: unknown): ParsedSchema {
  try {
    if (!isObject(schema)) refuse("it", "is not a JSON object");
    if (schema.type !== "object")
      return {
        ok: false,
        reason: 'The form cannot show this schema: its top level is not a group of fields ("type": "object").',
      };
    const kept = keptOf(schema, "it");
    if (schema.description !== undefined) kept.description = schema.description;
    return { ok: true, form: { fields: fieldsOf(schema, "it", 1), kept } };
  } catch (error) {
    if (error instanceof Unsupported) return { ok: false, reason: error.message };
    throw error;
  }
}

function nodeToSchema(node: SchemaNode): Record<string, unknown> {
  const schema: Record<string, unknown> = {};
  if (node.type === "enum") {
    if (!node.untypedEnum) schema.type = "string";
    schema.enum = [...node.choices];
  } else {
    schema.type = node.type;
  }
  if (node.description) schema.description = node.description;
  if (node.type === "array") schema.items = node.items ? nodeToSchema(node.items) : {};
  if (node.type === "object") Object.assign(schema, objectParts(node.fields));
  return { ...schema, ...node.kept };
}

function objectParts(fields: SchemaField[]): Record<string, unknown> {
  const parts: Record<string, unknown> = {
    properties: Object.fromEntries(fields.map((field) => [field.name, nodeToSchema(field)])),
  };
  const required = fields.filter((field) => field.required).map((field) => field.name);
  if (required.length > 0) parts.required = required;
  return parts;
}

/** Writes the form back as a JSON Schema (the kept keywords included). */
export function formToSchema(form: SchemaForm): Record<string, unknown> {
  const { description, ...kept } = form.kept;
  return {
    type: "object",
    ...(description !== undefined ? { description } : {}),
    ...(form.fields.length > 0 ? objectParts(form.fields) : {}),
    ...kept,
  };
}

/** A new field of the given type, as the "Add field" button makes it. */
export function newField(name = "", type: FieldType = "string"): SchemaField {
  return { ...newNode(type), id: newFieldId(), name, required: false };
}

/** An empty node of a type; a list starts as a list of text. */
export function newNode(type: FieldType): SchemaNode {
  return {
    type,
    description: "",
    choices: [],
    items: type === "array" ? newNode("string") : null,
    fields: [],
    kept: {},
  };
}

/**
 * Changes a node's type, keeping what still applies (the description, and the kept keywords only
 * when the type stays the same family); nested fields and items are kept while the type allows them.
 */
export function retype<T extends SchemaNode>(node: T, type: FieldType): T {
  if (node.type === type) return node;
  const fresh = newNode(type);
  return {
    ...node,
    type,
    choices: type === "enum" ? node.choices : [],
    items: type === "array" ? (node.items ?? fresh.items) : null,
    fields: type === "object" ? node.fields : [],
    // Keywords such as `format` or `minimum` belong to the old type.
    kept: {},
    untypedEnum: undefined,
  };
}

/** Where the problem of a node's choices is filed: its field's id, or `<id>/items` for a list's items. */
export function choicesKey(id: string): string {
  return `${id}/choices`;
}

/**
 * What is wrong in the form, each problem shown beside its control: a name's by the field's id, a
 * list of choices' by choicesKey. An empty map means the form can be saved.
 */
export function formProblems(form: SchemaForm): Map<string, string> {
  const problems = new Map<string, string>();
  const visitFields = (fields: SchemaField[]) => {
    const seen = new Set<string>();
    for (const field of fields) {
      const name = field.name.trim();
      if (!name) problems.set(field.id, "Give this field a name.");
      else if (name !== field.name) problems.set(field.id, "A field name cannot start or end with a space.");
      else if (seen.has(name)) problems.set(field.id, `Another field here is already called "${name}".`);
      seen.add(name);
      visitNode(field, field.id);
    }
  };
  const visitNode = (node: SchemaNode, id: string) => {
    if (node.type === "enum") {
      if (node.choices.length === 0) problems.set(choicesKey(id), "List at least one choice.");
      else if (new Set(node.choices).size !== node.choices.length)
        problems.set(choicesKey(id), "Each choice can be listed only once.");
    }
    if (node.type === "object") visitFields(node.fields);
    if (node.type === "array" && node.items) visitNode(node.items, `${id}/items`);
  };
  visitFields(form.fields);
  return problems;
}

/**
 * Whether a node at this depth (1 = a top-level field, its list items 2…) may be a group or a list:
 * the same rule schemaToForm reads with.
 */
export function canNest(depth: number): boolean {
  return depth < MAX_FORM_DEPTH;
}

/** A JSON text that does not parse, said with its line and column; null when it parses. */
export function jsonProblem(text: string): { message: string; line: number; column: number } | null {
  try {
    JSON.parse(text);
    return null;
  } catch (error) {
    const raw = error instanceof Error ? error.message : String(error);
    let line = 1;
    let column = 1;
    const lineColumn = /line (\d+) column (\d+)/.exec(raw);
    const position = /position (\d+)/.exec(raw);
    if (lineColumn) {
      line = Number(lineColumn[1]);
      column = Number(lineColumn[2]);
    } else if (position) {
      const before = text.slice(0, Number(position[1]));
      line = before.split("\n").length;
      column = before.length - before.lastIndexOf("\n");
    } else if (/end of JSON input|Unexpected end/i.test(raw)) {
      const lines = text.split("\n");
      line = lines.length;
      column = lines.at(-1)!.length + 1;
    }
    // The engine's words without its own "at position …" or "at line … column …" tail.
    const tail = [" in JSON at position", " at position", " in object at line", " at line"]
      .map((marker) => raw.indexOf(marker))
      .filter((index) => index >= 0);
    const reason = raw
      .slice(0, tail.length > 0 ? Math.min(...tail) : raw.length)
      .replace(/^JSON\.parse: /, "")
      .replace(/[,.]$/, "")
      .trim();
    return { message: `Line ${line}, column ${column}: ${reason || "this is not valid JSON"}.`, line, column };
  }
}

/**
 * What the server would refuse in a schema typed as JSON, in words (null when it is acceptable):
 * it must be an object, with a well-formed `type`, `properties` and `required` wherever they appear,
 * and type names JSON Schema knows (Ajv would fail on others when a transaction runs).
 */
export function rawSchemaProblem(value: unknown): string | null {
  if (!isObject(value)) return "A schema is a JSON object, between { and }.";
  if (JSON.stringify(value).length > MAX_APP_SCHEMA_CHARS)
    return `This schema is too large: at most ${MAX_APP_SCHEMA_CHARS.toLocaleString("en")} characters as JSON.`;
  if (value.$schema !== undefined && !DRAFT_07.includes(value.$schema as string))
    return `Transactions check input with JSON Schema draft-07: set "$schema" to "${DRAFT_07[0]}" or leave it out.`;
  const visit = (schema: Record<string, unknown>, where: string): string | null => {
    const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
    if (schema.type !== undefined && typeof schema.type !== "string" && !Array.isArray(schema.type))
      return `${where}: "type" must be a type name or a list of them.`;
    const unknown = types.find((type) => typeof type !== "string" || !JSON_TYPES.has(type));
    if (unknown !== undefined)
      return `${where}: ${JSON.stringify(unknown)} is not a JSON Schema type; use string, number, integer, boolean, array, object or null.`;
    if (schema.properties !== undefined && !isObject(schema.properties))
      return `${where}: "properties" must be an object of fields.`;
    if (
      schema.required !== undefined &&
      !(Array.isArray(schema.required) && schema.required.every((name) => typeof name === "string"))
    )
      return `${where}: "required" must be a list of field names.`;
    for (const [name, property] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
      if (!isObject(property)) return `The field "${name}" must be described by an object.`;
      const problem = visit(property, `The field "${name}"`);
      if (problem) return problem;
    }
    if (isObject(schema.items)) return visit(schema.items, `The items of ${where.toLowerCase()}`);
    return null;
  };
  return visit(value, "The schema");
}
