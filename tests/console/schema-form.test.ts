// The app editor's schema form (src/components/builder/schema-form-model.ts): every schema the form
// shows comes back from it unchanged, every schema it cannot show is refused with a reason (and so
// stays raw JSON, untouched), edits write schemas the server accepts and Ajv compiles, and the
// problems a builder sees are in words.
import { describe, expect, it } from "vitest";
import {
  choicesKey,
  formProblems,
  formToSchema,
  jsonProblem,
  newField,
  rawSchemaProblem,
  retype,
  schemaToForm,
  type SchemaForm,
} from "@/components/builder/schema-form-model";
import { schemaProblems } from "@/server/runtime/json-schema";

function formOf(schema: unknown): SchemaForm {
  const parsed = schemaToForm(schema);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.form;
}

const ROUND_TRIPS: [string, Record<string, unknown>][] = [
  ["the default, an object with no fields", { type: "object" }],
  [
    "every scalar type, with descriptions and required fields",
    {
      type: "object",
      properties: {
        question: { type: "string", description: "What the customer asks" },
        amount: { type: "number" },
        quantity: { type: "integer", description: "How many" },
        urgent: { type: "boolean" },
      },
      required: ["question", "quantity"],
    },
  ],
  [
    "text choices, with and without a type",
    {
      type: "object",
      properties: {
        tier: { type: "string", enum: ["free", "pro", "enterprise"] },
        colour: { enum: ["red", "green"] },
      },
    },
  ],
  [
    "lists of every kind",
    {
      type: "object",
      properties: {
        tags: { type: "array", items: { type: "string" } },
        scores: { type: "array", description: "Scores", items: { type: "number" } },
        flags: { type: "array", items: { type: "boolean" } },
        sizes: { type: "array", items: { type: "string", enum: ["s", "m", "l"] } },
        matrix: { type: "array", items: { type: "array", items: { type: "integer" } } },
        lines: {
          type: "array",
          items: {
            type: "object",
            properties: { sku: { type: "string" }, count: { type: "integer" } },
            required: ["sku"],
          },
        },
      },
      required: ["lines"],
    },
  ],
  [
    "nested groups of fields",
    {
      type: "object",
      properties: {
        customer: {
          type: "object",
          description: "Who asks",
          properties: {
            email: { type: "string", format: "email" },
            address: {
              type: "object",
              properties: { city: { type: "string" }, zip: { type: "string", pattern: "^[0-9]{5}$" } },
              required: ["city"],
              additionalProperties: false,
            },
          },
          required: ["email"],
        },
      },
    },
  ],
  [
    "keywords the form does not edit, kept on their field and at the top",
    {
      $schema: "http://json-schema.org/draft-07/schema#",
      title: "Refund request",
      description: "A refund to check",
      type: "object",
      additionalProperties: false,
      properties: {
        amount: { type: "number", minimum: 0, maximum: 1000, default: 10, examples: [5], "x-unit": "EUR" },
        note: { type: "string", minLength: 1, maxLength: 500, title: "Note" },
        items: { type: "array", minItems: 1, uniqueItems: true, items: { type: "string" } },
      },
      required: ["amount"],
    },
  ],
  ["a field called __proto__", JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}')],
];

describe("the schema form reads and writes back", () => {
  for (const [name, schema] of ROUND_TRIPS) {
    it(`${name}: unchanged`, () => {
      expect(formToSchema(formOf(schema))).toEqual(schema);
      // What the form writes the server accepts, and Ajv compiles it (a value is checked without throwing).
      expect(rawSchemaProblem(formToSchema(formOf(schema)))).toBeNull();
      expect(() => schemaProblems(formToSchema(formOf(schema)), {})).not.toThrow();
    });
  }

  it("keeps the order of the fields", () => {
    const schema = { type: "object", properties: { b: { type: "string" }, a: { type: "string" } } };
    expect(Object.keys(formToSchema(formOf(schema)).properties as object)).toEqual(["b", "a"]);
  });
});

