// The transaction validator's compiled schemas: a bounded cache, and schemas that share an `$id`
// (in two apps, or nested in definitions) each validating by their own rules.
import { describe, expect, it } from "vitest";
import { compiledSchemaCount, MAX_COMPILED_SCHEMAS, schemaProblems } from "@/server/runtime/json-schema";

const pointers = (schema: object, value: unknown) => schemaProblems(schema, value).map((p) => p.pointer);

describe("compiled schema cache", () => {
  it("keeps at most MAX_COMPILED_SCHEMAS validators, and an evicted schema still validates", () => {
    const schemaNumber = (n: number) => ({ type: "object", properties: { n: { const: n } } });
    for (let n = 0; n < MAX_COMPILED_SCHEMAS + 50; n++) expect(pointers(schemaNumber(n), { n })).toEqual([]);
    expect(compiledSchemaCount()).toBe(MAX_COMPILED_SCHEMAS);
    expect(pointers(schemaNumber(0), { n: 1 })).toEqual(["/n"]);
    expect(compiledSchemaCount()).toBe(MAX_COMPILED_SCHEMAS);
  });

  it("two schemas with one $id, used alternately, each keep their own rules", () => {
    const id = "https://example.test/schemas/order";
    const lenient = { $id: id, type: "object", properties: { quantity: { type: "integer", minimum: 1 } } };
    const strict = { $id: id, type: "object", properties: { quantity: { type: "integer", minimum: 10 } } };
    for (let round = 0; round < 2; round++) {
      expect(pointers(lenient, { quantity: 3 })).toEqual([]);
      expect(pointers(strict, { quantity: 3 })).toEqual(["/quantity"]);
    }
  });

  it("a schema that refers to itself by $id, or nests a shared $id, still resolves its references", () => {
    const tree = (leaf: string) => ({
      $id: "https://example.test/schemas/tree",
      type: "object",
      properties: {
        leaf: { $ref: "https://example.test/schemas/part" },
        children: { type: "array", items: { $ref: "https://example.test/schemas/tree" } },
      },
      definitions: { part: { $id: "https://example.test/schemas/part", type: leaf } },
    });
    const value = { leaf: "a", children: [{ leaf: "b", children: [{ leaf: 3 }] }] };
    expect(pointers(tree("string"), value)).toEqual(["/children/0/children/0/leaf"]);
    expect(pointers(tree("integer"), { leaf: 1, children: [{ leaf: "x" }] })).toEqual(["/children/0/leaf"]);
    expect(pointers(tree("string"), value)).toEqual(["/children/0/children/0/leaf"]);
  });
});
