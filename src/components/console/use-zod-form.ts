"use client";
import { zodResolver } from "@hookform/resolvers/zod";
import {
  get,
  useForm,
  useWatch,
  type FieldPath,
  type FieldPathValue,
  type FieldErrors,
  type FieldValues,
  type Resolver,
  type UseFormProps,
  type UseFormReturn,
} from "react-hook-form";
import type { z } from "zod";

/**
 * A schema problem in the console's words: a text's bound says the bound and the text's length
 * ("Too long: at most 200 characters (this has 201)."); anything else keeps the schema's message.
 */
function consoleWording(issue: z.core.$ZodRawIssue<z.core.$ZodIssue>): string | undefined {
  if (issue.code === "too_big" && issue.origin === "string") {
    const length = typeof issue.input === "string" ? issue.input.length : 0;
    return `Too long: at most ${Number(issue.maximum).toLocaleString()} characters (this has ${length.toLocaleString()}).`;
  }
  if (issue.code === "too_small" && issue.origin === "string")
    return Number(issue.minimum) <= 1 ? "Cannot be empty." : `Too short: at least ${Number(issue.minimum)} characters.`;
  return undefined;
}

/** A form whose fields are typed otherwise than the API takes them (a list as comma-separated text). */
interface TypedOtherwise<Schema extends z.ZodType, Values extends FieldValues> {
  /** The API's input from the fields as typed; the schema checks it. */
  asInput: (values: Values) => z.input<Schema>;
  /** The field a problem of the input (its path) is shown beside; unnamed ones go to `root`. */
  fieldOf?: (path: readonly PropertyKey[]) => FieldPath<NoInfer<Values>> | null;
}

/**
 * A form checked against the same zod schema its API reads (src/schemas): a value the API
 * would refuse is shown beside its field before anything is sent, and `handleSubmit` hands the
 * parsed values (the schema's output) to the mutation. With `asInput`, the fields are the form's
 * own (texts, a switch) and the API's input is made from them before the schema checks it.
 */
export function useZodForm<Schema extends z.ZodType<FieldValues, FieldValues>>(
  schema: Schema,
  options?: Omit<UseFormProps<z.input<Schema>, unknown, z.output<Schema>>, "resolver">,
): UseFormReturn<z.input<Schema>, unknown, z.output<Schema>>;
export function useZodForm<Schema extends z.ZodType<FieldValues, FieldValues>, Values extends FieldValues>(
  schema: Schema,
  // The fields' type is `asInput`'s parameter's; the default values are checked against it.
  options: Omit<UseFormProps<NoInfer<Values>, unknown, z.output<Schema>>, "resolver"> & TypedOtherwise<Schema, Values>,
): UseFormReturn<Values, unknown, z.output<Schema>>;
export function useZodForm<Schema extends z.ZodType<FieldValues, FieldValues>, Values extends FieldValues>(
  schema: Schema,
  options: Omit<UseFormProps<Values, unknown, z.output<Schema>>, "resolver"> &
    Partial<TypedOtherwise<Schema, Values>> = {},
): UseFormReturn<Values, unknown, z.output<Schema>> {
  const { asInput, fieldOf, ...formOptions } = options;
  const resolver: Resolver<Values, unknown, z.output<Schema>> = asInput
    ? async (values) => {
        const parsed = await schema.safeParseAsync(asInput(values), { error: consoleWording });
        if (parsed.success) return { values: parsed.data, errors: {} };
        const errors: Record<string, unknown> = {};
        for (const issue of parsed.error.issues) placeOnce(errors, fieldOf?.(issue.path) ?? "root", issueError(issue));
        return { values: {}, errors: errors as FieldErrors<Values> };
      }
    : (zodResolver(schema, { error: consoleWording }) as unknown as Resolver<Values, unknown, z.output<Schema>>);
  return useForm<Values, unknown, z.output<Schema>>({ ...formOptions, resolver });
}

/** A field's label from its schema key ("systemInstruction" → "System instruction"). */
function fieldLabel(path: readonly PropertyKey[]): string {
  const words = String(path[0] ?? "")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * What `schema` refuses in `value`, in the console's words and each led by its field's label
 * ("Name: Cannot be empty."), for a form that saves as it is edited rather than on submit.
 */
export function schemaProblems(schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value, { error: consoleWording });
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) =>
    issue.path.length > 0 ? `${fieldLabel(issue.path)}: ${issue.message}` : issue.message,
  );
}

function issueError(issue: z.core.$ZodIssue) {
  return { type: issue.code, message: issue.message };
}

/** Puts `error` at a dotted field path ("details.price") unless that field has one already. */
function placeOnce(errors: Record<string, unknown>, field: string, error: object) {
  const [head, ...rest] = field.split(".");
  if (rest.length === 0) errors[head!] ??= error;
  else placeOnce((errors[head!] ??= {}) as Record<string, unknown>, rest.join("."), error);
}

/**
 * A field's problem for its FormField's `error`, or nothing. A list field with a problem in one
 * of its items (the third model id) shows that item's.
 */
export function fieldProblem<Values extends FieldValues>(
  form: Pick<UseFormReturn<Values, unknown, FieldValues>, "formState">,
  name: FieldPath<Values> | "root",
): string | null {
  return firstMessage(get(form.formState.errors, name));
}

function firstMessage(error: unknown): string | null {
  if (!error || typeof error !== "object") return null;
  const { message } = error as { message?: unknown };
  if (typeof message === "string") return message;
  for (const [key, inner] of Object.entries(error)) {
    if (key === "ref") continue;
    const found = firstMessage(inner);
    if (found) return found;
  }
  return null;
}

/**
 * A field whose control is not a native input (a RadioGroup, a CheckboxGroup, a picker): its
 * value and a setter, as `useState` gives, kept in the form. After a first submit a change is
 * checked again at once, as a registered input is.
 */
export function useFieldValue<Values extends FieldValues, Output, Name extends FieldPath<Values>>(
  form: UseFormReturn<Values, unknown, Output>,
  name: Name,
): [FieldPathValue<Values, Name>, (value: FieldPathValue<Values, Name>) => void] {
  const value = useWatch({ control: form.control, name });
  const set = (next: FieldPathValue<Values, Name>) =>
    form.setValue(name, next, { shouldDirty: true, shouldValidate: form.formState.isSubmitted });
  return [value, set];
}
