"use client";
// Connecting an MCP server, or editing a connection: name, URL and the headers sent with every
// request. Header values are write-only: editing lists the stored names with empty values, and an
// empty value keeps the one stored under that name.
import { useMutation } from "@tanstack/react-query";
import { Plus, Trash2 } from "lucide-react";
import type { FormEvent, ReactNode } from "react";
import type { UseFormRegister } from "react-hook-form";
import {
  Button,
  ErrorAlert,
  fieldProblem,
  FormField,
  notifyDone,
  Panel,
  useFieldValue,
  useZodForm,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { CreateMcpConnectionInput, UpdateMcpConnectionInput, type McpConnection } from "@/schemas/org/integration";
import { MAX_CREDENTIAL_CHARS, MAX_NAME_CHARS, MAX_SHORT_NAME_CHARS } from "@/schemas/limits";
import { EndpointUrlField, SlugField } from "./endpoint-fields";

interface HeaderRow {
  name: string;
  value: string;
  /** A value is stored under this name: an empty value keeps it. */
  stored: boolean;
}

/** The form as typed: the API's fields, each header a row that knows whether a value is stored. */
interface ConnectionFields {
  slug: string;
  name: string;
  url: string;
  headers: HeaderRow[];
}

/** Where a problem of the input shows: a header's under the headers, the rest beside their field. */
function connectionField(path: readonly PropertyKey[]): keyof ConnectionFields | null {
  const [field] = path;
  return field === "slug" || field === "name" || field === "url" || field === "headers" ? field : null;
}

const named = (headers: HeaderRow[]) => headers.filter((header) => header.name.trim() !== "");

/** The form for a new connection, or for `connection` when given; `onDone` runs after a save or a cancel. */
export function ConnectionForm({ connection, onDone }: { connection?: McpConnection; onDone: () => void }) {
  return connection ? (
    <EditConnectionForm connection={connection} onDone={onDone} />
  ) : (
    <NewConnectionForm onDone={onDone} />
  );
}

function NewConnectionForm({ onDone }: { onDone: () => void }) {
  const trpc = useTRPC();
  const form = useZodForm(CreateMcpConnectionInput, {
    defaultValues: { slug: "", name: "", url: "", headers: [] },
    asInput: (fields: ConnectionFields) => ({
      slug: fields.slug,
      name: fields.name || fields.slug,
      url: fields.url,
      headers: named(fields.headers).map((header) => ({ name: header.name, value: header.value })),
    }),
    fieldOf: connectionField,
  });
  const create = useMutation(
    trpc.mcpConnections.create.mutationOptions({
      onSuccess: (result) => {
        notifyDone(`${result.name} was connected.`);
        form.reset();
        onDone();
      },
    }),
  );
  const [headers, setHeaders] = useFieldValue(form, "headers");
  const submit = form.handleSubmit((input) => create.mutate(input));
  return (
    <ConnectionPanel
      heading="Connect an MCP server"
      submit={submit}
      register={form.register}
      headers={headers}
      setHeaders={setHeaders}
      problem={(field) => fieldProblem(form, field)}
      storedNames={[]}
      slugField={
        <SlugField
          registration={form.register("slug")}
          error={fieldProblem(form, "slug")}
          hint="Names its tools in agents: <slug>_<tool>"
          placeholder="e.g. crm"
        />
      }
      error={fieldProblem(form, "root") ?? create.error}
      pending={create.isPending}
      submitLabel="Connect"
    />
  );
}

function EditConnectionForm({ connection, onDone }: { connection: McpConnection; onDone: () => void }) {
  const trpc = useTRPC();
  const form = useZodForm(UpdateMcpConnectionInput, {
    defaultValues: {
      slug: connection.slug,
      name: connection.name,
      url: connection.url,
      headers: connection.headerNames.map((headerName) => ({ name: headerName, value: "", stored: true })),
    },
    asInput: (fields: ConnectionFields) => ({
      connectionId: connection.id,
      name: fields.name || connection.slug,
      url: fields.url,
      // A stored header left empty keeps its value.
      headers: named(fields.headers).map((header) =>
        header.stored && header.value === "" ? { name: header.name } : { name: header.name, value: header.value },
      ),
    }),
    fieldOf: connectionField,
  });
  const update = useMutation(
    trpc.mcpConnections.update.mutationOptions({
      onSuccess: (result) => {
        notifyDone(`${result.name} was saved.`);
        onDone();
      },
    }),
  );
  const [headers, setHeaders] = useFieldValue(form, "headers");
  const submit = form.handleSubmit((input) => update.mutate(input));
  return (
    <ConnectionPanel
      heading={`Edit ${connection.name}`}
      submit={submit}
      register={form.register}
      headers={headers}
      setHeaders={setHeaders}
      problem={(field) => fieldProblem(form, field)}
      storedNames={connection.headerNames}
      intro={
        <p className="muted">
          Agents name its tools <code>{connection.slug}_&lt;tool&gt;</code>; the slug cannot change.
        </p>
      }
      error={fieldProblem(form, "root") ?? update.error}
      pending={update.isPending}
      submitLabel="Save changes"
      onCancel={onDone}
    />
  );
}

/** What a new and an edited connection share: the panel, name, URL, the headers and the actions. */
function ConnectionPanel({
  heading,
  submit,
  register,
  headers,
  setHeaders,
  problem,
  storedNames,
  intro,
  slugField,
  error,
  pending,
  submitLabel,
  onCancel,
}: {
  heading: string;
  /** The form's handleSubmit over its own schema. */
  submit: (event: FormEvent<HTMLFormElement>) => Promise<void>;
  register: UseFormRegister<ConnectionFields>;
  headers: HeaderRow[];
  setHeaders: (rows: HeaderRow[]) => void;
  /** A field's problem, for beside it. */
  problem: (field: keyof ConnectionFields) => string | null;
  /** The names a value is stored under (an edit). */
  storedNames: string[];
  intro?: ReactNode;
  slugField?: ReactNode;
  error: unknown;
  pending: boolean;
  submitLabel: string;
  onCancel?: () => void;
}) {
  const editing = !slugField;

  function setHeader(index: number, change: { name: string } | { value: string }) {
    const stored = storedNames.map((headerName) => headerName.toLowerCase());
    // Whether a value is stored follows the name: a renamed header may have none.
    const isStored = (row: HeaderRow) =>
      "name" in change ? stored.includes(change.name.trim().toLowerCase()) : row.stored;
    setHeaders(headers.map((row, i) => (i === index ? { ...row, ...change, stored: isStored(row) } : row)));
  }

  return (
    <Panel title={heading} headingId="connection-form-heading" onSubmit={(event) => void submit(event)}>
      {intro}
      <div className="row">
        {slugField}
        <FormField label="Name" error={problem("name")}>
          <input maxLength={MAX_NAME_CHARS} placeholder="e.g. CRM" {...register("name")} />
        </FormField>
      </div>
      <EndpointUrlField
        label="URL"
        hint="The server's Streamable HTTP endpoint"
        required
        registration={register("url")}
        error={problem("url")}
        placeholder="https://mcp.example.com/mcp"
      />
      <fieldset className="list-editor" style={{ border: 0, padding: 0 }}>
        <legend className="muted">
          Headers sent with every request (values are write-only
          {editing ? "; leave a stored value empty to keep it" : ""})
        </legend>
        {headers.map((header, index) => (
          <div className="row" key={index} data-testid="header-row">
            <FormField label={`Header ${index + 1} name`}>
              <input
                required
                maxLength={MAX_SHORT_NAME_CHARS}
                value={header.name}
                onChange={(e) => setHeader(index, { name: e.target.value })}
                placeholder="Authorization"
              />
            </FormField>
            <FormField label={`Header ${index + 1} value`} hint={header.stored ? "Stored; empty keeps it" : undefined}>
              <input
                type="password"
                autoComplete="off"
                required={!header.stored}
                maxLength={MAX_CREDENTIAL_CHARS}
                value={header.value}
                onChange={(e) => setHeader(index, { value: e.target.value })}
              />
            </FormField>
            <button
              type="button"
              onClick={() => setHeaders(headers.filter((_, i) => i !== index))}
              aria-label={`Remove header ${index + 1}`}
            >
              <Trash2 size={16} aria-hidden className="icon" />
            </button>
          </div>
        ))}
        {problem("headers") && <p className="field-error">{problem("headers")}</p>}
        {headers.length < 20 && (
          <div>
            <button type="button" onClick={() => setHeaders([...headers, { name: "", value: "", stored: false }])}>
              <Plus size={16} aria-hidden className="icon" />
              Add a header
            </button>
          </div>
        )}
      </fieldset>
      <ErrorAlert error={error} />
      <div className="row">
        <Button variant="primary" type="submit" disabled={pending}>
          {submitLabel}
        </Button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </Panel>
  );
}
