// JSON Schema validation with Ajv (every problem reported, as JSON pointers).
import { createHash } from "node:crypto";
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

export interface SchemaProblem {
  pointer: string;
  message: string;
}

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);

/**
 * Compiled validators, the least recently used dropped first. Each can come from a schema of up
 * to 64 KiB (MAX_APP_SCHEMA_CHARS) and there are two per app, so the cache is bounded rather than
 * growing with every schema ever published.
 */
export const MAX_COMPILED_SCHEMAS = 200;
const compiled = new Map<string, ValidateFunction>();

/**
 * The validator of a schema, keyed by the schema's whole text (its digest): two apps' schemas that
 * share an `$id` but differ are two entries. Ajv registers an `$id` in its instance when compiling
 * and would refuse the second one, so each schema is removed from the instance once compiled (the
 * validator keeps working: its references were resolved while compiling).
 */
function validatorOf(schema: object): ValidateFunction {
  const key = createHash("sha256").update(JSON.stringify(schema)).digest("base64url");
  let validate = compiled.get(key);
  if (validate) {
    compiled.delete(key);
  } else {
    try {
      validate = ajv.compile(schema);
    } finally {
      ajv.removeSchema(schema);
    }
    if (compiled.size >= MAX_COMPILED_SCHEMAS) compiled.delete(compiled.keys().next().value!);
  }
  compiled.set(key, validate);
  return validate;
}

/** How many validators are kept (for the test of the bound). */
export function compiledSchemaCount(): number {
  return compiled.size;
}

export function schemaProblems(schema: object, value: unknown): SchemaProblem[] {
  const validate = validatorOf(schema);
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
