"use client";
// A JSON value edited as text: the text is kept while it does not parse (the error says why,
// beside the field), and the value changes only when it does. Empty text clears the value.
import { useState } from "react";
import { FormField } from "@/components/console";

const shown = (value: unknown) => (value === undefined ? "" : JSON.stringify(value, null, 2));

export function JsonField({
  label,
  value,
  onChange,
  hint,
  rows = 3,
}: {
  label: string;
  value: unknown;
  onChange: (value: unknown) => void;
  hint?: string;
  rows?: number;
}) {
  const [text, setText] = useState(() => shown(value));
  const [error, setError] = useState<string | null>(null);
  // Another edit (undo, say) changed the value: show it, unless the text already means it.
  const [seen, setSeen] = useState(value);
  if (seen !== value) {
    setSeen(value);
    if (!sameJson(text, value)) {
      setText(shown(value));
      setError(null);
    }
  }
  return (
    <FormField label={label} hint={hint} error={error}>
      <textarea
        className="code"
        rows={rows}
        spellCheck={false}
        value={text}
        onChange={(event) => {
          const next = event.target.value;
          setText(next);
          if (next.trim() === "") {
            setError(null);
            onChange(undefined);
            return;
          }
          try {
            const parsed: unknown = JSON.parse(next);
            setError(null);
            onChange(parsed);
          } catch (problem) {
            setError(`Not JSON yet: ${(problem as Error).message}`);
          }
        }}
      />
    </FormField>
  );
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return text.trim() === "" && value === undefined;
  }
}
