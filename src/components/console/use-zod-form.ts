"use client";
import { zodResolver } from "@hookform/resolvers/zod";
import { get, useForm, type FieldPath, type FieldValues, type UseFormProps, type UseFormReturn } from "react-hook-form";
import type { z } from "zod";

/**
 * A form checked against the same zod schema its API reads (src/schemas): a value the API
 * would refuse is shown beside its field before anything is sent, and `handleSubmit` hands the
 * parsed values (the schema's output) to the mutation.
 */
export function useZodForm<Schema extends z.ZodType<FieldValues, FieldValues>>(
  schema: Schema,
  options: Omit<UseFormProps<z.input<Schema>, unknown, z.output<Schema>>, "resolver"> = {},
): UseFormReturn<z.input<Schema>, unknown, z.output<Schema>> {
  return useForm<z.input<Schema>, unknown, z.output<Schema>>({ ...options, resolver: zodResolver(schema) });
}

/** A field's problem for its FormField's `error`, or nothing. */
export function fieldProblem<Values extends FieldValues>(
  form: Pick<UseFormReturn<Values, unknown, FieldValues>, "formState">,
  name: FieldPath<Values>,
): string | null {
  const message = (get(form.formState.errors, name) as { message?: unknown } | undefined)?.message;
  return typeof message === "string" ? message : null;
}
