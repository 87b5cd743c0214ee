"use client";
// Small form fields the builder editors share.
import { useState, type ReactNode, type Ref } from "react";
import { FormField } from "@/components/console";

export function TextField({
  label,
  value,
  onChange,
  placeholder,
  testId,
  inputRef,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  testId?: string;
  /** The input itself, for a caller that inserts text where the cursor is. */
  inputRef?: Ref<HTMLInputElement>;
}) {
  return (
    <FormField label={label}>
      <input
        ref={inputRef}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={placeholder}
        data-testid={testId}
      />
    </FormField>
  );
}

export function TextArea({
  label,
  value,
  onChange,
  rows = 3,
  placeholder,
  code,
  inputRef,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  rows?: number;
  placeholder?: string;
  code?: boolean;
  /** The textarea itself, for a caller that inserts text where the cursor is. */
  inputRef?: Ref<HTMLTextAreaElement>;
}) {
  return (
    <FormField label={label}>
      <textarea
        ref={inputRef}
        className={code ? "code" : undefined}
        rows={rows}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={placeholder}
      />
    </FormField>
  );
}

const toLines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

/** A list of strings edited as one per line; keeps the raw text so blank lines can be typed. */
export function LinesField({
  label,
  value,
  onChange,
  rows = 3,
}: {
  label: string;
  value: string[];
  onChange: (value: string[]) => void;
  rows?: number;
}) {
  const [text, setText] = useState(value.join("\n"));
  // A value changed from outside (a reload, an undo) replaces the text; one that only echoes what
  // was typed keeps it, blank lines and all.
  const [echoed, setEchoed] = useState(value);
  if (echoed !== value) {
    setEchoed(value);
    if (JSON.stringify(toLines(text)) !== JSON.stringify(value)) setText(value.join("\n"));
  }
  return (
    <FormField label={`${label} (one per line)`}>
      <textarea
        rows={rows}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          onChange(toLines(e.target.value));
        }}
      />
    </FormField>
  );
}

/** Editable `{id, label}` questions. */
export function QuestionsField({
  value,
  onChange,
}: {
  value: { id: string; label: string }[];
  onChange: (value: { id: string; label: string }[]) => void;
}) {
  return (
    <fieldset style={{ border: 0, padding: 0 }}>
      <legend className="muted">Questions</legend>
      <div className="list-editor">
        {value.map((question, index) => (
          <div className="row" key={index}>
            <input
              aria-label={`Question ${index + 1} id`}
              value={question.id}
              onChange={(e) => onChange(value.map((q, i) => (i === index ? { ...q, id: e.target.value } : q)))}
              style={{ width: "8rem" }}
            />
            <input
              aria-label={`Question ${index + 1} label`}
              value={question.label}
              onChange={(e) => onChange(value.map((q, i) => (i === index ? { ...q, label: e.target.value } : q)))}
              style={{ flex: 1 }}
            />
            <button type="button" onClick={() => onChange(value.filter((_, i) => i !== index))}>
              Remove
            </button>
          </div>
        ))}
        <div>
          <button type="button" onClick={() => onChange([...value, { id: `q${value.length + 1}`, label: "" }])}>
            Add question
          </button>
        </div>
      </div>
    </fieldset>
  );
}

/**
 * A section of an editor that folds: its title and, folded, a one-line summary of what it holds,
 * so a long editor can be read at a glance and opened where the work is.
 */
export function Section({
  title,
  summary,
  defaultOpen = true,
  children,
  label,
}: {
  title: string;
  summary?: string;
  defaultOpen?: boolean;
  children: ReactNode;
  label?: string;
}) {
  const [open, setOpen] = useState(defaultOpen);
  return (
    <details
      className="panel form section"
      open={open}
      onToggle={(event) => setOpen((event.target as HTMLDetailsElement).open)}
      aria-label={label ?? title}
    >
      <summary>
        <h2>{title}</h2>
        {!open && summary ? <span className="section-summary">{summary}</span> : null}
      </summary>
      {children}
    </details>
  );
}
