"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Fragment, useState } from "react";
import { useBrowserOrigin } from "@/lib/browser";
import {
  CopyableValue,
  CopyButton,
  DataTable,
  ErrorAlert,
  FormField,
  NAME_COLUMN,
  PageHeader,
  Panel,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { MCP_ROUTE, MCP_SCOPES, mcpSnippets, mcpUrl } from "@/lib/mcp-snippets";
import { timeOrNever } from "@/lib/when";
import type { ApiKey } from "@/schemas/identity/api-key";

const TOOLS: [string, string][] = [
  ["list_knowledgebases, get_knowledgebase", "browse knowledgebases and their page index"],
  ["search_knowledgebase", "full-text search of pages and documents"],
  ["get_page", "read a page's markdown"],
  ["create_page, edit_page, move_page", "write pages (patch operations), under the same review rules as the API"],
  ["add_source", "add a document from text or a URL"],
  ["list_apps, converse_with_app", "talk to published apps, continuing with conversation_id"],
];

export default function McpPage() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const keys = useQuery(trpc.apiKeys.list.queryOptions());
  // The URL is the browser's own origin: what the member reaches is what their client reaches.
  const origin = useBrowserOrigin();
  // Pasted only to fill the snippets below; never stored or sent.
  const [secret, setSecret] = useState("");

  const url = origin ? mcpUrl(origin) : MCP_ROUTE;
  const myKeys = (keys.data ?? []).filter(
    (key) => key.kind === "personal" && key.memberId === me.data?.member.id && !key.revokedAt,
  );
  const snippets = mcpSnippets(url, secret.trim() || undefined);

  return (
    <>
      <PageHeader title="MCP server" />
      <p className="muted">
        Connect an MCP client (Claude Desktop, Cursor, an agent framework) with your personal API key: your AI can read
        and search knowledgebases, write pages under the same review rules as the API, and talk to published apps. It
        acts as you, limited by your key&apos;s scopes and your role.
      </p>
      {me.data && !me.data.organization.mcpEnabled && (
        <div className="notice" role="status" data-testid="mcp-disabled">
          The MCP server is turned off for this organization: clients get <code>api_disabled</code>. An admin can turn
          it on in <Link href="/settings">Settings</Link>.
        </div>
      )}

      <Panel title="Server URL">
        <CopyableValue value={url} testId="mcp-url" />
        <p className="muted">
          Streamable HTTP, stateless. Send <code>Authorization: Bearer sk_mem_…</code> with a personal key; organization
          keys are refused (<code>member_key_required</code>). Each HTTP request counts against the key&apos;s rate
          limit, as on the REST API.
        </p>
      </Panel>

      <Panel title="Your personal keys">
        {keys.isLoading && <p className="muted">Loading…</p>}
        <ErrorAlert error={keys.error} />
        {keys.data && myKeys.length === 0 && (
          <p data-testid="no-personal-key">
            You have no active personal key. <Link href="/keys">Create a personal key</Link> with the scopes{" "}
            {MCP_SCOPES.map((scope) => (
              <code key={scope}>{scope} </code>
            ))}
            ; its secret is shown once.
          </p>
        )}
        {myKeys.length > 0 && <PersonalKeys keys={myKeys} />}
        <FormField label="Fill the snippets with a key (stays in this page)">
          <input
            type="password"
            autoComplete="off"
            value={secret}
            onChange={(event) => setSecret(event.target.value)}
            placeholder="sk_mem_…"
          />
        </FormField>
      </Panel>

      <Snippets snippets={snippets} />

      <McpTools />
    </>
  );
}

/** The member's active personal keys, with the scopes each lacks for the MCP tools. */
function PersonalKeys({ keys }: { keys: ApiKey[] }) {
  return (
    <>
      <DataTable
        label="Your personal keys table"
        cards
        rows={keys}
        rowTestId="mcp-key-row"
        empty=""
        columns={[
          { ...NAME_COLUMN, cell: (key) => key.name },
          { key: "prefix", header: "Prefix", nowrap: true, cell: (key) => <code>{key.prefix}…</code> },
          {
            key: "missing",
            header: "Missing scopes for MCP tools",
            cell: (key) => {
              const missing = MCP_SCOPES.filter((scope) => !key.scopes.includes(scope));
              return <span className="muted">{missing.length === 0 ? "none" : missing.join(", ")}</span>;
            },
          },
          {
            key: "lastUsed",
            header: "Last used",
            cell: (key) => <span className="muted">{timeOrNever(key.lastUsedAt)}</span>,
          },
        ]}
      />
      <p className="muted">
        Secrets are shown only when a key is created. Lost one? <Link href="/keys">Create another key</Link>.
      </p>
    </>
  );
}

/** Each client's configuration, filled with the URL (and the key, when one was pasted). */
function Snippets({ snippets }: { snippets: ReturnType<typeof mcpSnippets> }) {
  return (
    <>
      {snippets.map((snippet) => (
        <Panel
          key={snippet.id}
          title={snippet.title}
          actions={<CopyButton text={snippet.text} />}
          testId={`snippet-${snippet.id}`}
        >
          <p className="muted">{snippet.where}</p>
          <pre className="diff" aria-label={`${snippet.title} configuration`}>
            {snippet.text}
          </pre>
        </Panel>
      ))}
    </>
  );
}

/** The tools an MCP client gets, and the pages it can attach. */
function McpTools() {
  return (
    <Panel title="What your AI can do">
      <dl className="facts">
        {TOOLS.map(([names, what]) => (
          <Fragment key={names}>
            <dt>
              <code>{names}</code>
            </dt>
            <dd>{what}</dd>
          </Fragment>
        ))}
      </dl>
      <p className="muted">
        Pages are also resources (
        <code>atrium://knowledgebases/&#123;knowledgebaseId&#125;/pages/&#123;pageId&#125;</code>) that clients can
        attach. Errors carry the API&apos;s codes in <code>{'{"error":{"code","message"}}'}</code>.
      </p>
    </Panel>
  );
}
