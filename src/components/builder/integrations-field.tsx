"use client";
// An agent's integrations: pick an MCP connection of the organization, then the tools of it the
// agent may call, from the tools its server lists now (a provider model is offered them).
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { CheckboxGroup, ErrorAlert, FormField, Panel, Select } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import type { McpConnection } from "@/schemas/org/integration";

interface Integration {
  toolkit: string;
  name: string;
  selectedTools: string[];
}

function ToolPicker({
  connection,
  integration,
  onChange,
}: {
  connection: McpConnection;
  integration: Integration;
  onChange: (selectedTools: string[]) => void;
}) {
  const trpc = useTRPC();
  const tools = useQuery(trpc.mcpConnections.tools.queryOptions({ connectionId: connection.id }, { retry: false }));
  const listed = tools.data?.tools.map((tool) => tool.name) ?? [];
  const descriptions = new Map(tools.data?.tools.map((tool) => [tool.name, tool.description]));
  // Tools picked earlier that the server no longer lists stay visible, so they can be unticked.
  const names = [...listed, ...integration.selectedTools.filter((name) => !listed.includes(name))];
  return (
    <CheckboxGroup
      legend={`Tools of ${connection.name} this agent may call`}
      legendClassName="muted"
      lead={
        <>
          {tools.isLoading && <p className="muted">Asking the server for its tools…</p>}
          <ErrorAlert error={tools.error} title="The server did not list its tools." />
        </>
      }
      choices={names.map((name) => ({
        value: name,
        label: (
          <>
            <code>{name}</code>
            {tools.data && !listed.includes(name) && <span className="muted"> (no longer listed)</span>}
            {descriptions.get(name) && <span className="muted"> {descriptions.get(name)}</span>}
          </>
        ),
      }))}
      value={integration.selectedTools}
      onChange={onChange}
    />
  );
}

export function IntegrationsField({
  value,
  onChange,
}: {
  value: Integration[];
  onChange: (integrations: Integration[]) => void;
}) {
  const trpc = useTRPC();
  const connections = useQuery(trpc.mcpConnections.list.queryOptions());
  const available =
    connections.data?.filter((connection) => !value.some((integration) => integration.toolkit === connection.slug)) ??
    [];
  const replace = (toolkit: string, change: Partial<Integration>) =>
    onChange(value.map((i) => (i.toolkit === toolkit ? { ...i, ...change } : i)));

  return (
    <Panel title="Integrations" label="Integrations" className="form">
      <ErrorAlert error={connections.error} />
      {connections.data?.length === 0 && (
        <p className="muted">
          No MCP servers are connected yet; admins add them under{" "}
          <Link href="/settings/integrations">Integrations</Link>.
        </p>
      )}
      {value.map((integration) => {
        const connection = connections.data?.find((c) => c.slug === integration.toolkit);
        return (
          <div key={integration.toolkit} className="list-editor" data-testid="attached-integration">
            <div className="row">
              <strong>{connection?.name ?? integration.name}</strong>
              <code className="muted">{integration.toolkit}</code>
              <button type="button" onClick={() => onChange(value.filter((i) => i.toolkit !== integration.toolkit))}>
                Detach
              </button>
            </div>
            {connection ? (
              <ToolPicker
                connection={connection}
                integration={integration}
                onChange={(selectedTools) => replace(integration.toolkit, { selectedTools })}
              />
            ) : (
              connections.data && <p className="muted">This connection was removed; detach it before publishing.</p>
            )}
          </div>
        );
      })}
      {available.length > 0 && (
        <FormField label="Add an integration">
          <Select
            value=""
            onChange={(e) => {
              const connection = available.find((c) => c.slug === e.target.value);
              if (connection)
                onChange([...value, { toolkit: connection.slug, name: connection.name, selectedTools: [] }]);
            }}
            options={available.map((connection) => ({ value: connection.slug, label: connection.name }))}
            placeholder="Choose an MCP connection…"
          />
        </FormField>
      )}
    </Panel>
  );
}
