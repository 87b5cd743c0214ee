// The flow graph rules, shared by the server (invalid_workflow) and the console's flow editor
// (live feedback): exactly one trigger_start, unique node ids, known types with their required
// data, `data.next` naming existing nodes, and templates reading existing nodes.
import { NODE_TYPES, type FlowInput, type FlowNode } from "./builder";

export interface Feedback {
  nodeId?: string;
  message: string;
}

const REQUIRED_DATA: Record<string, string[]> = {
  trigger_start: [],
  llm: ["prompt"],
  knowledge_search: ["knowledgebaseId", "query"],
  template: ["template"],
  output: ["value"],
};

/** Every problem of a flow's nodes, each naming its node; empty when the flow is valid. */
export function flowFeedback(nodes: FlowNode[], models: ReadonlySet<string>): Feedback[] {
  const feedback: Feedback[] = [];
  const ids = new Set<string>();
  const seen = new Set<string>();
  for (const node of nodes) {
    if (seen.has(node.id)) feedback.push({ nodeId: node.id, message: `Node id "${node.id}" is used more than once; node ids must be unique` });
    seen.add(node.id);
    ids.add(node.id);
  }
  const starts = nodes.filter((node) => node.type === "trigger_start");
  if (starts.length === 0) feedback.push({ message: "The flow needs exactly one trigger_start node; it has none" });
  for (const extra of starts.slice(1)) feedback.push({ nodeId: extra.id, message: "The flow needs exactly one trigger_start node; this is another one" });
  for (const node of nodes) {
    if (!(NODE_TYPES as readonly string[]).includes(node.type)) {
      feedback.push({ nodeId: node.id, message: `Unknown node type "${node.type}"; known types: ${NODE_TYPES.join(", ")}` });
    } else {
      for (const field of REQUIRED_DATA[node.type] ?? []) {
        const value = node.data[field];
        if (typeof value !== "string" || value.trim() === "") feedback.push({ nodeId: node.id, message: `A ${node.type} node needs data.${field} (a non-empty string)` });
      }
      if (node.type === "knowledge_search" && typeof node.data.knowledgebaseId === "string" && !/^[0-9a-f-]{36}$/i.test(node.data.knowledgebaseId)) {
        feedback.push({ nodeId: node.id, message: "data.knowledgebaseId must be a knowledgebase id (uuid)" });
      }
      if (node.type === "llm" && node.data.model !== undefined && (typeof node.data.model !== "string" || !models.has(node.data.model))) {
        feedback.push({ nodeId: node.id, message: `data.model "${String(node.data.model)}" is not a model from GET /models` });
      }
    }
    const next = node.data.next;
    if (next !== undefined) {
      const targets = Array.isArray(next) ? next : [next];
      for (const target of targets) {
        if (typeof target !== "string" || !ids.has(target)) feedback.push({ nodeId: node.id, message: `data.next names "${String(target)}", which is not a node of this flow` });
      }
    }
    for (const [field, value] of Object.entries(node.data)) {
      if (typeof value !== "string") continue;
      for (const match of value.matchAll(/\{\{\s*nodes\.([^.}\s]+)\.output\s*\}\}/g)) {
        if (!ids.has(match[1]!)) feedback.push({ nodeId: node.id, message: `data.${field} reads {{nodes.${match[1]}.output}}, but there is no node "${match[1]}"` });
      }
    }
  }
  return feedback;
}

const JSON_TYPES: Record<string, string> = { number: "number", integer: "integer", boolean: "boolean", checkbox: "boolean" };

/** The JSON Schema of a flow's inputs (the published listing's `inputSchema`). */
export function inputSchemaOf(inputs: FlowInput[]): Record<string, unknown> {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const input of inputs) {
    const property: Record<string, unknown> =
      input.type === "multiselect"
        ? { type: "array", items: input.options.length ? { type: "string", enum: input.options } : { type: "string" } }
        : { type: JSON_TYPES[input.type] ?? "string", ...(input.options.length ? { enum: input.options } : {}) };
    if (input.label) property.title = input.label;
    if (input.description) property.description = input.description;
    properties[input.key] = property;
  }
  return { type: "object", properties, required: inputs.filter((input) => input.required).map((input) => input.key), additionalProperties: false };
}

