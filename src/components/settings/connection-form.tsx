"use client";
// Connecting an MCP server, or editing a connection: name, URL and the headers sent with every
// request. Header values are write-only: editing lists the stored names with empty values, and an
// empty value keeps the one stored under that name.
import { useMutation } from "@tanstack/react-query";
import { Plus, Trash2 } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Button, ErrorAlert, FormField, notifyDone, Panel } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import type { McpConnection } from "@/schemas/org/integration";
import { MAX_CREDENTIAL_CHARS, MAX_NAME_CHARS, MAX_SHORT_NAME_CHARS } from "@/schemas/limits";
import { EndpointUrlField, SlugField } from "./endpoint-fields";

interface HeaderRow {
  name: string;
  value: string;
  /** A value is stored under this name: an empty value keeps it. */
  stored: boolean;
}

/** The form for a new connection, or for `connection` when given; `onDone` runs after a save or a cancel. */
export function ConnectionForm({ connection, onDone }: { connection?: McpConnection; onDone: () => void }) {
  const trpc = useTRPC();
  const [slug, setSlug] = useState("");
  const [name, setName] = useState(connection?.name ?? "");
  const [url, setUrl] = useState(connection?.url ?? "");
  const [headers, setHeaders] = useState<HeaderRow[]>(
    (connection?.headerNames ?? []).map((headerName) => ({ name: headerName, value: "", stored: true })),
  );

  const saved = (result: McpConnection) => {
    notifyDone(connection ? `${result.name} was saved.` : `${result.name} was connected.`);
    setSlug("");
    setName("");
    setUrl("");
    setHeaders([]);
    onDone();
  };
  const create = useMutation(trpc.mcpConnections.create.mutationOptions({ onSuccess: saved }));
  const update = useMutation(trpc.mcpConnections.update.mutationOptions({ onSuccess: saved }));

  function submit(event: FormEvent) {
    event.preventDefault();
    const named = headers.filter((header) => header.name.trim() !== "");
    if (connection) {
      const kept = named.map((header) =>
        header.stored && header.value === "" ? { name: header.name } : { name: header.name, value: header.value },
      );
      update.mutate({ connectionId: connection.id, name: name || connection.slug, url, headers: kept });
    } else {
      create.mutate({
        slug,
        name: name || slug,
        url,
        headers: named.map((header) => ({ name: header.name, value: header.value })),
      });
    }
  }

  function setHeader(index: number, change: { name: string } | { value: string }) {
    const storedNames = (connection?.headerNames ?? []).map((headerName) => headerName.toLowerCase());
    // Whether a value is stored follows the name: a renamed header may have none.
    const stored = (row: HeaderRow) =>
      "name" in change ? storedNames.includes(change.name.trim().toLowerCase()) : row.stored;
    setHeaders(headers.map((row, i) => (i === index ? { ...row, ...change, stored: stored(row) } : row)));
  }

  const heading = connection ? `Edit ${connection.name}` : "Connect an MCP server";
  return (
    <Panel title={heading} headingId="connection-form-heading" onSubmit={submit}>
      {connection && (
        <p className="muted">
          Agents name its tools <code>{connection.slug}_&lt;tool&gt;</code>; the slug cannot change.
        </p>
      )}
      <div className="row">
        {!connection && (
          <SlugField
            value={slug}
            onChange={setSlug}
            hint="Names its tools in agents: <slug>_<tool>"
            placeholder="e.g. crm"
          />
        )}
        <FormField label="Name">
          <input
            maxLength={MAX_NAME_CHARS}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="e.g. CRM"
          />
        </FormField>
      </div>
      <EndpointUrlField
        label="URL"
        hint="The server's Streamable HTTP endpoint"
        required
        value={url}
        onChange={setUrl}
        placeholder="https://mcp.example.com/mcp"
      />
      <fieldset className="list-editor" style={{ border: 0, padding: 0 }}>
        <legend className="muted">
          Headers sent with every request (values are write-only
          {connection ? "; leave a stored value empty to keep it" : ""})
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
        {headers.length < 20 && (
          <div>
            <button type="button" onClick={() => setHeaders([...headers, { name: "", value: "", stored: false }])}>
              <Plus size={16} aria-hidden className="icon" />
              Add a header
            </button>
          </div>
        )}
      </fieldset>
      <ErrorAlert error={create.error ?? update.error} />
      <div className="row">
        <Button variant="primary" type="submit" disabled={create.isPending || update.isPending}>
          {connection ? "Save changes" : "Connect"}
        </Button>
        {connection && (
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
    </Panel>
  );
}
