// The fields a preview form shows, read from a flow's declared inputs or an app's input JSON
// Schema, and the JSON object the filled form stands for (what the run or transaction receives).
import type { FlowInput } from "@/schemas/builder/builder";

export type InputKind = "text" | "number" | "integer" | "boolean" | "select" | "multiselect" | "json";

export interface InputField {
  key: string;
  label: string;
  description: string;
  kind: InputKind;
  required: boolean;
  options: string[];
}

const FLOW_KINDS: Record<string, InputKind> = {
  number: "number",
  integer: "integer",
  boolean: "boolean",
  checkbox: "boolean",
  select: "select",
  multiselect: "multiselect",
};

export function fieldsOfFlowInputs(inputs: FlowInput[]): InputField[] {
  return inputs.map((input) => ({
    key: input.key,
    label: input.label || input.key,
    description: input.description,
    kind: input.options.length > 0 && input.type === "text" ? "select" : (FLOW_KINDS[input.type] ?? "text"),
    required: input.required,
    options: input.options,
  }));
}

type Schema = Record<string, unknown>;
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

/** A property of a JSON Schema as a form field: plain types and enums; anything else is typed as JSON. */
function kindOf(property: Schema): { kind: InputKind; options: string[] } {
  if (Array.isArray(property.enum)) return { kind: "select", options: strings(property.enum) };
  const items = (property.items ?? {}) as Schema;
  if (property.type === "array" && Array.isArray(items.enum))
    return { kind: "multiselect", options: strings(items.enum) };
  const plain: Record<string, InputKind> = { string: "text", number: "number", integer: "integer", boolean: "boolean" };
  return { kind: plain[String(property.type)] ?? "json", options: [] };
}

/** The top-level properties of an object schema as fields; null when the schema is not an object of properties. */
export function fieldsOfJsonSchema(schema: unknown): InputField[] | null {
  if (!schema || typeof schema !== "object") return null;
  const { properties, required } = schema as Schema;
  if (!properties || typeof properties !== "object" || Array.isArray(properties)) return null;
  const needed = new Set(strings(required));
  return Object.entries(properties as Record<string, Schema>).map(([key, property]) => ({
    key,
    label: typeof property.title === "string" ? property.title : key,
    description: typeof property.description === "string" ? property.description : "",
    ...kindOf(property ?? {}),
    required: needed.has(key),
  }));
}

/** The required fields still empty, by label. */
export function missingFields(fields: InputField[], values: Record<string, unknown>): string[] {
  return fields
    .filter((field) => field.required && field.kind !== "boolean")
    .filter((field) => {
      const value = values[field.key];
      return value === undefined || value === "" || (Array.isArray(value) && value.length === 0);
    })
    .map((field) => field.label);
}
