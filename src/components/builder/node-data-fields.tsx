"use client";
// A flow node's own data, edited by its type (the rules are NODE_DATA's and flowFeedback's): templates
// with "Insert a variable", a knowledgebase picked by name, choices, numbers, code and JSON.
import { useRef } from "react";
import { FormField } from "@/components/console";
import { HTTP_METHODS, type FlowNode } from "@/schemas/builder";
import { TextArea, TextField } from "./fields";
import { insertAt } from "./flow-nodes";
import { JsonField } from "./json-field";
import { KnowledgebaseName, KnowledgebasePicker } from "./knowledgebase-picker";
import { VariableMenu, type Variable } from "./variable-menu";

type FieldKind = "template" | "long-template" | "text" | "knowledgebase" | "choice" | "number" | "code" | "json";

interface DataField {
  key: string;
  label: string;
  kind: FieldKind;
  hint?: string;
  choices?: readonly string[];
}

/** The data fields each node type is edited with (a condition's branches have their own editor). */
const DATA_FIELDS: Record<string, DataField[]> = {
  llm: [
    { key: "prompt", label: "Prompt template", kind: "long-template" },
    { key: "model", label: "Model (optional)", kind: "text" },
  ],
  knowledge_search: [
    { key: "knowledgebaseId", label: "Knowledgebase", kind: "knowledgebase" },
    { key: "query", label: "Query template", kind: "template" },
  ],
  template: [{ key: "template", label: "Template", kind: "long-template" }],
  output: [{ key: "value", label: "Final value template", kind: "long-template" }],
  set_variable: [
    { key: "name", label: "Variable name", kind: "text", hint: "Later steps read it as {{vars.name}}" },
    { key: "value", label: "Value template", kind: "long-template" },
  ],
  http_request: [
    { key: "method", label: "Method", kind: "choice", choices: HTTP_METHODS },
    { key: "url", label: "URL template", kind: "template" },
    { key: "body", label: "Body template (not sent with GET)", kind: "long-template" },
    { key: "headers", label: "Headers (JSON object)", kind: "json" },
    { key: "credentials", label: "Connection for stored headers (slug, optional)", kind: "text" },
  ],
  code: [{ key: "code", label: "JavaScript (the body of a function of input)", kind: "code" }],
  loop: [
    { key: "items", label: "Items (JSON Logic giving a list)", kind: "json", hint: 'e.g. {"var": "inputs.items"}' },
    { key: "concurrency", label: "Items at once (1–5)", kind: "number" },
    { key: "body", label: "Steps for each item (JSON list of nodes)", kind: "json" },
  ],
};

/** Fields that may be left out: emptied, they are removed rather than written as "". */
const OPTIONAL = new Set(["model", "credentials", "body", "concurrency"]);

export function NodeDataFields({
  node,
  variables,
  setData,
  group,
}: {
  node: FlowNode;
  variables: Variable[];
  setData: (key: string, value: unknown, group?: string) => void;
  group: (key: string) => string;
}) {
  const fields = useRef<Record<string, HTMLInputElement | HTMLTextAreaElement | null>>({});
  /** Puts a reference where the field's cursor was (the menu took the focus), then gives it back. */
  const insert = (key: string, reference: string) => {
    const field = fields.current[key];
    const at = insertAt(String(node.data[key] ?? ""), reference, field?.selectionStart, field?.selectionEnd);
    setData(key, at.text);
    requestAnimationFrame(() => {
      field?.focus();
      field?.setSelectionRange(at.caret, at.caret);
    });
  };
  const text = (key: string) => String(node.data[key] ?? "");
  const set = (key: string) => (value: string) =>
    setData(key, value === "" && OPTIONAL.has(key) ? undefined : value, group(key));
  const keep = (key: string) => (element: HTMLInputElement | HTMLTextAreaElement | null) => {
    fields.current[key] = element;
  };

  return (DATA_FIELDS[node.type] ?? []).map(({ key, label, kind, hint, choices }) => {
    switch (kind) {
      case "knowledgebase":
        return (
          <div key={key} className="row">
            {text(key) !== "" && <KnowledgebaseName id={text(key)} />}
            <KnowledgebasePicker
              label={text(key) ? "Change knowledgebase" : label}
              onPick={(knowledgebaseId) => setData(key, knowledgebaseId)}
            />
          </div>
        );
      case "template":
      case "long-template":
        return (
          <div key={key} className="template-field">
            {kind === "long-template" ? (
              <TextArea label={label} value={text(key)} onChange={set(key)} rows={2} code inputRef={keep(key)} />
            ) : (
              <TextField label={label} value={text(key)} onChange={set(key)} inputRef={keep(key)} />
            )}
            <VariableMenu label={label} variables={variables} onInsert={(reference) => insert(key, reference)} />
          </div>
        );
      case "choice":
        return (
          <FormField key={key} label={label}>
            <select value={text(key) || choices![0]} onChange={(event) => setData(key, event.target.value)}>
              {choices!.map((choice) => (
                <option key={choice}>{choice}</option>
              ))}
            </select>
          </FormField>
        );
      case "number":
        return (
          <FormField key={key} label={label}>
            <input
              type="number"
              min={1}
              max={5}
              value={text(key)}
              onChange={(event) => setData(key, event.target.value === "" ? undefined : Number(event.target.value))}
            />
          </FormField>
        );
      case "code":
        return <TextArea key={key} label={label} value={text(key)} onChange={set(key)} rows={6} code />;
      case "json":
        return (
          <JsonField key={key} label={label} hint={hint} value={node.data[key]} onChange={(v) => setData(key, v)} />
        );
      default:
        return <TextField key={key} label={label} value={text(key)} onChange={set(key)} />;
    }
  });
}
