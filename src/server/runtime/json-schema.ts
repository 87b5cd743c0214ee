// JSON Schema validation with Ajv (every problem reported, as JSON pointers).
import Ajv from "ajv";
import addFormats from "ajv-formats";

export interface SchemaProblem {
  pointer: string;
  message: string;
}

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

export function schemaProblems(schema: object, value: unknown): SchemaProblem[] {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => {
    const missing =
      error.keyword === "required" ? `/${String((error.params as { missingProperty?: string }).missingProperty)}` : "";
    const extra =
      error.keyword === "additionalProperties"
        ? `/${String((error.params as { additionalProperty?: string }).additionalProperty)}`
        : "";
    return { pointer: `${error.instancePath}${missing}${extra}` || "/", message: error.message ?? "is not valid" };
  });
}
