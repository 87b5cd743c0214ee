"use client";
import type { ReactNode } from "react";
import type { z } from "zod";
import { FormField } from "./form-field";
import { FormActions, Panel } from "./panel";
import { fieldProblem, useZodForm } from "./use-zod-form";
import { MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS } from "@/schemas/limits";

type Named = { name: string; description?: string };

/** What the panel needs of a create mutation (TanStack's useMutation result fits). */
interface CreateCall<Input> {
  mutate: (input: Input, options?: { onSuccess?: () => void }) => void;
  isPending: boolean;
  error: unknown;
}

/**
 * A panel that creates an item from its name (and, with `describe`, a description), checked
 * against the API's own create schema; the fields empty again once the item is created.
 */
export function CreateNamedItemPanel({
  schema,
  create,
  label,
  title,
  submitLabel,
  describe = false,
  fieldsInRow = false,
  className,
}: {
  /** The create procedure's input schema (src/schemas), e.g. CreateUserGroupInput. */
  schema: z.ZodType<Named, Named>;
  create: CreateCall<Named>;
  /** The form's accessible name ("Create a user group"). */
  label: string;
  title?: string;
  submitLabel: string;
  describe?: boolean;
  /** Name and description side by side. */
  fieldsInRow?: boolean;
  className?: string;
}) {
  const form = useZodForm(schema, { defaultValues: describe ? { name: "", description: "" } : { name: "" } });
  const submit = form.handleSubmit((input) => create.mutate(input, { onSuccess: () => form.reset() }));
  const fields: ReactNode = (
    <>
      <FormField label="Name" error={fieldProblem(form, "name")}>
        <input required maxLength={MAX_NAME_CHARS} {...form.register("name")} />
      </FormField>
      {describe && (
        <FormField label="Description" error={fieldProblem(form, "description")}>
          <input maxLength={MAX_DESCRIPTION_CHARS} {...form.register("description")} />
        </FormField>
      )}
    </>
  );
  return (
    <Panel title={title} label={label} onSubmit={(event) => void submit(event)} className={className}>
      {fieldsInRow ? <div className="row">{fields}</div> : fields}
      <FormActions error={create.error} submitLabel={submitLabel} pending={create.isPending} />
    </Panel>
  );
}
