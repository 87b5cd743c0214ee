"use client";
// Organization › Integrations: the organization's MCP server connections. Admins add them (URL and
// headers, whose values are write-only) and remove them; anyone who builds agents lists a
// connection's tools here and picks them in the agent editor.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ListTree, Plus, Trash2 } from "lucide-react";
import { useRouter, useSearchParams } from "next/navigation";
import { Suspense, useState, type FormEvent } from "react";
import { ConfirmButton, CopyButton, DataTable, ErrorAlert, FormField, notifyDone, PageHeader } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { roleAtLeast } from "@/schemas/auth";
import type { McpConnection } from "@/schemas/integration";

interface HeaderRow {
  name: string;
  value: string;
}

function ConnectionTools({ connection }: { connection: McpConnection }) {
  const trpc = useTRPC();
  const tools = useQuery(trpc.mcpConnections.tools.queryOptions({ connectionId: connection.id }, { retry: false }));
  return (
    <section className="panel">
      <h2 style={{ marginTop: 0 }}>Tools of {connection.name}</h2>
      {tools.isLoading && <p className="muted">Asking the server for its tools…</p>}
      <ErrorAlert error={tools.error} title="The server did not list its tools." />
      {tools.data?.truncated && <p className="muted">The server offers more tools than Atrium reads (100), or some it cannot use; those are not shown.</p>}
      <DataTable
        label={`Tools of ${connection.name}`}
        rows={tools.data?.tools}
        rowKey={(tool) => tool.name}
        rowTestId="tool-row"
        empty="This server lists no tools."
        columns={[
          { key: "name", header: "Tool", sortValue: (tool) => tool.name, cell: (tool) => <code>{tool.name}</code> },
          { key: "description", header: "Description", cell: (tool) => tool.description || <span className="muted">No description</span> },
        ]}
      />
    </section>
  );
}

export default function IntegrationsPage() {
  return (
    <Suspense fallback={<p className="muted">Loading…</p>}>
      <Integrations />
    </Suspense>
  );
}

function Integrations() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const params = useSearchParams();
  const me = useQuery(trpc.auth.me.queryOptions());
  const connections = useQuery(trpc.mcpConnections.list.queryOptions());
  const isAdmin = !!me.data && roleAtLeast(me.data.member.role, "admin");
  // The connection whose tools are shown lives in the URL, so reload and back keep it.
  const shown = connections.data?.find((connection) => connection.slug === params.get("tools"));

  const [slug, setSlug] = useState("");
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [headers, setHeaders] = useState<HeaderRow[]>([]);

  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.mcpConnections.list.queryKey() });
  const create = useMutation(
    trpc.mcpConnections.create.mutationOptions({
      onSuccess: (connection) => {
        notifyDone(`${connection.name} was connected.`);
        setSlug("");
        setName("");
        setUrl("");
        setHeaders([]);
        void refresh();
      },
    }),
  );
  const remove = useMutation(
    trpc.mcpConnections.remove.mutationOptions({
      onSuccess: (connection) => {
        notifyDone(`${connection.name} was removed.`);
        if (shown?.id === connection.id) router.replace("/settings/integrations");
        void refresh();
      },
    }),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ slug, name: name || slug, url, headers: headers.filter((header) => header.name.trim() !== "") });
  }

  function setHeader(index: number, change: Partial<HeaderRow>) {
    setHeaders(headers.map((header, i) => (i === index ? { ...header, ...change } : header)));
  }

  return (
    <>
      <PageHeader
        title="Integrations"
        description="MCP servers whose tools this organization's agents may call. Header values (tokens, keys) are stored encrypted and never shown again."
      />
      <ErrorAlert error={create.error ?? remove.error ?? connections.error} />

      {isAdmin && (
        <form className="panel form" onSubmit={submit} aria-labelledby="add-heading">
          <h2 id="add-heading" style={{ marginTop: 0 }}>
            Connect an MCP server
          </h2>
          <div className="row">
            <FormField label="Slug" hint="Names its tools in agents: <slug>_<tool>">
              <input required maxLength={40} pattern="[a-z0-9][a-z0-9\-]*" value={slug} onChange={(e) => setSlug(e.target.value)} placeholder="e.g. crm" />
            </FormField>
            <FormField label="Name">
              <input maxLength={200} value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. CRM" />
            </FormField>
          </div>
          <FormField label="URL" hint="The server's Streamable HTTP endpoint">
            <input type="url" required maxLength={2000} value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://mcp.example.com/mcp" />
          </FormField>
          <fieldset className="list-editor" style={{ border: 0, padding: 0 }}>
            <legend className="muted">Headers sent with every request (values are write-only)</legend>
            {headers.map((header, index) => (
              <div className="row" key={index} data-testid="header-row">
                <FormField label={`Header ${index + 1} name`}>
                  <input required maxLength={100} value={header.name} onChange={(e) => setHeader(index, { name: e.target.value })} placeholder="Authorization" />
                </FormField>
                <FormField label={`Header ${index + 1} value`}>
                  <input type="password" autoComplete="off" required maxLength={4000} value={header.value} onChange={(e) => setHeader(index, { value: e.target.value })} />
                </FormField>
                <button type="button" onClick={() => setHeaders(headers.filter((_, i) => i !== index))} aria-label={`Remove header ${index + 1}`}>
                  <Trash2 size={16} aria-hidden className="icon" />
                </button>
              </div>
            ))}
            {headers.length < 20 && (
              <div>
                <button type="button" onClick={() => setHeaders([...headers, { name: "", value: "" }])}>
                  <Plus size={16} aria-hidden className="icon" />
                  Add a header
                </button>
              </div>
            )}
          </fieldset>
          <div>
            <button className="primary" type="submit" disabled={create.isPending}>
              Connect
            </button>
          </div>
        </form>
      )}

      <div className="panel">
        <DataTable
          label="MCP connections"
          rows={connections.data}
          rowKey={(connection) => connection.id}
          rowTestId="connection-row"
          empty="No MCP servers connected yet."
          columns={[
            {
              key: "name",
              header: "Name",
              sortValue: (connection) => connection.name,
              nowrap: true,
              cell: (connection) => (
                <>
                  {connection.name}
                  <div className="muted">
                    <code>{connection.slug}</code>
                  </div>
                </>
              ),
            },
            { key: "url", header: "URL", nowrap: true, cell: (connection) => <code>{connection.url}</code> },
            {
              key: "headers",
              header: "Headers",
              nowrap: true,
              cell: (connection) => (connection.headerNames.length ? connection.headerNames.join(", ") : <span className="muted">none</span>),
            },
            {
              key: "actions",
              header: <span className="visually-hidden">Actions</span>,
              nowrap: true,
              cell: (connection) => (
                <span className="row">
                  <CopyButton text={connection.id} label="Copy id" />
                  <button
                    type="button"
                    onClick={() => router.replace(`/settings/integrations?tools=${encodeURIComponent(connection.slug)}`)}
                    aria-pressed={shown?.id === connection.id}
                  >
                    <ListTree size={16} aria-hidden className="icon" />
                    List tools
                  </button>
                  {isAdmin && (
                    <ConfirmButton
                      label="Remove"
                      title={`Remove the connection ${connection.name}?`}
                      description="Agents that use its tools stop being offered them; publishing such an agent is refused until its integrations are changed."
                      onConfirm={() => remove.mutate({ connectionId: connection.id })}
                    />
                  )}
                </span>
              ),
            },
          ]}
        />
      </div>
      {shown && <ConnectionTools key={shown.id} connection={shown} />}
    </>
  );
}