describe("a schema the form cannot show", () => {
  const UNSUPPORTED: [string, unknown, RegExp][] = [
    ["oneOf", { type: "object", oneOf: [{ required: ["a"] }, { required: ["b"] }] }, /oneOf/],
    ["a $ref", { type: "object", properties: { a: { $ref: "#/properties/b" }, b: { type: "string" } } }, /\$ref/],
    ["shared definitions", { type: "object", $defs: { a: { type: "string" } } }, /\$defs/],
    ["patternProperties", { type: "object", patternProperties: { "^x-": { type: "string" } } }, /pattern/],
    ["a field of two types", { type: "object", properties: { a: { type: ["string", "null"] } } }, /more than one type/],
    [
      "a field with no type",
      { type: "object", properties: { a: { description: "anything" } } },
      /field "a" has no type/,
    ],
    [
      "a list with undescribed items",
      { type: "object", properties: { a: { type: "array" } } },
      /items are not described/,
    ],
    ["choices that are numbers", { type: "object", properties: { a: { enum: [1, 2] } } }, /not all text/],
    ["a top level that is not an object", { type: "array", items: { type: "string" } }, /top level/],
    ["no type at the top", {}, /top level/],
    ["a required name not described", { type: "object", required: ["ghost"] }, /requires "ghost"/],
    [
      "extra fields described by a schema",
      { type: "object", additionalProperties: { type: "string" } },
      /additionalProperties/,
    ],
    [
      "nesting deeper than the form draws",
      {
        type: "object",
        properties: {
          a: {
            type: "object",
            properties: {
              b: {
                type: "object",
                properties: { c: { type: "object", properties: { d: { type: "object", properties: {} } } } },
              },
            },
          },
        },
      },
      /nested more than 4 levels/,
    ],
    ["an if/then", { type: "object", if: { required: ["a"] }, then: { required: ["b"] } }, /conditions/],
  ];
  for (const [name, schema, reason] of UNSUPPORTED) {
    it(`${name}: refused in one sentence`, () => {
      const parsed = schemaToForm(schema);
      expect(parsed.ok).toBe(false);
      if (parsed.ok) return;
      expect(parsed.reason).toMatch(reason);
      expect(parsed.reason).toMatch(/^The form cannot show this schema: [^.]*\.$/);
    });
  }

  it("is not changed by being read (it stays as it came, to be edited as JSON)", () => {
    const schema = { type: "object", properties: { a: { oneOf: [{ type: "string" }, { type: "number" }] } } };
    const copy = structuredClone(schema);
    schemaToForm(schema);
    expect(schema).toEqual(copy);
  });
});

describe("editing with the form", () => {
  it("adds two fields, one required, and writes a schema that refuses input without it", () => {
    const form = formOf({ type: "object" });
    const question = { ...newField("question"), required: true, description: "What the customer asks" };
    const urgent = newField("urgent", "boolean");
    const schema = formToSchema({ ...form, fields: [question, urgent] });
    expect(schema).toEqual({
      type: "object",
      properties: {
        question: { type: "string", description: "What the customer asks" },
        urgent: { type: "boolean" },
      },
      required: ["question"],
    });
    expect(schemaProblems(schema, { urgent: true })).toEqual([
      { pointer: "/question", message: "must have required property 'question'" },
    ]);
    expect(schemaProblems(schema, { question: "Refund?", urgent: false })).toEqual([]);
  });

  it("changes a field's type, dropping the keywords of the old type", () => {
    const form = formOf({ type: "object", properties: { a: { type: "string", format: "email", description: "d" } } });
    const list = retype(form.fields[0]!, "array");
    expect(formToSchema({ ...form, fields: [list] })).toEqual({
      type: "object",
      properties: { a: { type: "array", description: "d", items: { type: "string" } } },
    });
  });

  it("names the problems of each field in words, beside the field", () => {
    const fields = [newField(""), newField("email"), newField("email"), newField(" padded"), newField("tier", "enum")];
    const problems = formProblems({ fields, kept: {} });
    expect(problems.get(fields[0]!.id)).toBe("Give this field a name.");
    expect(problems.has(fields[1]!.id)).toBe(false);
    expect(problems.get(fields[2]!.id)).toBe('Another field here is already called "email".');
    expect(problems.get(fields[3]!.id)).toMatch(/space/);
    expect(problems.get(choicesKey(fields[4]!.id))).toBe("List at least one choice.");
  });

  it("checks names within their own group only", () => {
    const inner = { ...newField("address", "object"), fields: [newField("name"), newField("name")] };
    const problems = formProblems({ fields: [newField("name"), inner], kept: {} });
    expect([...problems.values()]).toEqual(['Another field here is already called "name".']);
    expect(problems.has(inner.fields[1]!.id)).toBe(true);
  });
});

describe("the raw JSON", () => {
  it("says where it does not parse, by line and column", () => {
    expect(jsonProblem('{"type": "object"}')).toBeNull();
    const problem = jsonProblem('{\n  "type": "object",\n  "properties": {,}\n}');
    expect(problem).toMatchObject({ line: 3, column: 18 });
    expect(problem!.message).toMatch(/^Line 3, column 18: /);
    expect(jsonProblem('{\n  "type": "object"')).toMatchObject({ line: 2 });
  });

  it("refuses what the server would refuse, and type names Ajv does not know", () => {
    expect(rawSchemaProblem([])).toMatch(/JSON object/);
    expect(rawSchemaProblem({ type: 3 })).toMatch(/"type" must be/);
    expect(rawSchemaProblem({ type: "object", properties: [] })).toMatch(/"properties" must be/);
    expect(rawSchemaProblem({ type: "object", required: "a" })).toMatch(/"required" must be/);
    expect(rawSchemaProblem({ type: "object", properties: { a: { type: "strin" } } })).toBe(
      'The field "a": "strin" is not a JSON Schema type; use string, number, integer, boolean, array, object or null.',
    );
    expect(rawSchemaProblem({ type: "object", oneOf: [{ required: ["a"] }] })).toBeNull();
    // The server's Ajv knows draft-07 only: a schema declaring another draft would fail at every transaction.
    expect(rawSchemaProblem({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" })).toMatch(
      /draft-07/,
    );
    expect(rawSchemaProblem({ $schema: "http://json-schema.org/draft-07/schema#", type: "object" })).toBeNull();
    expect(rawSchemaProblem({ type: "object", description: "x".repeat(70_000) })).toMatch(/too large: at most 65,536/);
  });
});
