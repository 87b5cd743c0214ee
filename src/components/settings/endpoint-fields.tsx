"use client";
// The fields a model provider and an MCP connection share: the slug that names what agents call
// (set once), and the server's URL. Each takes its form's `register(name)` and its problem.
import type { UseFormRegisterReturn } from "react-hook-form";
import { FormField } from "@/components/console";
import { MAX_SLUG_CHARS, MAX_URL_CHARS } from "@/schemas/limits";

/** The slug a new endpoint is named by in agents; it cannot change afterwards. */
export function SlugField({
  registration,
  error,
  hint,
  placeholder,
}: {
  registration: UseFormRegisterReturn;
  error: string | null;
  hint: string;
  placeholder: string;
}) {
  return (
    <FormField label="Slug" hint={hint} error={error}>
      <input
        required
        maxLength={MAX_SLUG_CHARS}
        pattern="[a-z0-9][a-z0-9\-]*"
        placeholder={placeholder}
        {...registration}
      />
    </FormField>
  );
}

/** The server's address. */
export function EndpointUrlField({
  label,
  hint,
  required,
  registration,
  error,
  placeholder,
}: {
  label: string;
  hint: string;
  required: boolean;
  registration: UseFormRegisterReturn;
  error: string | null;
  placeholder: string;
}) {
  return (
    <FormField label={label} hint={hint} error={error}>
      <input type="url" required={required} maxLength={MAX_URL_CHARS} placeholder={placeholder} {...registration} />
    </FormField>
  );
}
