// Which fields edit each flow node type's `data` in the studio's inspector and the step sheets:
// one entry per key of the type's schema (NODE_DATA in src/schemas/builder/builder.ts) or required data,
// so a field the schema gains without an editor here fails tests/builder/flow-studio.test.ts.
import { APPROVAL_TIMEOUT_MINUTES, MAX_LOOP_CONCURRENCY } from "@/schemas/limits";
import { HTTP_METHODS } from "@/schemas/builder/builder";

export type FieldKind =
  "template" | "long-template" | "text" | "model" | "knowledgebase" | "choice" | "number" | "code" | "json";

export interface DataField {
  key: string;
  label: string;
  kind: FieldKind;
  hint?: string;
  choices?: readonly string[];
  /** A number's bounds. */
  min?: number;
  max?: number;
  /** Emptied, the key is removed rather than written as "" (the schema's default or "none" applies). */
  optional?: boolean;
}

const minutes = (n: number) => n.toLocaleString("en-US");

/** The data fields each node type is edited with (a condition's branches have their own editor; a start has none). */
export const DATA_FIELDS: Record<string, DataField[]> = {
  trigger_start: [],
  llm: [
    { key: "prompt", label: "Prompt template", kind: "long-template" },
    { key: "model", label: "Model", kind: "model", optional: true },
  ],
  knowledge_search: [
    { key: "knowledgebaseId", label: "Knowledgebase", kind: "knowledgebase" },
    { key: "query", label: "Query template", kind: "template" },
  ],
  template: [{ key: "template", label: "Template", kind: "long-template" }],
  output: [{ key: "value", label: "Final value template", kind: "long-template" }],
  set_variable: [
    { key: "name", label: "Variable name", kind: "text", hint: "Later steps read it as {{vars.name}}" },
    { key: "value", label: "Value template", kind: "long-template", optional: true },
    {
      key: "expression",
      label: "Or a JSON Logic expression (instead of the template)",
      kind: "json",
      hint: 'e.g. {"+": [{"var": "vars.count"}, 1]}',
      optional: true,
    },
  ],
  http_request: [
    { key: "method", label: "Method", kind: "choice", choices: HTTP_METHODS },
    { key: "url", label: "URL template", kind: "template" },
    { key: "body", label: "Body template (not sent with GET)", kind: "long-template", optional: true },
    { key: "headers", label: "Headers (JSON object)", kind: "json", optional: true },
    { key: "credentials", label: "Connection for stored headers (slug, optional)", kind: "text", optional: true },
  ],
  code: [{ key: "code", label: "JavaScript (the body of a function of input)", kind: "code" }],
  loop: [
    { key: "items", label: "Items (JSON Logic giving a list)", kind: "json", hint: 'e.g. {"var": "inputs.items"}' },
    {
      key: "concurrency",
      label: `Items at once (1–${MAX_LOOP_CONCURRENCY})`,
      kind: "number",
      min: 1,
      max: MAX_LOOP_CONCURRENCY,
      optional: true,
    },
    { key: "body", label: "Steps for each item (JSON list of nodes)", kind: "json" },
  ],
  approval: [
    {
      key: "message",
      label: "Message for the approvers",
      kind: "long-template",
      hint: "What they read before they decide: what the run wants to do and why",
    },
    {
      key: "timeoutMinutes",
      label: "Time to decide (minutes)",
      kind: "number",
      min: APPROVAL_TIMEOUT_MINUTES.min,
      max: APPROVAL_TIMEOUT_MINUTES.max,
      optional: true,
      hint: `${minutes(APPROVAL_TIMEOUT_MINUTES.min)} to ${minutes(APPROVAL_TIMEOUT_MINUTES.max)}; empty: ${minutes(APPROVAL_TIMEOUT_MINUTES.default)} (24 hours)`,
    },
  ],
};

/** Who decides an approval and what its timeout does: fixed by the contract, so said, not edited. */
export const APPROVAL_RULES =
  "Any member of the organization (role member or above) approves or rejects it under Approvals in the console, or with POST /executions/{id}/approval. Approved, the run goes on; rejected, or not decided in time, the run ends failed with the reason.";
