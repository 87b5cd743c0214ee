"use client";
// A form to fill a flow's inputs or an app's transaction input, built from their declarations
// (input-form-model.ts), with the same value as JSON one click away ("Advanced: JSON").
import { useState } from "react";
import { CheckboxGroup, FormField, Select } from "@/components/console";
import type { InputField } from "./input-form-model";
import { JsonField } from "./json-field";

type Values = Record<string, unknown>;

export function InputForm({
  fields,
  values,
  onChange,
  label,
  startAdvanced = false,
}: {
  fields: InputField[];
  values: Values;
  onChange: (values: Values) => void;
  label: string;
  /** Open on the JSON (when the declaration is not one a form can show). */
  startAdvanced?: boolean;
}) {
  // Until the person chooses, the declaration decides (it may arrive after the first render).
  const [chosen, setAdvanced] = useState<boolean | null>(null);
  const advanced = chosen ?? startAdvanced;
  const set = (key: string, value: unknown) => {
    const { [key]: _old, ...rest } = values;
    onChange(value === undefined || value === "" ? rest : { ...rest, [key]: value });
  };
  return (
    <div className="input-form" role="group" aria-label={label}>
      <label className="inline input-form-toggle">
        <input type="checkbox" checked={advanced} onChange={(e) => setAdvanced(e.target.checked)} />
        Advanced: edit as JSON
      </label>
      {advanced ? (
        <JsonField
          label={`${label} as JSON`}
          value={values}
          rows={6}
          onChange={(value) =>
            onChange(value && typeof value === "object" && !Array.isArray(value) ? (value as Values) : {})
          }
        />
      ) : fields.length === 0 ? (
        <p className="muted">No inputs are declared: the run starts with none.</p>
      ) : (
        fields.map((field) => <InputControl key={field.key} field={field} value={values[field.key]} set={set} />)
      )}
    </div>
  );
}

function InputControl({
  field,
  value,
  set,
}: {
  field: InputField;
  value: unknown;
  set: (key: string, value: unknown) => void;
}) {
  const label = field.required ? `${field.label} (required)` : field.label;
  const hint = field.description || undefined;
  switch (field.kind) {
    case "boolean":
      return (
        <label className="inline">
          <input type="checkbox" checked={value === true} onChange={(e) => set(field.key, e.target.checked)} />{" "}
          {field.label}
        </label>
      );
    case "select":
      return (
        <FormField label={label} hint={hint}>
          <Select
            value={String(value ?? "")}
            onChange={(e) => set(field.key, e.target.value)}
            placeholder="Choose…"
            options={field.options.map((option) => ({ value: option, label: option }))}
          />
        </FormField>
      );
    case "multiselect": {
      const chosen = Array.isArray(value) ? (value as string[]) : [];
      return (
        <CheckboxGroup
          className="input-form-choices"
          legend={label}
          choices={field.options.map((option) => ({ value: option, label: option }))}
          value={chosen}
          onChange={(values) => set(field.key, values)}
        />
      );
    }
    case "number":
    case "integer":
      return (
        <FormField label={label} hint={hint}>
          <input
            type="number"
            step={field.kind === "integer" ? 1 : "any"}
            value={typeof value === "number" ? value : ""}
            onChange={(e) => set(field.key, e.target.value === "" ? undefined : Number(e.target.value))}
          />
        </FormField>
      );
    case "json":
      return <JsonField label={`${label} (JSON)`} hint={hint} value={value} onChange={(v) => set(field.key, v)} />;
    default:
      return (
        <FormField label={label} hint={hint}>
          <textarea rows={2} value={String(value ?? "")} onChange={(e) => set(field.key, e.target.value)} />
        </FormField>
      );
  }
}
