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

// A second instance only to try schemas as they are written: compiling registers a schema's `$id`
// in its instance, which must not collide with the schemas the transactions use above.
const checker = new Ajv({ allErrors: true, strict: false });
addFormats(checker);
/** Ajv's messages can list every allowed value; the first part says enough. */
const MAX_COMPILE_MESSAGE_CHARS = 300;

/**
 * Why Ajv cannot use this schema (a `$schema` it does not know, an unknown type, a pattern that is
 * not a regular expression…), or null. Nothing is kept: each call compiles and forgets.
 */
export function schemaCompileProblem(schema: object): string | null {
  try {
    checker.compile(schema);
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return message.slice(0, MAX_COMPILE_MESSAGE_CHARS);
  } finally {
    checker.removeSchema(schema);
  }
}
