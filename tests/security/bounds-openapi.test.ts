// Table-driven over the OpenAPI document: every write operation with a JSON body gets a NUL and
// a lone surrogate in each of its fields (nested where the field is an array or an object),
// and every GET operation a NUL in each query parameter. Each must answer 400
// `invalid_request` naming the field; never 500, never 503. Path parameters are random ids:
// validation comes before existence, so no resource is needed.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { api, newOrganization, rotatingKey, type Tenant } from "../helpers";

type Schema = Record<string, any>;

let doc: any;
let tenant: Tenant;
let key: () => Promise<string>;

beforeAll(async () => {
  doc = (await api("GET", "/openapi.json")).body;
  tenant = await newOrganization();
  key = rotatingKey(tenant);
});

function resolve(schema: Schema | undefined): Schema {
  let current = schema ?? {};
  while (current.$ref) current = doc.components.schemas[String(current.$ref).split("/").pop()!];
  if (current.anyOf || current.oneOf) {
    const options = (current.anyOf ?? current.oneOf) as Schema[];
    return resolve(options.find((option) => resolve(option).type !== "null") ?? options[0]);
  }
  return current;
}

/** A value holding `bad` where the schema takes text, and the path below the field that holds it. */
function badValue(schema: Schema, bad: string): { value: unknown; below: string[] } {
  const resolved = resolve(schema);
  if (resolved.type === "array") {
    const inner = badValue(resolved.items ?? {}, bad);
    return { value: [inner.value], below: ["0", ...inner.below] };
  }
  if (resolved.type === "object" && resolved.properties && Object.keys(resolved.properties).length > 0) {
    const [name, property] =
      Object.entries<Schema>(resolved.properties).find(([, p]) => resolve(p).type === "string") ??
      Object.entries<Schema>(resolved.properties)[0]!;
    const inner = badValue(property, bad);
    return { value: { [name]: inner.value }, below: [name, ...inner.below] };
  }
  if (resolved.type === "object" || resolved.type === undefined) return { value: { note: bad }, below: ["note"] };
  return { value: bad, below: [] };
}

function concretePath(path: string): string {
  return path.replace(/\{[^}]+\}/g, () => randomUUID());
}

interface WriteCase {
  method: string;
  path: string;
  field: string;
  schema: Schema;
}

function writeCases(): WriteCase[] {
  const cases: WriteCase[] = [];
  for (const [path, operations] of Object.entries<any>(doc.paths)) {
    for (const [method, operation] of Object.entries<any>(operations)) {
      if (!["post", "put", "patch"].includes(method)) continue;
      const body = resolve(operation.requestBody?.content?.["application/json"]?.schema);
      for (const [field, schema] of Object.entries<Schema>(body.properties ?? {}))
        cases.push({ method: method.toUpperCase(), path, field, schema });
    }
  }
  return cases;
}

describe("every write operation refuses text PostgreSQL cannot store, naming the field", () => {
  for (const [label, bad] of [
    ["U+0000", "x\u0000y"],
    ["a lone surrogate", "x\ud800y"],
  ] as const) {
    it(`answers 400 invalid_request for ${label} in each JSON body field`, async () => {
      const cases = writeCases();
      expect(cases.length).toBeGreaterThan(60);
      const failures: string[] = [];
      for (const { method, path, field, schema } of cases) {
        const { value, below } = badValue(schema, bad);
        const expected = [field, ...below].join(".");
        const response = await api(method, concretePath(path), { key: await key(), body: { [field]: value } });
        const paths = (response.body?.error?.problems ?? []).map((p: { path: string }) => p.path);
        if (response.status !== 400 || response.body?.error?.code !== "invalid_request" || !paths.includes(expected)) {
          failures.push(`${method} ${path} ${expected}: ${response.status} ${response.text.slice(0, 200)}`);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it("answers 400 for U+0000 in a key of a free-form object", async () => {
    const response = await api("POST", `/apps/${randomUUID()}/transaction`, {
      key: tenant.orgKey.secret,
      rawBody: '{"input":{"k\\u0000":"v"}}',
    });
    expect({ status: response.status, code: response.body.error.code }).toEqual({
      status: 400,
      code: "invalid_request",
    });
    expect(response.body.error.problems[0].path).toMatch(/^input\./);
  });
});

describe("every GET operation refuses U+0000 in a query parameter, naming it", () => {
  it("answers 400 invalid_request for each query parameter", async () => {
    const failures: string[] = [];
    let count = 0;
    for (const [path, operations] of Object.entries<any>(doc.paths)) {
      const operation = operations.get;
      if (!operation) continue;
      for (const parameter of (operation.parameters ?? []).filter((p: { in: string }) => p.in === "query")) {
        count++;
        const response = await api("GET", `${concretePath(path)}?${parameter.name}=x%00y`, { key: await key() });
        const paths = (response.body?.error?.problems ?? []).map((p: { path: string }) => p.path);
        if (
          response.status !== 400 ||
          response.body?.error?.code !== "invalid_request" ||
          !paths.includes(parameter.name)
        ) {
          failures.push(`GET ${path}?${parameter.name}: ${response.status} ${response.text.slice(0, 200)}`);
        }
      }
    }
    expect(count).toBeGreaterThan(20);
    expect(failures).toEqual([]);
  });
});
