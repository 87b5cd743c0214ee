"use client";
// An app's input or output JSON Schema, edited as a form of fields (name, type, description,
// required, nested fields) with the raw JSON one tab away. Both sides show the same schema: an edit
// on either side reaches the other, and only a schema with no problem is passed on (and so saved).
// A schema the form cannot show opens as JSON with one sentence saying why; nothing in it is lost.
import { Plus, Trash2 } from "lucide-react";
import { useState } from "react";
import { Button, ErrorAlert, FormField, Select, Tabs } from "@/components/console";
import { MAX_DESCRIPTION_CHARS, MAX_LABEL_CHARS } from "@/schemas/limits";
import {
  canNest,
  choicesKey,
  FIELD_TYPES,
  formProblems,
  formToSchema,
  jsonProblem,
  newField,
  rawSchemaProblem,
  retype,
  schemaToForm,
  type FieldType,
  type ParsedSchema,
  type SchemaField,
  type SchemaForm,
  type SchemaNode,
} from "./schema-form-model";

type Schema = Record<string, unknown>;

/** JSON with keys in a stable order (PostgreSQL's jsonb reorders them), to tell a real change from a reload. */
function stableJson(value: unknown): string {
  const sort = (item: unknown): unknown =>
    Array.isArray(item)
      ? item.map(sort)
      : item && typeof item === "object"
        ? Object.fromEntries(
            Object.keys(item)
              .sort()
              .map((key) => [key, sort((item as Schema)[key])]),
          )
        : item;
  return JSON.stringify(sort(value));
}

const pretty = (schema: unknown) => JSON.stringify(schema, null, 2);

/** The JSON text's own problem (parse or shape), said for a builder. */
function textProblem(text: string): string | null {
  const parse = jsonProblem(text);
  if (parse) return `This is not valid JSON. ${parse.message}`;
  return rawSchemaProblem(JSON.parse(text));
}

export function SchemaEditor({
  label,
  hint,
  value,
  onChange,
  testId,
}: {
  label: string;
  hint: string;
  value: Schema;
  onChange: (schema: Schema) => void;
  testId: string;
}) {
  const serialized = stableJson(value);
  const [seen, setSeen] = useState(serialized);
  const [parsed, setParsed] = useState<ParsedSchema>(() => schemaToForm(value));
  const [text, setText] = useState(() => pretty(value));
  const [view, setView] = useState<"form" | "json">(parsed.ok ? "form" : "json");

  // The schema changed (an edit on one side, or a reload): bring the other side in step, during
  // render as React advises for state derived from props. A side that already shows it keeps its text or rows.
  if (seen !== serialized) {
    setSeen(serialized);
    if (!(parsed.ok && stableJson(formToSchema(parsed.form)) === serialized)) setParsed(schemaToForm(value));
    if (jsonProblem(text) !== null || stableJson(JSON.parse(text)) !== serialized) setText(pretty(value));
  }

  const problems = parsed.ok ? formProblems(parsed.form) : new Map<string, string>();
  const editForm = (form: SchemaForm) => {
    setParsed({ ok: true, form });
    if (formProblems(form).size === 0) onChange(formToSchema(form));
  };
  const editText = (next: string) => {
    setText(next);
    // Typing in the JSON takes over from a form left with problems: the form shows the saved schema again.
    if (problems.size > 0) setParsed(schemaToForm(value));
    if (textProblem(next) === null) onChange(JSON.parse(next) as Schema);
  };
  const textError = textProblem(text);

  return (
    <section className="schema-editor" aria-label={label} data-testid={testId}>
      <h3>{label}</h3>
      <p className="hint">{hint}</p>
      <Tabs
        label={`${label}: view`}
        selected={view}
        onSelect={(id) => setView(id as "form" | "json")}
        tabs={[
          {
            id: "form",
            label: "Form",
            panel: parsed.ok ? (
              <>
                {textError && (
                  <p className="notice" role="status">
                    The JSON has a problem, so the form shows the last valid schema; an edit here replaces the JSON.
                  </p>
                )}
                <FieldList
                  fields={parsed.form.fields}
                  depth={1}
                  problems={problems}
                  onChange={(fields) => editForm({ ...parsed.form, fields })}
                  addLabel="Add field"
                />
                <KeptNote kept={parsed.form.kept} />
                {problems.size > 0 && (
                  <ErrorAlert
                    tone="warning"
                    error={`Not saved until the marked field${problems.size === 1 ? " is" : "s are"} fixed.`}
                  />
                )}
              </>
            ) : (
              <div className="notice" data-testid="schema-form-unsupported">
                <p>{parsed.reason}</p>
                <p>It is edited as JSON, and nothing in it is changed.</p>
                <button type="button" onClick={() => setView("json")}>
                  Edit as JSON
                </button>
              </div>
            ),
          },
          {
            id: "json",
            label: "JSON",
            panel: (
              <>
                {problems.size > 0 && (
                  <p className="notice" role="status">
                    The form has fields to fix; this is the last schema without problems.
                  </p>
                )}
                <FormField
                  label={`${label} as JSON`}
                  hint="JSON Schema draft-07. What the form cannot show is kept as written."
                  error={textError}
                >
                  <textarea
                    className="code"
                    rows={Math.min(24, Math.max(6, text.split("\n").length + 1))}
                    value={text}
                    spellCheck={false}
                    onChange={(event) => editText(event.target.value)}
                  />
                </FormField>
              </>
            ),
          },
        ]}
      />
    </section>
  );
}

