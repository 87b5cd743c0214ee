"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { CopyButton, ErrorAlert, useMay } from "@/components/console";
import { ConfirmButton } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { SCOPES, type Scope } from "@/schemas/auth";
import { PageHeader } from "@/components/console";
import { MAX_SHORT_NAME_CHARS } from "@/schemas/limits";

function formatTime(value: string | null): string {
  return value ? new Date(value).toLocaleString() : "never";
}

export default function KeysPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.apiKeys.list.queryOptions());
  const mayChangeSettings = useMay("settings");

  const [name, setName] = useState("");
  const [kind, setKind] = useState<"personal" | "organization">("personal");
  const [scopes, setScopes] = useState<Scope[]>([...SCOPES]);
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: (key) => {
        setCreated({ name: key.name, secret: key.secret });
        setName("");
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.apiKeys.revoke.mutationOptions({ onSuccess: () => void refresh() }));

  function toggleScope(scope: Scope) {
    setScopes((current) => (current.includes(scope) ? current.filter((s) => s !== scope) : [...current, scope]));
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ name, kind, scopes });
  }

  return (
    <>
      <PageHeader title="API keys" />
      {created && (
        <div className="notice" role="status">
          <p>
            <strong>{created.name}</strong> was created. Copy its secret now: it is shown only once and cannot be
            recovered.
          </p>
          <div className="row">
            <code className="secret" data-testid="new-key-secret">
              {created.secret}
            </code>
            <CopyButton text={created.secret} />
            <button type="button" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      )}

      <form className="panel form" onSubmit={submit} aria-label="Create an API key">
        <h2>Create a key</h2>
        <label>
          Name
          <input
            required
            maxLength={MAX_SHORT_NAME_CHARS}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="e.g. CRM sync"
          />
        </label>
        <fieldset className="row" style={{ border: 0, padding: 0 }}>
          <legend className="muted">Kind</legend>
          <label className="inline">
            <input type="radio" name="kind" checked={kind === "personal"} onChange={() => setKind("personal")} />
            Personal (acts as you, limited by your role)
          </label>
          <label className="inline">
            <input
              type="radio"
              name="kind"
              checked={kind === "organization"}
              onChange={() => setKind("organization")}
              disabled={!mayChangeSettings}
            />
            Organization{mayChangeSettings ? "" : " (admins only)"}
          </label>
        </fieldset>
        <fieldset style={{ border: 0, padding: 0 }}>
          <legend className="muted">
            Scopes{" "}
            <button type="button" onClick={() => setScopes(scopes.length === SCOPES.length ? [] : [...SCOPES])}>
              {scopes.length === SCOPES.length ? "Clear all" : "Select all"}
            </button>
          </legend>
          <div className="scopes">
            {SCOPES.map((scope) => (
              <label key={scope} className="inline">
                <input type="checkbox" checked={scopes.includes(scope)} onChange={() => toggleScope(scope)} />
                <code>{scope}</code>
              </label>
            ))}
          </div>
        </fieldset>
        <ErrorAlert error={create.error} />
        <div>
          <button className="primary" type="submit" disabled={create.isPending}>
            Create key
          </button>
        </div>
      </form>

      <div className="panel">
        <h2>Keys</h2>
        {keys.isLoading && <p className="muted">Loading…</p>}
        <ErrorAlert error={keys.error} />
        <ErrorAlert error={revoke.error} />
        {keys.data && keys.data.length === 0 && (
          <p className="muted">No keys yet: create one above to call the REST API or connect an MCP client.</p>
        )}
        {keys.data && keys.data.length > 0 && (
          // On a phone each key is a card (console.css, .table-cards), each cell under its column's name.
          <div className="table-scroll table-cards" role="region" aria-label="Keys table" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Kind</th>
                  <th>Prefix</th>
                  <th>Scopes</th>
                  <th>Last used</th>
                  <th>Status</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {keys.data.map((key) => (
                  <tr key={key.id} data-testid="key-row">
                    <td style={{ minWidth: "8rem" }} data-label="Name">
                      {key.name}
                    </td>
                    <td style={{ minWidth: "11rem" }} data-label="Kind">
                      {key.kind}
                      {key.memberEmail && <div className="muted">{key.memberEmail}</div>}
                    </td>
                    <td className="nowrap" data-label="Prefix">
                      <code>{key.prefix}…</code>
                    </td>
                    <td className="muted" data-label="Scopes">
                      {key.scopes.length === SCOPES.length ? "all scopes" : key.scopes.join(", ")}
                    </td>
                    <td className="muted nowrap" data-label="Last used">
                      {formatTime(key.lastUsedAt)}
                    </td>
                    <td className="nowrap" data-label="Status">
                      {key.revokedAt ? (
                        <span className="badge revoked">Revoked</span>
                      ) : (
                        <span className="badge">Active</span>
                      )}
                    </td>
                    <td>
                      {!key.revokedAt && (
                        <ConfirmButton
                          label="Revoke"
                          title={`Revoke ${key.name}?`}
                          description="Anything using this key stops working at once."
                          confirmLabel="Revoke"
                          onConfirm={() => revoke.mutate({ keyId: key.id })}
                        />
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </>
  );
}
