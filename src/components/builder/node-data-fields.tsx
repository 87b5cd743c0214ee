"use client";
// A flow node's own data, edited by its type (the rules are NODE_DATA's and flowFeedback's): templates
// with "Insert a variable", a knowledgebase picked by name, choices, numbers, code and JSON.
import { useQuery } from "@tanstack/react-query";
import { useRef } from "react";
import { FormField, Select } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import type { FlowNode } from "@/schemas/builder/builder";
import { TextArea, TextField } from "./fields";
import { insertAt } from "./flow-nodes";
import { JsonField } from "./json-field";
import { modelOptions } from "./model-options";
import { KnowledgebaseName, KnowledgebasePicker } from "./knowledgebase-picker";
import { APPROVAL_RULES, DATA_FIELDS } from "./node-data-model";
import { VariableMenu, type Variable } from "./variable-menu";

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
  const fieldsOf = DATA_FIELDS[node.type] ?? [];
  const optional = new Set(fieldsOf.filter((field) => field.optional).map((field) => field.key));
  const set = (key: string) => (value: string) =>
    setData(key, value === "" && optional.has(key) ? undefined : value, group(key));
  const keep = (key: string) => (element: HTMLInputElement | HTMLTextAreaElement | null) => {
    fields.current[key] = element;
  };

  const edited = fieldsOf.map(({ key, label, kind, hint, choices, min, max }) => {
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
            <Select
              value={text(key) || choices![0]}
              onChange={(event) => setData(key, event.target.value)}
              options={choices!.map((choice) => ({ value: choice, label: choice }))}
            />
          </FormField>
        );
      case "model":
        return (
          <ModelSelect
            key={key}
            label={label}
            value={text(key)}
            onChange={(model) => setData(key, model || undefined)}
          />
        );
      case "number":
        return (
          <FormField key={key} label={label} hint={hint}>
            <input
              type="number"
              min={min}
              max={max}
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
  return node.type === "approval" ? (
    <>
      {edited}
      <p className="muted" data-testid="approval-rules">
        {APPROVAL_RULES}
      </p>
    </>
  ) : (
    edited
  );
}

/** An LLM step's model, picked from the organization's models; none is the built-in model. */
function ModelSelect({ label, value, onChange }: { label: string; value: string; onChange: (id: string) => void }) {
  const trpc = useTRPC();
  const models = useQuery(trpc.models.list.queryOptions({}));
  const listed = models.data?.models ?? [];
  return (
    <FormField label={label}>
      <Select
        value={value}
        onChange={(event) => onChange(event.target.value)}
        placeholder="The built-in model (default)"
        options={[
          ...(value !== "" && !listed.some((model) => model.id === value)
            ? [{ value, label: `${value} (not offered: runs on the built-in model)` }]
            : []),
          ...modelOptions(listed),
        ]}
      />
    </FormField>
  );
}