function FieldList({
  fields,
  depth,
  problems,
  onChange,
  addLabel,
}: {
  fields: SchemaField[];
  depth: number;
  problems: Map<string, string>;
  onChange: (fields: SchemaField[]) => void;
  addLabel: string;
}) {
  return (
    <div className="schema-fields">
      {fields.length === 0 && depth === 1 && <p className="muted">No fields yet: any JSON object is accepted.</p>}
      {fields.map((field, index) => (
        <FieldEditor
          key={field.id}
          field={field}
          position={index + 1}
          depth={depth}
          problems={problems}
          onChange={(next) => onChange(fields.map((f) => (f.id === field.id ? next : f)))}
          onRemove={() => onChange(fields.filter((f) => f.id !== field.id))}
        />
      ))}
      <div>
        <button type="button" onClick={() => onChange([...fields, newField()])}>
          <Plus size={16} aria-hidden className="icon" /> {addLabel}
        </button>
      </div>
    </div>
  );
}

function FieldEditor({
  field,
  position,
  depth,
  problems,
  onChange,
  onRemove,
}: {
  field: SchemaField;
  position: number;
  depth: number;
  problems: Map<string, string>;
  onChange: (field: SchemaField) => void;
  onRemove: () => void;
}) {
  const called = field.name.trim() ? `“${field.name}”` : `${position}`;
  return (
    <div className="schema-field" data-testid="schema-field" role="group" aria-label={`Field ${called}`}>
      <div className="schema-field-head">
        <FormField label="Name" error={problems.get(field.id)}>
          <input
            value={field.name}
            maxLength={MAX_LABEL_CHARS}
            placeholder="e.g. question"
            onChange={(event) => onChange({ ...field, name: event.target.value })}
          />
        </FormField>
        <TypeSelect node={field} depth={depth} label="Type" onChange={(type) => onChange(retype(field, type))} />
        <label className="inline schema-required">
          <input
            type="checkbox"
            checked={field.required}
            onChange={(event) => onChange({ ...field, required: event.target.checked })}
          />
          Required
        </label>
        <Button className="schema-field-remove" aria-label={`Remove field ${called}`} onClick={onRemove}>
          <Trash2 size={16} aria-hidden className="icon" />
        </Button>
      </div>
      <FormField label="Description">
        <input
          value={field.description}
          maxLength={MAX_DESCRIPTION_CHARS}
          placeholder="What to put here (shown to whoever calls the app)"
          onChange={(event) => onChange({ ...field, description: event.target.value })}
        />
      </FormField>
      <NodeDetails
        node={field}
        id={field.id}
        depth={depth}
        problems={problems}
        onChange={(node) => onChange({ ...field, ...node })}
      />
    </div>
  );
}

function TypeSelect({
  node,
  depth,
  label,
  onChange,
}: {
  node: SchemaNode;
  depth: number;
  label: string;
  onChange: (type: FieldType) => void;
}) {
  const nests = canNest(depth);
  return (
    <FormField label={label}>
      <Select
        value={node.type}
        onChange={(event) => onChange(event.target.value as FieldType)}
        options={FIELD_TYPES.map(({ type, label: words }) => ({
          value: type,
          label: words,
          disabled: !nests && (type === "array" || type === "object"),
        }))}
      />
    </FormField>
  );
}

/** What a type adds below its field: the choices, what a list holds, the fields of a group. */
function NodeDetails({
  node,
  id,
  depth,
  problems,
  onChange,
}: {
  node: SchemaNode;
  id: string;
  depth: number;
  problems: Map<string, string>;
  onChange: (node: SchemaNode) => void;
}) {
  return (
    <>
      {node.type === "enum" && (
        <ChoicesField
          choices={node.choices}
          error={problems.get(choicesKey(id))}
          onChange={(choices) => onChange({ ...node, choices })}
        />
      )}
      {node.type === "array" && node.items && (
        <div className="schema-nested">
          <TypeSelect
            node={node.items}
            depth={depth + 1}
            label="Each item is"
            onChange={(type) => onChange({ ...node, items: retype(node.items!, type) })}
          />
          <NodeDetails
            node={node.items}
            id={`${id}/items`}
            depth={depth + 1}
            problems={problems}
            onChange={(items) => onChange({ ...node, items })}
          />
        </div>
      )}
      {node.type === "object" && (
        <div className="schema-nested">
          <FieldList
            fields={node.fields}
            depth={depth + 1}
            problems={problems}
            onChange={(fields) => onChange({ ...node, fields })}
            addLabel="Add a field to this group"
          />
        </div>
      )}
      <KeptNote kept={node.kept} />
    </>
  );
}

/** Choices one per line; the text is kept as typed so a blank line can be added before it is filled. */
function ChoicesField({
  choices,
  error,
  onChange,
}: {
  choices: string[];
  error: string | undefined;
  onChange: (choices: string[]) => void;
}) {
  const [text, setText] = useState(choices.join("\n"));
  return (
    <FormField label="Choices" hint="One per line." error={error}>
      <textarea
        rows={Math.max(2, Math.min(8, text.split("\n").length))}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          onChange(
            event.target.value
              .split("\n")
              .map((line) => line.trim())
              .filter(Boolean)
              .map((line) => line.slice(0, MAX_LABEL_CHARS)),
          );
        }}
      />
    </FormField>
  );
}

/** Names the keywords the form keeps without showing them (format, minimum, title…). */
function KeptNote({ kept }: { kept: Record<string, unknown> }) {
  const names = Object.keys(kept).filter((name) => name !== "description");
  if (names.length === 0) return null;
  return (
    <p className="hint">
      Also kept as written (edit in JSON):{" "}
      {names.map((name, index) => (
        <span key={name}>
          {index > 0 && ", "}
          <code>{name}</code>
        </span>
      ))}
      .
    </p>
  );
}
