"use client";
// The fields a model provider and an MCP connection share: the slug that names what agents call
// (set once), and the server's URL.
import { FormField } from "@/components/console";
import { MAX_SLUG_CHARS, MAX_URL_CHARS } from "@/schemas/limits";

/** The slug a new endpoint is named by in agents; it cannot change afterwards. */
export function SlugField({
  value,
  onChange,
  hint,
  placeholder,
}: {
  value: string;
  onChange: (slug: string) => void;
  hint: string;
  placeholder: string;
}) {
  return (
    <FormField label="Slug" hint={hint}>
      <input
        required
        maxLength={MAX_SLUG_CHARS}
        pattern="[a-z0-9][a-z0-9\-]*"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={placeholder}
      />
    </FormField>
  );
}

/** The server's address. */
export function EndpointUrlField({
  label,
  hint,
  required,
  value,
  onChange,
  placeholder,
}: {
  label: string;
  hint: string;
  required: boolean;
  value: string;
  onChange: (url: string) => void;
  placeholder: string;
}) {
  return (
    <FormField label={label} hint={hint}>
      <input
        type="url"
        required={required}
        maxLength={MAX_URL_CHARS}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={placeholder}
      />
    </FormField>
  );
}
