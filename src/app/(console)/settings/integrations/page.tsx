"use client";
// Organization › Integrations: the organization's MCP server connections. Admins add and edit them
// with ConnectionForm (URL and headers, whose values are write-only) and remove them; anyone who
// builds agents lists a connection's tools here and picks them in the agent editor. The
// connection being edited and the one whose tools are shown live in the URL.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ListTree } from "lucide-react";
import {
  ConfirmButton,
  CopyButton,
  DataTable,
  EditButton,
  ErrorAlert,
  NAME_COLUMN,
  NameWithCode,
  notifyDone,
  PageHeader,
  Panel,
  useMay,
  urlStatePage,
  useUrlState,
} from "@/components/console";
import { ConnectionForm } from "@/components/settings/connection-form";
import { useTRPC } from "@/lib/trpc";
import type { McpConnection } from "@/schemas/org/integration";

function ConnectionTools({ connection }: { connection: McpConnection }) {
  const trpc = useTRPC();
  const tools = useQuery(trpc.mcpConnections.tools.queryOptions({ connectionId: connection.id }, { retry: false }));
  return (
    <Panel title={<>Tools of {connection.name}</>}>
      {tools.isLoading && <p className="muted">Asking the server for its tools…</p>}
      <ErrorAlert error={tools.error} title="The server did not list its tools." />
      {tools.data?.truncated && (
        <p className="muted">
          The server offers more tools than Atrium reads (100), or some it cannot use; those are not shown.
        </p>
      )}
      <DataTable
        label={`Tools of ${connection.name}, table`}
        rows={tools.data?.tools}
        rowKey={(tool) => tool.name}
        rowTestId="tool-row"
        empty="This server lists no tools."
        columns={[
          { key: "name", header: "Tool", sortValue: (tool) => tool.name, cell: (tool) => <code>{tool.name}</code> },
          {
            key: "description",
            header: "Description",
            cell: (tool) => tool.description || <span className="muted">No description</span>,
          },
        ]}
      />
    </Panel>
  );
}

export default urlStatePage(Integrations);

function Integrations() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const url = useUrlState();
  const connections = useQuery(trpc.mcpConnections.list.queryOptions());
  const mayChangeSettings = useMay("settings");
  // The connection whose tools are shown, and the one being edited, live in the URL, so reload and back keep them.
  const shown = connections.data?.find((connection) => connection.slug === url.get("tools"));
  const editing = connections.data?.find((connection) => connection.slug === url.get("edit"));

  // The list and every tool list: an edited connection's server may list other tools.
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.mcpConnections.pathKey() });
  const remove = useMutation(
    trpc.mcpConnections.remove.mutationOptions({
      onSuccess: (connection) => {
        notifyDone(`${connection.name} was removed.`);
        if (shown?.id === connection.id || editing?.id === connection.id) url.show({});
        void refresh();
      },
    }),
  );
  const closeEditor = () => {
    url.show(shown ? { tools: shown.slug } : {});
    void refresh();
  };

  return (
    <>
      <PageHeader
        title="Integrations"
        description="MCP servers whose tools this organization's agents may call. Header values (tokens, keys) are stored encrypted and never shown again."
      />
      <ErrorAlert error={remove.error ?? connections.error} />

      {mayChangeSettings &&
        (editing ? (
          <ConnectionForm key={editing.id} connection={editing} onDone={closeEditor} />
        ) : (
          <ConnectionForm onDone={() => void refresh()} />
        ))}

      <Panel>
        <DataTable
          label="MCP connections"
          rows={connections.data}
          rowTestId="connection-row"
          empty="No MCP servers connected yet: connect one above, then give its tools to an agent."
          columns={[
            {
              ...NAME_COLUMN,
              nowrap: true,
              cell: (connection) => <NameWithCode name={connection.name} code={connection.slug} />,
            },
            { key: "url", header: "URL", nowrap: true, cell: (connection) => <code>{connection.url}</code> },
            {
              key: "headers",
              header: "Headers",
              nowrap: true,
              cell: (connection) =>
                connection.headerNames.length ? connection.headerNames.join(", ") : <span className="muted">none</span>,
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
                    onClick={() => url.show({ tools: connection.slug })}
                    aria-pressed={shown?.id === connection.id}
                  >
                    <ListTree size={16} aria-hidden className="icon" />
                    List tools
                  </button>
                  {mayChangeSettings && (
                    <EditButton
                      editing={editing?.id === connection.id}
                      onClick={() => url.show({ edit: connection.slug })}
                    />
                  )}
                  {mayChangeSettings && (
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
      </Panel>
      {shown && <ConnectionTools key={shown.id} connection={shown} />}
    </>
  );
}
