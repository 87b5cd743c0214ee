// Every mainstream generator must accept the document. openapi-typescript and hey-api run on it in
// tests/sdk/generated-clients.test.ts; openapi-python-client cannot be installed here, so this walk
// fails on the constructs it (and other 3.0-minded generators) is known to refuse:
// - `prefixItems`, and an array without an object `items` ("type array must have items defined",
//   openapi-python-client#965; `items: false`, #1229): its Schema model takes `items` as a schema only;
// - a boolean schema anywhere but `additionalProperties`;
// - `const` other than a string, integer or boolean, or without a `type` beside it (#1086);
// - an empty `required` or `enum` (its model requires at least one entry);
// - a numeric `exclusiveMinimum`/`exclusiveMaximum` (read as the 3.0 boolean);
// - a `type` outside the seven JSON types, and `$ref`s outside `#/components/`;
// - keywords no generator maps to a type (`if`/`then`/`else`, `dependentSchemas`,
//   `unevaluatedProperties`, `$dynamicRef`, `contains`).
import { describe, expect, it } from "vitest";
import { openApiDocument } from "@/server/openapi";

const SCHEMA_LISTS = new Set(["oneOf", "anyOf", "allOf", "prefixItems"]);
const SCHEMA_VALUES = new Set(["items", "not", "additionalProperties", "propertyNames", "contains"]);
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs"]);
const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "array", "object", "null"]);
const UNMAPPED = ["if", "then", "else", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems", "$dynamicRef"];

type Found = { at: string; problem: string };

function checkSchema(schema: unknown, at: string, found: Found[], allowBoolean = false): void {
  if (typeof schema === "boolean") {
    if (!allowBoolean) found.push({ at, problem: `boolean schema ${schema}` });
    return;
  }
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
    found.push({ at, problem: "not a schema" });
    return;
  }
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === "string" && !s.$ref.startsWith("#/components/")) found.push({ at, problem: `$ref ${s.$ref}` });
  if ("prefixItems" in s) found.push({ at, problem: "prefixItems" });
  for (const keyword of UNMAPPED) if (keyword in s) found.push({ at, problem: keyword });
  const types = s.type === undefined ? [] : [s.type].flat();
  for (const type of types) if (!JSON_TYPES.has(type as string)) found.push({ at, problem: `type ${String(type)}` });
  if (types.includes("array") && (typeof s.items !== "object" || s.items === null))
    found.push({ at, problem: "an array without an items schema" });
  if ("const" in s) {
    if (!["string", "boolean"].includes(typeof s.const) && !Number.isInteger(s.const))
      found.push({ at, problem: `const ${JSON.stringify(s.const)}` });
    if (types.length === 0) found.push({ at, problem: "const without type" });
  }
  for (const keyword of ["required", "enum"])
    if (keyword in s && (!Array.isArray(s[keyword]) || (s[keyword] as unknown[]).length === 0))
      found.push({ at, problem: `empty ${keyword}` });
  for (const keyword of ["exclusiveMinimum", "exclusiveMaximum"])
    if (typeof s[keyword] === "number") found.push({ at, problem: `numeric ${keyword}` });

  for (const [key, value] of Object.entries(s)) {
    if (SCHEMA_LISTS.has(key) && Array.isArray(value))
      value.forEach((item, index) => checkSchema(item, `${at}/${key}/${index}`, found));
    else if (SCHEMA_VALUES.has(key)) checkSchema(value, `${at}/${key}`, found, key === "additionalProperties");
    else if (SCHEMA_MAPS.has(key) && value && typeof value === "object")
      for (const [name, item] of Object.entries(value)) checkSchema(item, `${at}/${key}/${name}`, found);
  }
}

/** Every schema of the document: under components.schemas, and each `schema` of a parameter, header or media type. */
function checkDocument(document: unknown): Found[] {
  const found: Found[] = [];
  const walk = (node: unknown, at: string): void => {
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      const here = `${at}/${key}`;
      if (key === "schema") checkSchema(value, here, found);
      else if (here === "#/components/schemas")
        for (const [name, schema] of Object.entries(value as object)) checkSchema(schema, `${here}/${name}`, found);
      else walk(value, here);
    }
  };
  walk(document, "#");
  return found;
}

describe("the OpenAPI document against what generators refuse", () => {
  it("holds none of the constructs openapi-python-client and others refuse", () => {
    expect(checkDocument(openApiDocument())).toEqual([]);
  });

  it("the walk finds each construct it looks for", () => {
    const document = {
      components: {
        schemas: {
          Tuple: { type: "array", prefixItems: [{}, {}], items: false },
          NoItems: { type: "array" },
          Loose: { oneOf: [{ const: "a" }, { const: null, type: "null" }] },
          Flags: { type: "object", properties: { on: true }, required: [], additionalProperties: false },
          Bounds: { type: "number", exclusiveMinimum: 0 },
        },
      },
      paths: { "/x": { get: { parameters: [{ schema: { type: "strings", $ref: "https://example.com/s" } }] } } },
    };
    expect(checkDocument(document).map(({ at, problem }) => `${at}: ${problem}`)).toEqual([
      "#/components/schemas/Tuple: prefixItems",
      "#/components/schemas/Tuple: an array without an items schema",
      "#/components/schemas/Tuple/items: boolean schema false",
      "#/components/schemas/NoItems: an array without an items schema",
      "#/components/schemas/Loose/oneOf/0: const without type",
      "#/components/schemas/Loose/oneOf/1: const null",
      "#/components/schemas/Flags: empty required",
      "#/components/schemas/Flags/properties/on: boolean schema true",
      "#/components/schemas/Bounds: numeric exclusiveMinimum",
      "#/paths//x/get/parameters/0/schema: $ref https://example.com/s",
      "#/paths//x/get/parameters/0/schema: type strings",
    ]);
  });
});
